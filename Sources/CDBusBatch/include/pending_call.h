#ifndef TOKENKEYRING_PENDING_CALL_H
#define TOKENKEYRING_PENDING_CALL_H

#include <gio/gio.h>

#pragma clang assume_nonnull begin

/// Receives the reply to a call sent with `tokenkeyring_call_without_waiting`: a new reference the callback
/// releases, or NULL when the call could not be sent. Runs on GDBus's worker thread: it must not block.
typedef void (*TokenKeyringReplyCallback)(GDBusMessage *_Nullable reply, void *_Nullable context);

/// Sends the method call `message` on `connection` without waiting and without a main context: the reply (or error
/// reply) goes to `callback` on the connection's worker thread as it arrives, after the attribute cache
/// (`attribute_cache.h`) has seen every message before it. Returns the call's serial, or 0 when it could not be
/// sent (the callback then never runs). Only on the connection the attribute cache watches.
guint32 tokenkeyring_call_without_waiting(GDBusConnection *connection, GDBusMessage *message,
                                          TokenKeyringReplyCallback callback, void *_Nullable context);

/// Gives up waiting for the call `serial`: TRUE when its callback had not been taken yet and now never runs (the
/// caller then owns `context` again), FALSE when it has run or is running.
gboolean tokenkeyring_call_abandon(guint32 serial);

#pragma clang assume_nonnull end

#endif
