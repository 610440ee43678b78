import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A string table for libsecret's attribute parameters. The caller releases it with `g_hash_table_unref`.
func makeAttributeTable(_ attributes: [String: String]) -> OpaquePointer {
    let table = clibsecret_string_table_new()!
    for (key, value) in attributes {
        clibsecret_string_table_insert(table, key, value)
    }
    return table
}

/// Copies a string-to-string `GHashTable` into a dictionary; does not release the table.
func dictionary(from table: OpaquePointer) -> [String: String] {
    var result: [String: String] = [:]
    var iterator = GHashTableIter()
    g_hash_table_iter_init(&iterator, table)
    var key: gpointer?
    var value: gpointer?
    while g_hash_table_iter_next(&iterator, &key, &value) != 0 {
        guard let key, let value else { continue }
        result[String(cString: key.assumingMemoryBound(to: CChar.self))] =
            String(cString: value.assumingMemoryBound(to: CChar.self))
    }
    return result
}

/// Takes ownership of a newly allocated C string: copies it and frees it.
func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// The elements of a `GList`, in order; does not release the list.
func elements(of list: UnsafeMutablePointer<GList>?) -> [gpointer] {
    var result: [gpointer] = []
    var node = list
    while let current = node {
        if let data = current.pointee.data { result.append(data) }
        node = current.pointee.next
    }
    return result
}
