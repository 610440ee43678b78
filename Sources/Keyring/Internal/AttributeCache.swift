import CDBusBatch
import CLibSecret

/// The attributes of items read earlier in this process, kept while the Secret Service announces no change to
/// them (`CDBusBatch`'s `attribute_cache.c`): a lookup that finds a remembered item reads only its secret, the
/// same two round trips as `secret_password_lookup`, instead of also asking for the item's attributes.
///
/// Exact matching is unchanged: the attributes compared are the item's as the service last announced them. A change
/// announced before a lookup's search was answered is always seen (the bus delivers a peer's messages in order,
/// and the cache forgets on the connection's worker thread as they arrive). This is how libsecret's own item
/// proxies keep their properties. The cache keeps nothing until the bus has confirmed its match rules, and only for
/// providers seen to announce every change: gnome-keyring and KeePassXC, not kwalletd5.
enum AttributeCache {
    /// The generation to read attributes at, and whether the cache is watching `service`'s connection yet.
    /// Without a connection (never, once libsecret has connected), nothing is remembered.
    static func generation(for service: UnsafeMutablePointer<SecretService>) -> (generation: guint64, watching: Bool) {
        guard let connection = clibsecret_service_connection(service) else { return (0, false) }
        var watching: gboolean = 0
        let generation = tokenkeyring_attribute_cache_generation(connection, &watching)
        return (generation, watching != 0)
    }

    /// Whether the cache watches `connection` and the bus has confirmed its match rules (see
    /// `tokenkeyring_attribute_cache_rules_confirmed`).
    static func rulesConfirmed(on connection: OpaquePointer) -> Bool {
        tokenkeyring_attribute_cache_rules_confirmed(connection) != 0
    }

    /// The remembered attributes of the item at `path`, if any.
    static func recall(_ path: String) -> [String: String]? {
        guard let attributes = tokenkeyring_attribute_cache_recall(path) else { return nil }
        defer { g_variant_unref(attributes) }
        return Variant.stringMap(attributes)
    }

    /// Remembers the `a{ss}` `attributes` of the item at `path`, read at `generation`.
    static func remember(_ path: String, _ attributes: OpaquePointer, readAt generation: guint64) {
        tokenkeyring_attribute_cache_remember(path, attributes, generation)
    }

    /// How many recalls found the attributes of the item at `path` (for tests).
    static func hits(_ path: String) -> Int {
        Int(tokenkeyring_attribute_cache_hits(path))
    }
}
