#ifndef CLIBSECRET_SHIM_H
#define CLIBSECRET_SHIM_H

// Acknowledges libsecret's "unstable" secret-paths.h: the calls by D-Bus object path
// (secret_service_search_for_dbus_paths_sync, *_dbus_path(s)_sync, secret_service_encode/decode_dbus_secret).
// They are unchanged since libsecret 0.7 and let the Keyring module work without one GDBusProxy per item,
// which costs a D-Bus round trip and a bus match rule each.
#define SECRET_API_SUBJECT_TO_CHANGE
#include <libsecret/secret.h>

/// A string-to-string hash table that owns (and frees) copies of its keys and values.
static inline GHashTable *clibsecret_string_table_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

/// Adds copies of `key` and `value` to a table made by `clibsecret_string_table_new`.
static inline void clibsecret_string_table_insert(GHashTable *table, const char *key, const char *value) {
    g_hash_table_insert(table, g_strdup(key), g_strdup(value));
}

/// The properties of a new item for `secret_service_create_item_dbus_path_sync`: its label and its attributes,
/// exactly those in `attributes` (a string table), with no `xdg:schema` added.
static inline GHashTable *clibsecret_item_properties_new(const char *label, GHashTable *attributes) {
    GHashTable *properties = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_variant_unref);
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("a{ss}"));
    GHashTableIter iter;
    gpointer key, value;
    g_hash_table_iter_init(&iter, attributes);
    while (g_hash_table_iter_next(&iter, &key, &value)) g_variant_builder_add(&builder, "{ss}", key, value);
    g_hash_table_insert(properties, "org.freedesktop.Secret.Item.Label", g_variant_ref_sink(g_variant_new_string(label)));
    g_hash_table_insert(properties, "org.freedesktop.Secret.Item.Attributes",
                        g_variant_ref_sink(g_variant_builder_end(&builder)));
    return properties;
}

/// The connection and bus name behind libsecret's Secret Service proxy, for calls libsecret has no function for.
static inline GDBusConnection *clibsecret_service_connection(SecretService *service) {
    return g_dbus_proxy_get_connection(G_DBUS_PROXY(service));
}

static inline const char *clibsecret_service_bus_name(SecretService *service) {
    return g_dbus_proxy_get_name(G_DBUS_PROXY(service));
}

#endif
