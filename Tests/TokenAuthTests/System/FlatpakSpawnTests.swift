import Testing
@testable import TokenAuth

@Suite("FlatpakSpawn: a process that outlives the app's sandbox instance")
struct FlatpakSpawnTests {
    @Test("outside a sandbox (no /.flatpak-info) nothing goes through the portal, whatever is installed")
    func outsideASandbox() {
        #expect(FlatpakSpawn.inThisSandbox(exists: { _ in false }, isExecutable: { _ in true }) == nil)
    }

    @Test("in a sandbox, the first flatpak-spawn that can run: the runtime's, the app's, then Debian's")
    func theFirstCandidate() {
        let sandbox: (String) -> Bool = { $0 == "/.flatpak-info" }
        #expect(FlatpakSpawn.inThisSandbox(exists: sandbox, isExecutable: { _ in true })?.program
            == "/usr/bin/flatpak-spawn")
        #expect(FlatpakSpawn.inThisSandbox(exists: sandbox, isExecutable: { $0.hasPrefix("/app/") })?.program
            == "/app/bin/flatpak-spawn")
        #expect(FlatpakSpawn.inThisSandbox(exists: sandbox, isExecutable: { $0.contains("libexec") })?.program
            == "/usr/libexec/flatpak-xdg-utils/flatpak-spawn")
        #expect(FlatpakSpawn.inThisSandbox(exists: sandbox, isExecutable: { _ in false }) == nil)
    }

    @Test("the arguments: the variable, the package's settings that are set, then the executable; nothing else")
    func arguments() {
        let environment = ["TOKENCTL_LOG_LEVEL": "debug", "HTTPS_PROXY": "http://user:secret@proxy", "HOME": "/home/ada"]
        let arguments = FlatpakSpawn(program: "/usr/bin/flatpak-spawn").arguments(
            running: "/app/bin/my-app", ["--refresh"], setting: "TOKENKEYRING_REFRESH_PROCESS",
            value: { environment[$0] })
        #expect(arguments == [
            "flatpak-spawn", "--env=TOKENKEYRING_REFRESH_PROCESS=1", "--env=TOKENCTL_LOG_LEVEL=debug",
            "/app/bin/my-app", "--refresh",
        ])
        #expect(!arguments.joined().contains("secret"), "a proxy's URL can hold a password: never in the arguments")
    }

    @Test("this process's executable is an absolute path")
    func executable() throws {
        let path = try #require(FlatpakSpawn.executablePath())
        #expect(path.hasPrefix("/"))
        #expect(!path.hasSuffix("(deleted)"))
    }
}
