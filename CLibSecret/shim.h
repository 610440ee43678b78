#ifndef CLIBSECRET_SHIM_H
#define CLIBSECRET_SHIM_H

// Acknowledges libsecret's "unstable" secret-paths.h for one function, secret_collection_new_for_dbus_path_sync
// (unchanged since libsecret 0.7), used only through clibsecret_collection_for_path_sync below.
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

/// `SECRET_ITEM(object)` when `object` is a SecretItem, NULL otherwise (GObject casts are macros).
static inline SecretItem *clibsecret_as_item(gpointer object) {
    return SECRET_IS_ITEM(object) ? SECRET_ITEM(object) : NULL;
}

/// The D-Bus object path of a Secret Service proxy (item or collection).
static inline const char *clibsecret_object_path(gpointer proxy) {
    return g_dbus_proxy_get_object_path(G_DBUS_PROXY(proxy));
}

/// Releases a GObject reference (type-erased, so Swift can pass any GObject subtype).
static inline void clibsecret_object_unref(gpointer object) {
    g_object_unref(object);
}

/// Releases every element of a GList of GObjects and the list itself.
static inline void clibsecret_object_list_free(GList *list) {
    g_list_free_full(list, g_object_unref);
}

/// A proxy for the collection at `path`, without loading its items. NULL, with `error` set, when there is none.
///
/// The stable API can only list every collection, loading every item of each; that fails outright when
/// another client deletes any item meanwhile.
static inline SecretCollection *clibsecret_collection_for_path_sync(SecretService *service, const char *path,
                                                                    GCancellable *cancellable, GError **error) {
    return secret_collection_new_for_dbus_path_sync(service, path, SECRET_COLLECTION_NONE, cancellable, error);
}

/// Asks the bus whether `name` has an owner right now (org.freedesktop.DBus.NameHasOwner).
/// Returns -1 and sets `error` when the call fails.
static inline int clibsecret_bus_name_has_owner(GDBusConnection *connection, const char *name,
                                                GCancellable *cancellable, GError **error) {
    GVariant *reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "NameHasOwner",
                                                  g_variant_new("(s)", name), G_VARIANT_TYPE("(b)"),
                                                  G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error);
    if (reply == NULL) return -1;
    gboolean owned = FALSE;
    g_variant_get(reply, "(b)", &owned);
    g_variant_unref(reply);
    return owned ? 1 : 0;
}

/// Whether the bus can start a provider of `name` on demand (org.freedesktop.DBus.ListActivatableNames).
/// Returns -1 and sets `error` when the call fails.
static inline int clibsecret_bus_name_is_activatable(GDBusConnection *connection, const char *name,
                                                     GCancellable *cancellable, GError **error) {
    GVariant *reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "ListActivatableNames",
                                                  NULL, G_VARIANT_TYPE("(as)"),
                                                  G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error);
    if (reply == NULL) return -1;
    GVariantIter *names = NULL;
    const char *candidate = NULL;
    int found = 0;
    g_variant_get(reply, "(as)", &names);
    while (g_variant_iter_loop(names, "&s", &candidate)) {
        if (g_strcmp0(candidate, name) == 0) found = 1;
    }
    g_variant_iter_free(names);
    g_variant_unref(reply);
    return found;
}

#endif
