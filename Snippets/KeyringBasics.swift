// Items in the Secret Service with the Keyring module: store, look up, list and delete by attributes, and tell a
// locked keyring from an absent item.

import Keyring

// snippet.roundTrip
let keyring = Keyring()  // connects on the first call; prompts to unlock on a desktop
let attributes = ["service": "example.org", "account": "ada"]

// Replaces the secret of the one item with exactly these attributes, or creates it in the default collection.
try await keyring.store("s3cret", label: "Example password for ada", attributes: attributes)

// `nil` means no such item: a locked keyring throws instead.
if let found = try await keyring.lookup(attributes) {
    print("read \(found.secret.count) characters from \(found.path)")
}
// snippet.end

// snippet.list
// Every item that has these attributes (and possibly more), with its metadata but not its secret.
for item in try await keyring.items(matching: ["service": "example.org"]) {
    print(item.label, item.attributes["account"] ?? "?", item.isLocked ? "(locked)" : "")
}
// Deletes the items with exactly these attributes; items of other tools that carry more are left alone.
let deleted = try await keyring.delete(attributes)
print("deleted \(deleted) item(s)")
// snippet.end

// snippet.noPrompt
// A background job: never show an unlock prompt, and give up on a silent Secret Service after 2 s.
let unattended = Keyring(configuration: .init(timeout: .seconds(2), prompting: .never))
do {
    let secret = try await unattended.lookup(attributes)
    print(secret == nil ? "nothing stored" : "found")
} catch let error as KeyringError {
    switch error.code {
    case .locked: print("The keyring is locked: \(error.fix)")
    case .serviceUnavailable, .misconfigured: print("No usable Secret Service: \(error.fix)")
    case .timedOut: print("The Secret Service did not answer: \(error.fix)")
    default: print(error)
    }
}
// snippet.end

// snippet.diagnose
// What `tokenctl doctor` prints: each step from this process to a usable keyring, with a fix for each failure.
let diagnosis = await keyring.diagnose()
print(diagnosis)
if let provider = diagnosis.provider {
    print("served by \(provider.name)")
}
// snippet.end

// snippet.changes
let changes = try await keyring.changes()
var current = try await keyring.lookup(attributes)
for await change in changes where change.mayConcern(itemAt: current?.path) {
    // Best effort: read again before relying on what you hold, whether or not a change came.
    current = try await keyring.lookup(attributes)
    print(current == nil ? "deleted elsewhere" : "changed elsewhere")
}
// snippet.end
