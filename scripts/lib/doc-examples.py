#!/usr/bin/env python3
"""Writes every ```swift example of the `///` comments in Sources/ as Swift that a package of its own compiles.

    scripts/lib/doc-examples.py REPO OUTPUT_DIRECTORY

Each example of a public declaration becomes a function of its own, `async throws`, in a file named after the source
file, with a `#sourceLocation` pointing at the comment's lines: a compiler error names the line of the doc comment
(the column is off by the comment's `/// ` and indentation). The consumer package (Examples/Consumer, target
DocCommentExamples) compiles them in Swift 6 mode with warnings as errors, beside Prelude.swift, which declares the
names the examples use without declaring them (`manager`, `transport`, `Profile` …): what an app has in scope where
it would write such code.

- Imports: an example that shows its imports gets exactly those; any other gets the imports a reader of its module
  has (the module, Foundation, and the modules its API hands out), below.
- Values an example declares at its top level and then leaves unused (`let token = try await manager.validToken()`)
  are used once after it (`_ = token`): an example shows how to get a value, and what the app then does with it is
  not the example's business. Every other warning is an error.
- Examples of declarations that are not public (internal helpers, the test server's `package` API) are not compiled:
  no consumer can call them. They are counted on standard error.

Writes only files whose text changed, and deletes files it no longer writes, so that a build of the consumer
recompiles only what changed.
"""
import pathlib
import re
import sys

# What a reader of each module's documentation has imported. TokenKeyring re-exports Keyring, TokenAuth,
# TokenAuthDPoP, TokenAuthKeyring, TokenAuthSignIn and TokenAuthURLSession (not TokenAuthFileStore, nor
# TokenAuthGLib).
MODULE_IMPORTS = {
    "Keyring": ["Foundation", "Keyring"],
    "TokenAuth": ["Foundation", "HTTPTypes", "TokenAuth"],
    "TokenAuthURLSession": ["Foundation", "HTTPTypes", "TokenAuth", "TokenAuthURLSession"],
    "TokenAuthKeyring": ["Foundation", "Keyring", "TokenAuth", "TokenAuthKeyring", "TokenAuthURLSession"],
    "TokenAuthFileStore": ["Foundation", "TokenAuth", "TokenAuthFileStore"],
    # DPoP's software keys and proofs, and swift-crypto's keys they are made from.
    "TokenAuthDPoP": ["Crypto", "Foundation", "TokenAuth", "TokenAuthDPoP"],
    "TokenAuthSignIn": ["Foundation", "Keyring", "TokenAuth", "TokenAuthKeyring", "TokenAuthSignIn"],
    "TokenAuthTesting": ["Foundation", "Synchronization", "Testing", "TokenAuth", "TokenAuthSignIn", "TokenAuthTesting"],
    "TokenAuthOpenCombine": ["Foundation", "OpenCombine", "TokenAuth", "TokenAuthOpenCombine"],
    # Not TokenAuthURLSession: the `URLSessionTransport` of these examples is swift-openapi-urlsession's.
    "TokenAuthOpenAPI": ["Foundation", "OpenAPIRuntime", "TokenAuth", "TokenAuthOpenAPI"],
    "TokenKeyring": ["Foundation", "TokenKeyring"],
    # A GTK app: the session (UsingTokenAuthInAGTKApp's manifest) and the actor on GTK's thread.
    "TokenAuthGLib": ["Foundation", "HTTPTypes", "TokenAuthGLib", "TokenKeyring"],
    # DPoP keys in a TPM: the provider for `DPoP` (TokenAuth), and swift-crypto's SHA256 for a device's own digests.
    "TokenAuthTPM": ["Crypto", "Foundation", "TokenAuth", "TokenAuthTPM"],
    # git's credential protocol over a session: the manager is TokenAuth's.
    "TokenAuthGit": ["Foundation", "TokenAuth", "TokenAuthGit"],
}
# The examples of declarations in these modules also use `Mutex`.
EXTRA_IMPORTS = {"TokenAuth": ["Synchronization"]}

# Stand-ins for what swift-openapi-generator generates in an app, and for swift-openapi-urlsession's transport:
# file-private, so that no other example sees them.
OPENAPI_STAND_INS = """\
fileprivate struct Client {
    init(serverURL: URL, transport: some ClientTransport, middlewares: [any ClientMiddleware] = []) {}
}
fileprivate enum Servers {
    enum Server1 { static func url() throws -> URL { URL(string: "https://api.example.com")! } }
}
fileprivate struct URLSessionTransport: ClientTransport {
    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) { placeholder() }
}
"""
MODULE_PRELUDES = {"TokenAuthOpenAPI": (["HTTPTypes"], OPENAPI_STAND_INS)}

OPENING = re.compile(r"^\s*/// ?```swift\s*$")
CLOSING = re.compile(r"^\s*/// ?```\s*$")
DOC_LINE = re.compile(r"^\s*///")
ATTRIBUTE = re.compile(r"^\s*@\w+(\(.*\))?\s*$")
TOP_LEVEL_VALUE = re.compile(r"^(?:let|var) (?:(\w+)|\(([\w, ]+)\))")


def examples(path):
    """The swift examples of `path`: (first line number, lines, whether the declaration they document is public)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found = []
    index = 0
    while index < len(lines):
        if not OPENING.match(lines[index]):
            index += 1
            continue
        start = index + 1
        end = start
        while not CLOSING.match(lines[end]):
            end += 1
        body = [re.sub(r"^\s*/// ?", "", line) for line in lines[start:end]]
        # The declaration: the first line after the comment that is neither a comment nor an attribute.
        following = end + 1
        while following < len(lines) and (DOC_LINE.match(lines[following]) or ATTRIBUTE.match(lines[following])):
            following += 1
        declaration = lines[following] if following < len(lines) else ""
        public = re.search(r"\b(public|open)\b", declaration.split("{")[0]) is not None
        found.append((start + 1, body, public))
        index = end + 1
    return found


def function(name, location, body):
    """One example as a function, its own imports taken out; returns (imports, text)."""
    imports = [line.split()[1] for line in body if re.match(r"^import \w+\s*$", line)]
    code = [line for line in body if not re.match(r"^import \w+\s*$", line)]
    names = []
    for line in code:
        match = TOP_LEVEL_VALUE.match(line)
        if match:
            names += [match.group(1)] if match.group(1) else [n.strip() for n in match.group(2).split(",")]
    used = [f"    _ = {name}" for name in names if name != "_"]
    text = "\n".join(
        [f"func {name}() async throws {{", f'#sourceLocation(file: "{location[0]}", line: {location[1]})']
        + [f"    {line}" if line else "" for line in code]
        + ["#sourceLocation()"]
        + used
        + ["}"]
    )
    return imports, text


def main():
    repo = pathlib.Path(sys.argv[1]).resolve()
    output = pathlib.Path(sys.argv[2])
    output.mkdir(parents=True, exist_ok=True)
    written = set()
    compiled = skipped = 0
    for path in sorted((repo / "Sources").rglob("*.swift")):
        module = path.relative_to(repo / "Sources").parts[0]
        functions = []
        imports = set()
        for line, body, public in examples(path):
            if not public:
                skipped += 1
                continue
            if module not in MODULE_IMPORTS:
                sys.exit(f"{path}:{line}: an example in module {module}, whose readers' imports are not listed here")
            compiled += 1
            name = "example_" + re.sub(r"\W", "_", path.stem) + f"_{line}"
            own, text = function(name, (str(path), line), body)
            imports |= set(own or MODULE_IMPORTS[module] + EXTRA_IMPORTS.get(module, []))
            functions.append(text)
        if not functions:
            continue
        extra_imports, stand_ins = MODULE_PRELUDES.get(module, ([], ""))
        header = f"// Generated by scripts/lib/doc-examples.py from {path.relative_to(repo)}: do not edit.\n"
        text = header + "".join(f"import {name}\n" for name in sorted(imports | set(extra_imports)))
        text += ("\n" + stand_ins if stand_ins else "") + "\n" + "\n\n".join(functions) + "\n"
        file = output / (module + "_" + path.stem.replace("+", "_") + ".swift")
        written.add(file.name)
        if not file.exists() or file.read_text(encoding="utf-8") != text:
            file.write_text(text, encoding="utf-8")
    for stale in output.glob("*.swift"):
        if stale.name not in written:
            stale.unlink()
    print(f"{compiled} examples of public API to compile; {skipped} of other declarations left out", file=sys.stderr)


if __name__ == "__main__":
    main()
