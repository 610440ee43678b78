import CLibSecret
import Foundation
@testable import Keyring
import Testing

/// GVariant type strings handed to GLib: the string must outlive every call that reads the `GVariantType`.
@Suite("GVariant types")
struct VariantTypeTests {
    @Test("a type string built at run time matches, and rejects, as its text says")
    func typesFromRuntimeStrings() {
        let value = Variant.tuple([g_variant_new_boolean(1)])
        g_variant_ref_sink(value)
        defer { g_variant_unref(value) }
        // Built at run time, so that no constant storage keeps them alive by chance.
        let matching = String(["(", "b", ")"].joined())
        let other = String(["(", "o", ")"].joined())
        #expect(Variant.isOfType(value, matching))
        #expect(!Variant.isOfType(value, other))
        #expect(Variant.withType(matching) { String(cString: g_variant_type_peek_string($0)) }.hasPrefix("(b)"))
    }

    /// A `GVariantType` is a pointer into its type string. Swift's implicit `String`-to-pointer conversion lives
    /// only for the call it is passed to, so `g_variant_type_checked_(type)` written as an argument of another call
    /// (`g_dbus_connection_call_sync`, `g_variant_is_of_type`) hands that call freed memory. It once made GDBus
    /// check a `NameHasOwner` reply against whatever had reused the string ("returned type (b), but expected o").
    /// Whether that memory is reused in time cannot be arranged from a test, so this checks the source: types are
    /// made only in `Variant.withType`, which keeps the string alive while its body runs.
    @Test("GVariant types are made only inside Variant.withType, where their string outlives the call")
    func typesAreMadeInOnePlace() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 50, "found \(files.count) Swift files under \(sources.path)")
        var uses: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated()
            where line.contains("g_variant_type_checked_(") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                uses.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(uses == ["GVariantConversions.swift:27: try type.withCString { try body(g_variant_type_checked_($0)) }"])
    }
}
