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

void tokenkeyring_batch_call(TokenKeyringBatch *batch, guint index, const char *path, const char *interface,
                             const char *method, GVariant *parameters, const char *reply_type) {
    g_return_if_fail(index < batch->size);
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
