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

/// Method calls sent together and awaited together: their round trips overlap, so a batch costs about one.
///
/// Use: `clibsecret_batch_new`, one `clibsecret_batch_call` per slot, `clibsecret_batch_wait`, then
/// `clibsecret_batch_take` for each slot, and `clibsecret_batch_free`. Replies are delivered on the batch's
/// own main context, so waiting never runs anybody else's callbacks. A call is bounded by `cancellable`
/// (and GDBus's default timeout).
typedef struct {
    GDBusConnection *connection;
    char *destination;
    GCancellable *cancellable;
    GMainContext *context;
    guint size;
    guint pending;
    GVariant **replies;
    GError **errors;
} ClibsecretBatch;

typedef struct {
    ClibsecretBatch *batch;
    guint index;
} ClibsecretBatchSlot;

static inline void clibsecret_batch_reply(GObject *source, GAsyncResult *result, gpointer data) {
    ClibsecretBatchSlot *slot = data;
    ClibsecretBatch *batch = slot->batch;
    batch->replies[slot->index] =
        g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &batch->errors[slot->index]);
    batch->pending--;
    g_free(slot);
}

static inline ClibsecretBatch *clibsecret_batch_new(GDBusConnection *connection, const char *destination, guint size,
                                                    GCancellable *cancellable) {
    ClibsecretBatch *batch = g_new0(ClibsecretBatch, 1);
    batch->connection = g_object_ref(connection);
    batch->destination = g_strdup(destination);
    batch->cancellable = cancellable ? g_object_ref(cancellable) : NULL;
    batch->context = g_main_context_new();
    batch->size = size;
    batch->replies = g_new0(GVariant *, size ? size : 1);
    batch->errors = g_new0(GError *, size ? size : 1);
    return batch;
}

/// Sends one method call into slot `index` without waiting. Consumes a floating `parameters`.
/// `reply_type` is a GVariant type string such as "(a{sv})", or NULL to accept any reply.
static inline void clibsecret_batch_call(ClibsecretBatch *batch, guint index, const char *path, const char *interface,
                                         const char *method, GVariant *parameters, const char *reply_type) {
    g_return_if_fail(index < batch->size);
    ClibsecretBatchSlot *slot = g_new(ClibsecretBatchSlot, 1);
    slot->batch = batch;
    slot->index = index;
    batch->pending++;
    g_main_context_push_thread_default(batch->context);
    g_dbus_connection_call(batch->connection, batch->destination, path, interface, method, parameters,
                           reply_type ? G_VARIANT_TYPE(reply_type) : NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                           batch->cancellable, clibsecret_batch_reply, slot);
    g_main_context_pop_thread_default(batch->context);
}

/// Blocks until every call sent so far has its reply or error.
static inline void clibsecret_batch_wait(ClibsecretBatch *batch) {
    while (batch->pending > 0) g_main_context_iteration(batch->context, TRUE);
}

/// The reply in slot `index` (the caller unrefs it), or NULL with `error` set. Only after `clibsecret_batch_wait`.
static inline GVariant *clibsecret_batch_take(ClibsecretBatch *batch, guint index, GError **error) {
    g_return_val_if_fail(index < batch->size, NULL);
    GVariant *reply = batch->replies[index];
    batch->replies[index] = NULL;
    if (reply == NULL && batch->errors[index] != NULL) {
        g_propagate_error(error, batch->errors[index]);
        batch->errors[index] = NULL;
    }
    return reply;
}

/// Waits for outstanding calls (their callbacks point into the batch), then frees it and every untaken reply.
static inline void clibsecret_batch_free(ClibsecretBatch *batch) {
    clibsecret_batch_wait(batch);
    for (guint i = 0; i < batch->size; i++) {
        if (batch->replies[i]) g_variant_unref(batch->replies[i]);
        if (batch->errors[i]) g_error_free(batch->errors[i]);
    }
    g_free(batch->replies);
    g_free(batch->errors);
    g_main_context_unref(batch->context);
    if (batch->cancellable) g_object_unref(batch->cancellable);
    g_free(batch->destination);
    g_object_unref(batch->connection);
    g_free(batch);
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
