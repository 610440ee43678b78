#ifndef TOKENKEYRING_ATTRIBUTE_CACHE_H
#define TOKENKEYRING_ATTRIBUTE_CACHE_H

#include <gio/gio.h>

#pragma clang assume_nonnull begin

/// The attributes of Secret Service items read earlier in this process, kept only while the service has announced
/// no change to them, so that a lookup does not have to ask for them again.
///
/// One cache per process, for the connection given to `tokenkeyring_attribute_cache_generation`. On first use it
/// asks the bus for the service's signals (two `AddMatch` calls) and which process owns the service
/// (`GetConnectionUnixProcessID`), all sent without waiting, and watches every incoming message on the connection's
/// worker thread, in the order the bus delivered them:
///
/// - `PropertiesChanged` on an item, or `ItemChanged` / `ItemDeleted` naming one, forgets that item;
/// - `CollectionChanged` (a collection locked, unlocked or renamed) and a prompt's `Completed` forget nothing;
/// - any other signal of a Secret Service interface (a collection created or deleted), and a new owner of
///   `org.freedesktop.secrets`, forget all.
///
/// Every such signal also moves the generation on. Attributes read by a call sent at generation G are kept only
/// when no change to that item (or to all) was announced after G by the time they arrive, so an answer can never
/// outlive a change announced before it was stored. Nothing is kept until the bus has confirmed both match rules: before that, changes could go unseen.
/// All functions are thread-safe.

/// What a Secret Service signal announced, as told to the change listener.
typedef enum {
    /// Any item may have changed: a new owner of `org.freedesktop.secrets`, a collection created or deleted (any
    /// other signal of a Secret Service interface the cache forgets everything on), a malformed signal, or the
    /// cache moving to another connection (changes in between went unseen).
    TOKENKEYRING_CHANGE_ANYTHING = 0,
    /// `ItemCreated`.
    TOKENKEYRING_CHANGE_CREATED = 1,
    /// `ItemChanged`, or `PropertiesChanged` of an item (`org.freedesktop.Secret.Item`).
    TOKENKEYRING_CHANGE_CHANGED = 2,
    /// `ItemDeleted`.
    TOKENKEYRING_CHANGE_DELETED = 3,
} TokenkeyringChangeKind;

/// Told of every change the cache forgets on, but for the properties of objects other than items (a collection's
/// `Locked`): the item's object path (valid during the call only), or NULL with `TOKENKEYRING_CHANGE_ANYTHING`. Signals are told on the connection's worker thread, in the order the bus
/// delivered them, whatever the owner (the cache remembers only some owners' items; every owner's signals are told).
/// Never called with the cache's lock held; it must not block, since every message of the connection waits for it.
typedef void (*TokenkeyringChangeListener)(TokenkeyringChangeKind kind, const char *_Nullable path);

/// Sets the process's one change listener (NULL: none).
void tokenkeyring_attribute_cache_set_listener(TokenkeyringChangeListener _Nullable listener);

/// Whether the cache watches `connection` and the bus has confirmed both match rules: from then on, the service's
/// signals reach the cache (and the listener). A reply from the bus to any later call on `connection` comes after
/// the rules' replies, so after one round trip to the bus this is settled: FALSE then means they were refused.
gboolean tokenkeyring_attribute_cache_rules_confirmed(GDBusConnection *connection);

/// The cache's generation now, for `connection` (the cache starts watching it, and forgets everything when it
/// belongs to another connection). `*watching` is FALSE until the bus has confirmed the match rules; then
/// `tokenkeyring_attribute_cache_remember` keeps nothing.
guint64 tokenkeyring_attribute_cache_generation(GDBusConnection *connection, gboolean *watching);

/// The remembered attributes (`a{ss}`, a new reference the caller unrefs) of the item at `path`, or NULL.
GVariant *_Nullable tokenkeyring_attribute_cache_recall(const char *path);

/// Remembers `attributes` (`a{ss}`, not floating; the cache takes a reference of its own) of the item at `path`,
/// read by a call sent at `generation`; does nothing when a change to that item was announced since, or while the
/// match rules are not confirmed.
void tokenkeyring_attribute_cache_remember(const char *path, GVariant *attributes, guint64 generation);

/// How many recalls found the attributes of the item at `path` (for tests; forgotten after a thousand items).
guint64 tokenkeyring_attribute_cache_hits(const char *path);

/// Whether the cache is watching and the service's owner is the process named `command` (`/proc/PID/comm`, such as
/// `gnome-keyring-d`).
gboolean tokenkeyring_attribute_cache_owner_is(const char *command);

#pragma clang assume_nonnull end

#endif
