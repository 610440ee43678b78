/// tokenctl's documented exit statuses, shared by both executables.
package enum ExitStatus {
    package static let noCredentials: Int32 = 3
    package static let keyring: Int32 = 4
    package static let transient: Int32 = 5
    package static let httpStatus: Int32 = 6
    package static let usage: Int32 = 64
    package static let badInput: Int32 = 65
}
