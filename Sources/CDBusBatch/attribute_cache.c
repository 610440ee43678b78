#include "attribute_cache.h"

#include "pending_call_internal.h"

#include <stdio.h>
#include <string.h>

/// More remembered items than any app keeps is a sign of churn: the cache then starts over.
#define MAXIMUM_ENTRIES 256

static const char *const service_rule = "type='signal',sender='org.freedesktop.secrets'";
static const char *const owner_rule = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                                      "member='NameOwnerChanged',arg0='org.freedesktop.secrets'";

/// The one cache of the process. Every member is guarded by `lock`; the filter runs on GDBus's worker thread.
static struct {
    GMutex lock;
    GDBusConnection *connection;
    guint filter;
    guint32 rule_serials[2];
    gboolean rule_confirmed[2];
    gboolean rule_refused;
    guint32 owner_serial;
    gboolean announcing_owner;  // the service's owner is a provider known to announce every change
    char owner_command[16];     // its /proc/PID/comm, or empty
    guint64 generation;
    guint64 everything_changed;  // the generation of the last change that concerned every item
    GHashTable *changed;  // path → the generation of its last change (GUINT_TO_POINTER-sized on 64-bit)
    GHashTable *entries;  // path → GVariant a{ss}
    GHashTable *hits;     // path → how many recalls found it (for tests)
    TokenkeyringChangeListener listener;
} cache;

/// A change to hand to the listener once the lock is released (the listener takes locks of its own).
typedef struct {
    gboolean due;
    TokenkeyringChangeKind kind;
    const char *_Nullable path;  // borrowed from the message, or NULL for "anything"
} Announcement;

static const Announcement no_announcement = {FALSE, TOKENKEYRING_CHANGE_ANYTHING, NULL};

static gboolean watching_locked(void) {
    return cache.connection != NULL && !cache.rule_refused && cache.rule_confirmed[0] && cache.rule_confirmed[1] &&
           cache.announcing_owner;
}

/// Whether the process `pid` is a provider seen to announce every change of an item's attributes: gnome-keyring
/// (`PropertiesChanged` and `ItemChanged`) and KeePassXC (`ItemChanged`). kwalletd5 (KF 5.103) changes attributes
/// on `Set` without a signal, so its items, and those of any provider not on this list, are never remembered.
static gboolean announces_changes(guint32 pid) {
    char path[64], command[32] = {0};
    cache.owner_command[0] = '\0';
    g_snprintf(path, sizeof path, "/proc/%u/comm", pid);
    FILE *file = fopen(path, "r");
    if (file == NULL) return FALSE;  // another PID namespace (a sandbox): unknown
    gboolean known = FALSE;
    if (fgets(command, sizeof command, file)) {
        command[strcspn(command, "\n")] = '\0';
        known = strcmp(command, "gnome-keyring-d") == 0 || strcmp(command, "keepassxc") == 0;
        g_strlcpy(cache.owner_command, command, sizeof cache.owner_command);
    }
    fclose(file);
    return known;
}

static void forget_locked(const char *_Nullable path) {
    cache.generation++;
    if (cache.changed == NULL) cache.changed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (path && g_hash_table_size(cache.changed) < 4 * MAXIMUM_ENTRIES) {
        g_hash_table_replace(cache.changed, g_strdup(path), GSIZE_TO_POINTER(cache.generation));
    } else {
        // Everything, or too many paths to keep apart: every answer read before now counts as changed.
        cache.everything_changed = cache.generation;
        g_hash_table_remove_all(cache.changed);
    }
    if (cache.entries == NULL) return;
    if (path)
        g_hash_table_remove(cache.entries, path);
    else
        g_hash_table_remove_all(cache.entries);
}

/// A change of `kind` to the item at `path`, or of anything when there is no path.
static Announcement change(TokenkeyringChangeKind kind, const char *_Nullable path) {
    return (Announcement){TRUE, path ? kind : TOKENKEYRING_CHANGE_ANYTHING, path};
}

/// Calls `listener` (read under the lock) with `announcement`, if one is due. Called without the lock.
static void announce(TokenkeyringChangeListener _Nullable listener, Announcement announcement) {
    if (announcement.due && listener) listener(announcement.kind, announcement.path);
}

/// Whether the item at `path` is announced to have changed after `generation`.
static gboolean changed_since_locked(const char *path, guint64 generation) {
    if (cache.everything_changed > generation) return TRUE;
    return cache.changed && GPOINTER_TO_SIZE(g_hash_table_lookup(cache.changed, path)) > generation;
}

/// The item path a Secret Service collection signal names (its only argument), or NULL.
static const char *_Nullable item_argument(GDBusMessage *message) {
    GVariant *body = g_dbus_message_get_body(message);
    if (body == NULL || !g_variant_is_of_type(body, G_VARIANT_TYPE("(o)"))) return NULL;
    const char *path = NULL;
    g_variant_get(body, "(&o)", &path);
    return path;
}

/// Whether a `NameOwnerChanged` signal is about `org.freedesktop.secrets` (an app may watch other names).
static gboolean names_service(GDBusMessage *message) {
    GVariant *body = g_dbus_message_get_body(message);
    if (body == NULL || !g_variant_is_of_type(body, G_VARIANT_TYPE("(sss)"))) return TRUE;  // malformed: assume so
    const char *name = NULL;
    g_variant_get_child(body, 0, "&s", &name);
    return name && strcmp(name, "org.freedesktop.secrets") == 0;
}

/// Whether a `PropertiesChanged` signal is about the properties of a Secret Service item (a malformed one: assume so).
static gboolean names_item_interface(GDBusMessage *message) {
    GVariant *body = g_dbus_message_get_body(message);
    if (body == NULL || !g_variant_is_of_type(body, G_VARIANT_TYPE("(sa{sv}as)"))) return TRUE;
    const char *interface = NULL;
    g_variant_get_child(body, 0, "&s", &interface);
    return interface && strcmp(interface, "org.freedesktop.Secret.Item") == 0;
}

static GDBusMessage *_Nullable watch_message(GDBusConnection *connection, GDBusMessage *message, gboolean incoming,
                                             gpointer data) {
    (void)connection;
    (void)data;
    if (!incoming) return message;
    GDBusMessageType type = g_dbus_message_get_message_type(message);
    // The signals the cache forgets on are announced as they are, whether or not the owner is one whose items the
    // cache remembers: a subscriber is told what the bus said, and the cache's own rules are unchanged.
    Announcement announcement = no_announcement;
    g_mutex_lock(&cache.lock);
    if (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR) {
        guint32 serial = g_dbus_message_get_reply_serial(message);
        if (serial != 0 && serial == cache.owner_serial && type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN) {
            GVariant *body = g_dbus_message_get_body(message);
            guint32 pid = 0;
            if (body && g_variant_is_of_type(body, G_VARIANT_TYPE("(u)"))) g_variant_get(body, "(u)", &pid);
            cache.announcing_owner = pid != 0 && announces_changes(pid);
        }
        for (int rule = 0; rule < 2; rule++) {
            if (serial != 0 && serial == cache.rule_serials[rule]) {
                if (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
                    cache.rule_confirmed[rule] = TRUE;
                else
                    cache.rule_refused = TRUE;
            }
        }
    } else if (type == G_DBUS_MESSAGE_TYPE_SIGNAL) {
        const char *interface = g_dbus_message_get_interface(message);
        const char *member = g_dbus_message_get_member(message);
        const char *path = g_dbus_message_get_path(message);
        if (interface && member) {
            if (strcmp(interface, "org.freedesktop.DBus.Properties") == 0) {
                // Other processes' signals reach us only through match rules; a foreign one just costs a lookup.
                forget_locked(path);
                // Announced for an item only: a collection's own properties (Locked, Label) change no item.
                if (names_item_interface(message)) announcement = change(TOKENKEYRING_CHANGE_CHANGED, path);
            } else if (strcmp(interface, "org.freedesktop.Secret.Collection") == 0 &&
                       (strcmp(member, "ItemChanged") == 0 || strcmp(member, "ItemDeleted") == 0 ||
                        strcmp(member, "ItemCreated") == 0)) {
                const char *item = item_argument(message);
                TokenkeyringChangeKind kind = strcmp(member, "ItemCreated") == 0   ? TOKENKEYRING_CHANGE_CREATED
                                              : strcmp(member, "ItemDeleted") == 0 ? TOKENKEYRING_CHANGE_DELETED
                                                                                   : TOKENKEYRING_CHANGE_CHANGED;
                forget_locked(item);  // NULL: a malformed signal forgets everything
                announcement = change(kind, item);
            } else if (strcmp(interface, "org.freedesktop.DBus") == 0 && strcmp(member, "NameOwnerChanged") == 0 &&
                       names_service(message)) {
                // Another provider may own the name now; which one is not asked again: nothing more is kept.
                cache.announcing_owner = FALSE;
                cache.owner_command[0] = '\0';
                forget_locked(NULL);
                announcement = change(TOKENKEYRING_CHANGE_ANYTHING, NULL);
            } else if ((strcmp(interface, "org.freedesktop.Secret.Service") == 0 &&
                        strcmp(member, "CollectionChanged") == 0) ||
                       strcmp(interface, "org.freedesktop.Secret.Prompt") == 0) {
                // A collection locked, unlocked or renamed, or a prompt done: no item's attributes changed (an item
                // a prompt creates or changes has signals of its own).
            } else if (g_str_has_prefix(interface, "org.freedesktop.Secret.")) {
                forget_locked(NULL);
                announcement = change(TOKENKEYRING_CHANGE_ANYTHING, NULL);
            }
        }
    }
    TokenkeyringChangeListener listener = cache.listener;
    g_mutex_unlock(&cache.lock);
    // `message`, which holds the announced path, lives until this filter returns.
    announce(listener, announcement);
    // After the cache has seen it, like every message before it.
    if (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR) tokenkeyring_pending_deliver(message);
    return message;
}

/// Sends AddMatch for `rule` without waiting; the reply is recognised by the filter. Called with the lock held, so
/// the filter cannot see the reply before its serial is recorded.
static guint32 ask_bus_locked(const char *method, GVariant *parameters) {
    GDBusMessage *call = g_dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                        "org.freedesktop.DBus", method);
    g_dbus_message_set_body(call, parameters);
    guint32 serial = 0;
    if (!g_dbus_connection_send_message(cache.connection, call, G_DBUS_SEND_MESSAGE_FLAGS_NONE, &serial, NULL))
        serial = 0;
    g_object_unref(call);
    return serial;
}

static void add_match_locked(int index, const char *rule) {
    cache.rule_serials[index] = ask_bus_locked("AddMatch", g_variant_new("(s)", rule));
    if (cache.rule_serials[index] == 0) cache.rule_refused = TRUE;
}

guint64 tokenkeyring_attribute_cache_generation(GDBusConnection *connection, gboolean *watching) {
    g_mutex_lock(&cache.lock);
    if (cache.connection != connection) {
        GDBusConnection *previous = cache.connection;
        guint previous_filter = cache.filter;
        forget_locked(NULL);
        // Changes made while no connection was watched went unseen; there are none to miss before the first one.
        Announcement announcement = no_announcement;
        if (previous) announcement = change(TOKENKEYRING_CHANGE_ANYTHING, NULL);
        TokenkeyringChangeListener listener = cache.listener;
        if (cache.entries == NULL)
            cache.entries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_variant_unref);
        cache.connection = g_object_ref(connection);
        cache.rule_confirmed[0] = cache.rule_confirmed[1] = FALSE;
        cache.rule_refused = FALSE;
        cache.announcing_owner = FALSE;
        cache.owner_command[0] = '\0';
        cache.filter = g_dbus_connection_add_filter(connection, watch_message, NULL, NULL);
        add_match_locked(0, service_rule);
        add_match_locked(1, owner_rule);
        // After the rules: an owner that changes after this answer is seen by them.
        cache.owner_serial = ask_bus_locked("GetConnectionUnixProcessID", g_variant_new("(s)", "org.freedesktop.secrets"));
        g_mutex_unlock(&cache.lock);
        announce(listener, announcement);
        if (previous) {
            // Outside the lock, as GDBus asks of filter changes. Removing the filter does not wait for a call of it
            // that is running on the old connection's worker thread; that call only takes the lock and reads the
            // shared state, which stays valid.
            g_dbus_connection_remove_filter(previous, previous_filter);
            g_object_unref(previous);
        }
        g_mutex_lock(&cache.lock);
    }
    *watching = watching_locked();
    guint64 generation = cache.generation;
    g_mutex_unlock(&cache.lock);
    return generation;
}

GVariant *tokenkeyring_attribute_cache_recall(const char *path) {
    g_mutex_lock(&cache.lock);
    GVariant *attributes = cache.entries ? g_hash_table_lookup(cache.entries, path) : NULL;
    if (attributes) {
        g_variant_ref(attributes);
        if (cache.hits == NULL) cache.hits = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        if (g_hash_table_size(cache.hits) >= 4 * MAXIMUM_ENTRIES) g_hash_table_remove_all(cache.hits);
        guint64 count = GPOINTER_TO_SIZE(g_hash_table_lookup(cache.hits, path)) + 1;
        g_hash_table_replace(cache.hits, g_strdup(path), GSIZE_TO_POINTER(count));
    }
    g_mutex_unlock(&cache.lock);
    return attributes;
}

void tokenkeyring_attribute_cache_remember(const char *path, GVariant *attributes, guint64 generation) {
    if (!g_variant_is_of_type(attributes, G_VARIANT_TYPE("a{ss}"))) return;
    g_mutex_lock(&cache.lock);
    if (watching_locked() && !changed_since_locked(path, generation) && cache.entries) {
        if (g_hash_table_size(cache.entries) >= MAXIMUM_ENTRIES) g_hash_table_remove_all(cache.entries);
        g_hash_table_replace(cache.entries, g_strdup(path), g_variant_ref(attributes));
    }
    g_mutex_unlock(&cache.lock);
}

guint64 tokenkeyring_attribute_cache_hits(const char *path) {
    g_mutex_lock(&cache.lock);
    guint64 count = cache.hits ? GPOINTER_TO_SIZE(g_hash_table_lookup(cache.hits, path)) : 0;
    g_mutex_unlock(&cache.lock);
    return count;
}

gboolean tokenkeyring_attribute_cache_owner_is(const char *command) {
    g_mutex_lock(&cache.lock);
    gboolean is = watching_locked() && strcmp(cache.owner_command, command) == 0;
    g_mutex_unlock(&cache.lock);
    return is;
}

void tokenkeyring_attribute_cache_set_listener(TokenkeyringChangeListener _Nullable listener) {
    g_mutex_lock(&cache.lock);
    cache.listener = listener;
    g_mutex_unlock(&cache.lock);
}

gboolean tokenkeyring_attribute_cache_rules_confirmed(GDBusConnection *connection) {
    g_mutex_lock(&cache.lock);
    gboolean confirmed = cache.connection == connection && !cache.rule_refused && cache.rule_confirmed[0] &&
                         cache.rule_confirmed[1];
    g_mutex_unlock(&cache.lock);
    return confirmed;
}
