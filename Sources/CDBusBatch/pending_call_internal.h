#ifndef TOKENKEYRING_PENDING_CALL_INTERNAL_H
#define TOKENKEYRING_PENDING_CALL_INTERNAL_H

#include <gio/gio.h>

/// Called by the attribute cache's filter for every incoming reply, on the worker thread: runs the callback of the
/// call it answers, if that call was sent by `tokenkeyring_call_without_waiting`. TRUE when it did.
gboolean tokenkeyring_pending_deliver(GDBusMessage *reply);

#endif
