#ifndef TOKENKEYRING_DBUS_BATCH_H
#define TOKENKEYRING_DBUS_BATCH_H

#include <gio/gio.h>

#pragma clang assume_nonnull begin

/// Method calls to one D-Bus peer, sent together and awaited together: their round trips overlap, so a batch
/// costs about one.
///
/// Use: `tokenkeyring_batch_new`, one `tokenkeyring_batch_call` per slot, `tokenkeyring_batch_wait`, then
/// `tokenkeyring_batch_take` for each slot, and `tokenkeyring_batch_free`. Replies are delivered on the batch's
/// own main context, so waiting never runs anybody else's callbacks. A call is bounded by `cancellable`
/// (and GDBus's default timeout). A batch belongs to one thread.
typedef struct TokenKeyringBatch TokenKeyringBatch;

/// A batch of `size` slots for calls to `destination` (a bus name) on `connection`.
TokenKeyringBatch *tokenkeyring_batch_new(GDBusConnection *connection, const char *destination, guint size,
                                          GCancellable *_Nullable cancellable);

/// Sends one method call into slot `index` without waiting. Consumes a floating `parameters`. An invalid object
/// path, interface or method name or reply type sends nothing: the slot fails with G_IO_ERROR_INVALID_ARGUMENT.
/// `reply_type` is a GVariant type string such as "(a{sv})", or NULL to accept any reply.
void tokenkeyring_batch_call(TokenKeyringBatch *batch, guint index, const char *path, const char *interface,
                             const char *method, GVariant *_Nullable parameters, const char *_Nullable reply_type);

/// Blocks until every call sent so far has its reply or error.
void tokenkeyring_batch_wait(TokenKeyringBatch *batch);

/// The reply in slot `index` (the caller unrefs it), or NULL with `error` set; NULL without an error for a slot
/// that had no call. Only after `tokenkeyring_batch_wait`.
GVariant *_Nullable tokenkeyring_batch_take(TokenKeyringBatch *batch, guint index, GError *_Nullable *_Nullable error);

/// Waits for outstanding calls (their callbacks point into the batch), then frees it and every untaken reply.
void tokenkeyring_batch_free(TokenKeyringBatch *batch);

#pragma clang assume_nonnull end

#endif
