#include "dbus_batch.h"

struct TokenKeyringBatch {
    GDBusConnection *connection;
    char *destination;
    GCancellable *cancellable;
    GMainContext *context;
    guint size;
    guint pending;
    GVariant **replies;
    GError **errors;
};

/// What a reply callback needs: the batch and the slot its reply goes to.
typedef struct {
    TokenKeyringBatch *batch;
    guint index;
} Slot;

static void batch_reply(GObject *source, GAsyncResult *result, gpointer data) {
    Slot *slot = data;
    TokenKeyringBatch *batch = slot->batch;
    batch->replies[slot->index] =
        g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &batch->errors[slot->index]);
    batch->pending--;
    g_free(slot);
}

TokenKeyringBatch *tokenkeyring_batch_new(GDBusConnection *connection, const char *destination, guint size,
                                          GCancellable *cancellable) {
    TokenKeyringBatch *batch = g_new0(TokenKeyringBatch, 1);
    batch->connection = g_object_ref(connection);
    batch->destination = g_strdup(destination);
    batch->cancellable = cancellable ? g_object_ref(cancellable) : NULL;
    batch->context = g_main_context_new();
    batch->size = size;
    batch->replies = g_new0(GVariant *, size ? size : 1);
    batch->errors = g_new0(GError *, size ? size : 1);
    return batch;
}

/// Fails slot `index` with G_IO_ERROR_INVALID_ARGUMENT, without a call, and consumes a floating `parameters`.
static void batch_refuse(TokenKeyringBatch *batch, guint index, const char *what, const char *value,
                         GVariant *parameters) {
    g_clear_error(&batch->errors[index]);
    g_set_error(&batch->errors[index], G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "“%s” is not a valid D-Bus %s",
                value, what);
    if (parameters) g_variant_unref(g_variant_ref_sink(parameters));
}

void tokenkeyring_batch_call(TokenKeyringBatch *batch, guint index, const char *path, const char *interface,
                             const char *method, GVariant *parameters, const char *reply_type) {
    g_return_if_fail(index < batch->size);
    // g_dbus_connection_call returns without calling back when an argument is invalid (g_return_if_fail), and
    // tokenkeyring_batch_wait would then wait for that reply for ever: fail the slot here instead.
    const char *what = NULL, *value = NULL;
    if (!g_variant_is_object_path(path)) what = "object path", value = path;
    else if (!g_dbus_is_interface_name(interface)) what = "interface name", value = interface;
    else if (!g_dbus_is_member_name(method)) what = "method name", value = method;
    else if (reply_type && !g_variant_type_string_is_valid(reply_type)) what = "reply type", value = reply_type;
    if (what) {
        batch_refuse(batch, index, what, value, parameters);
        return;
    }
    Slot *slot = g_new(Slot, 1);
    slot->batch = batch;
    slot->index = index;
    batch->pending++;
    g_main_context_push_thread_default(batch->context);
    g_dbus_connection_call(batch->connection, batch->destination, path, interface, method, parameters,
                           reply_type ? G_VARIANT_TYPE(reply_type) : NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                           batch->cancellable, batch_reply, slot);
    g_main_context_pop_thread_default(batch->context);
}

void tokenkeyring_batch_wait(TokenKeyringBatch *batch) {
    while (batch->pending > 0) g_main_context_iteration(batch->context, TRUE);
}

GVariant *tokenkeyring_batch_take(TokenKeyringBatch *batch, guint index, GError **error) {
    g_return_val_if_fail(index < batch->size, NULL);
    GVariant *reply = batch->replies[index];
    batch->replies[index] = NULL;
    if (reply == NULL && batch->errors[index] != NULL) {
        g_propagate_error(error, batch->errors[index]);
        batch->errors[index] = NULL;
    }
    return reply;
}

void tokenkeyring_batch_free(TokenKeyringBatch *batch) {
    tokenkeyring_batch_wait(batch);
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
