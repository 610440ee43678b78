import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Building the parameters and reading the replies of the Secret Service's D-Bus methods.
///
/// `g_variant_new` is variadic, so Swift builds values from GLib's typed constructors. Builders return
/// floating references, which the call (or the enclosing tuple) sinks; readers borrow their argument.
enum Variant {
    /// A floating tuple of `children` (floating or not; the tuple takes its own references).
    static func tuple(_ children: [OpaquePointer?]) -> OpaquePointer {
        children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    static func string(_ value: String) -> OpaquePointer { g_variant_new_string(value) }

    /// Runs `body` with the `GVariantType` of `type`, a GVariant type string such as `(b)`.
    ///
    /// A `GVariantType` is a pointer into its type string. Swift's implicit conversion of a `String` argument to a
    /// C pointer lives only for the one call it is passed to, so `g_variant_type_checked_(type)` nested in another
    /// call hands that call freed memory: a reply was once checked against whatever had reused it (GDBus: "returned
    /// type (b), but expected o"). Here the string stays alive until `body` returns.
    static func withType<T>(_ type: String, _ body: (OpaquePointer) throws -> T) rethrows -> T {
        try type.withCString { try body(g_variant_type_checked_($0)) }
    }

    /// Whether `value` is of the GVariant type `type` (a type string).
    static func isOfType(_ value: OpaquePointer, _ type: String) -> Bool {
        withType(type) { g_variant_is_of_type(value, $0) != 0 }
    }

    static func objectPath(_ value: String) -> OpaquePointer { g_variant_new_object_path(value) }

    /// An `ao` array of object paths.
    static func objectPaths(_ paths: [String]) -> OpaquePointer {
        withCStrings(paths) { g_variant_new_objv($0, gssize(paths.count)) }
    }

    /// An `a{ss}` dictionary.
    static func stringDictionary(_ map: [String: String]) -> OpaquePointer {
        let entries: [OpaquePointer?] = map.sorted { $0.key < $1.key }.map {
            g_variant_new_dict_entry(string($0.key), string($0.value))
        }
        return withType("{ss}") { type in
            entries.withUnsafeBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
        }
    }

    /// `(s)`: the parameters of `org.freedesktop.DBus.Properties.GetAll`.
    static func getAllParameters(interface: String) -> OpaquePointer { tuple([string(interface)]) }

    /// `(ss)`: the parameters of `org.freedesktop.DBus.Properties.Get`.
    static func getParameters(interface: String, property: String) -> OpaquePointer {
        tuple([string(interface), string(property)])
    }

    /// Reads the value of a `Properties.Get` reply `(v)` with `read`, or returns `nil` when it is of another
    /// type than `type` (a GVariant type string).
    static func boxedProperty<T>(_ reply: OpaquePointer, type: String, _ read: (OpaquePointer) -> T) -> T? {
        let boxed = firstChild(reply)
        defer { g_variant_unref(boxed) }
        guard let value = g_variant_get_variant(boxed) else { return nil }
        defer { g_variant_unref(value) }
        guard isOfType(value, type) else { return nil }
        return read(value)
    }

    /// The value of `key` in an `a{sv}`, `a{s*}` or `a{o*}` dictionary (unboxed from its variant), or `nil`.
    /// The caller releases it.
    static func lookup(_ dictionary: OpaquePointer, _ key: String) -> OpaquePointer? {
        g_variant_lookup_value(dictionary, key, nil)
    }

    /// Reads the child at `index` of a tuple or array with `read`.
    static func child<T>(_ value: OpaquePointer, _ index: Int, _ read: (OpaquePointer) -> T) -> T {
        let child: OpaquePointer = g_variant_get_child_value(value, gsize(index))
        defer { g_variant_unref(child) }
        return read(child)
    }

    /// The first child of a reply tuple, e.g. the `a{sv}` of a `GetAll` reply. The caller releases it.
    static func firstChild(_ reply: OpaquePointer) -> OpaquePointer {
        g_variant_get_child_value(reply, 0)
    }

    /// Reads a property from an `a{sv}` dictionary with `read`, or returns `nil` when it is absent
    /// or of another type than `type` (a GVariant type string).
    static func property<T>(_ dictionary: OpaquePointer, _ key: String, type: String, _ read: (OpaquePointer) -> T) -> T? {
        guard let value = lookup(dictionary, key) else { return nil }
        defer { g_variant_unref(value) }
        guard isOfType(value, type) else { return nil }
        return read(value)
    }

    static func stringValue(_ value: OpaquePointer) -> String {
        String(cString: g_variant_get_string(value, nil))
    }

    /// The entries of an `a{ss}` dictionary.
    static func stringMap(_ value: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        for index in 0..<g_variant_n_children(value) {
            let entry: OpaquePointer = g_variant_get_child_value(value, index)
            defer { g_variant_unref(entry) }
            let key: OpaquePointer = g_variant_get_child_value(entry, 0)
            defer { g_variant_unref(key) }
            let item: OpaquePointer = g_variant_get_child_value(entry, 1)
            defer { g_variant_unref(item) }
            result[stringValue(key)] = stringValue(item)
        }
        return result
    }

    /// The elements of an `as` array.
    static func stringArray(_ value: OpaquePointer) -> [String] {
        (0..<g_variant_n_children(value)).map { index in
            let element: OpaquePointer = g_variant_get_child_value(value, index)
            defer { g_variant_unref(element) }
            return stringValue(element)
        }
    }

    /// The strings of a NULL-terminated `gchar**`; does not release it.
    static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        var result: [String] = []
        var cursor = vector
        while let current = cursor, let element = current.pointee {
            result.append(String(cString: element))
            cursor = current + 1
        }
        return result
    }
}

/// Calls `body` with a NULL-terminated array of C strings that lives for the duration of the call.
func withCStrings<T>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<gchar>?>) throws -> T) rethrows -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var vector: [UnsafePointer<gchar>?] = copies.map { UnsafePointer($0) } + [nil]
    return try vector.withUnsafeMutableBufferPointer { try body($0.baseAddress!) }
}
