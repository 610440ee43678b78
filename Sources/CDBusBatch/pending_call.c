#include "pending_call.h"

#include "attribute_cache.h"
#include "pending_call_internal.h"

typedef struct {
    TokenKeyringReplyCallback callback;
    void *context;
} Pending;

static GMutex lock;
static GHashTable *pending;  // serial → Pending*

guint32 tokenkeyring_call_without_waiting(GDBusConnection *connection, GDBusMessage *message,
                                          TokenKeyringReplyCallback callback, void *context) {
    gboolean watching;
    (void)tokenkeyring_attribute_cache_generation(connection, &watching);  // the filter that delivers replies
    Pending *call = g_new(Pending, 1);
    call->callback = callback;
    call->context = context;
    guint32 serial = 0;
    // Under the lock, so that the reply cannot be delivered before its serial is recorded.
    g_mutex_lock(&lock);
    if (pending == NULL) pending = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    if (g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, &serial, NULL) &&
        serial != 0) {
        g_hash_table_insert(pending, GUINT_TO_POINTER(serial), call);
    } else {
        serial = 0;
        g_free(call);
    }
    g_mutex_unlock(&lock);
    return serial;
}

gboolean tokenkeyring_call_abandon(guint32 serial) {
    g_mutex_lock(&lock);
    gboolean removed = pending != NULL && g_hash_table_remove(pending, GUINT_TO_POINTER(serial));
    g_mutex_unlock(&lock);
    return removed;
}

gboolean tokenkeyring_pending_deliver(GDBusMessage *reply) {
    guint32 serial = g_dbus_message_get_reply_serial(reply);
    if (serial == 0) return FALSE;
    g_mutex_lock(&lock);
    Pending *call = NULL;
    if (pending != NULL && g_hash_table_steal_extended(pending, GUINT_TO_POINTER(serial), NULL, (gpointer *)&call)) {
    }
    g_mutex_unlock(&lock);
    if (call == NULL) return FALSE;
    call->callback(g_object_ref(reply), call->context);
    g_free(call);
    return TRUE;
}
