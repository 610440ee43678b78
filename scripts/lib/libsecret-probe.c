/* libsecret-probe: calls one libsecret API after another, the way a keyring backend would, and prints what each
 * returned (with the GError's domain, code and message), so that a run in the simulated Flatpak sandbox shows
 * which APIs work there and how they fail. Built against the bundled libsecret by ensure_libsecret_probe
 * (scripts/lib/flatpak-bundle.sh), that is:
 *
 *   gcc -o probe libsecret-probe.c $(pkg-config --cflags --libs libsecret-1)
 *   probe [--cancel-after MS] STEP [ARGS...] [, STEP [ARGS...]]...
 *
 * Steps (SCHEMA is "-" for none, NAME for a schema of that name declaring the given keys, NAME! for the same with
 * SECRET_SCHEMA_DONT_MATCH_NAME; ATTRS are key=value):
 *   backend                            secret_backend_get (SECRET_BACKEND_OPEN_SESSION), prints the type
 *   service                            secret_service_get_sync (OPEN_SESSION | LOAD_COLLECTIONS)
 *   store SCHEMA LABEL SECRET ATTRS    secret_password_storev_sync (into the collection PROBE_COLLECTION names)
 *   lookup SCHEMA ATTRS                secret_password_lookupv_sync
 *   lookup-binary SCHEMA ATTRS         secret_password_lookupv_binary_sync
 *   search SCHEMA ATTRS                secret_password_searchv_sync (ALL | UNLOCK | LOAD_SECRETS, or the number
 *                                      in PROBE_SEARCH_FLAGS), then secret_retrievable_retrieve_secret_sync on each
 *   clear SCHEMA ATTRS                 secret_password_clearv_sync
 *   disconnect                         secret_service_disconnect (): drops the cached backend too
 *   sleep MS
 *   bounded MS STEP [ARGS...]          STEP on a thread, given MS; if it is not done, left behind, and run once more
 * Prints one line per step: "STEP ok ...", "STEP none", or "STEP error DOMAIN CODE MESSAGE". Exits 0 when every
 * step succeeded (none counts), 2 when one failed. --cancel-after cancels every step's GCancellable after MS. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libsecret/secret.h>
/* secret.h leaves out the backend API (secret_backend_get, since 0.19); its header refuses a direct include. */
#define __SECRET_INSIDE_HEADER__
#include <libsecret/secret-backend.h>
#undef __SECRET_INSIDE_HEADER__
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static GCancellable *cancellable;
static int cancel_after_ms = -1;
static gboolean failed;

static gpointer cancel_later (gpointer data) {
	g_usleep ((gulong) cancel_after_ms * 1000);
	g_cancellable_cancel (G_CANCELLABLE (data));
	return NULL;
}

static void new_cancellable (void) {
	g_clear_object (&cancellable);
	cancellable = g_cancellable_new ();
	if (cancel_after_ms >= 0)
		g_thread_unref (g_thread_new ("cancel", cancel_later, g_object_ref (cancellable)));
}

static void report_error (const char *step, GError *error) {
	printf ("%s error %s %d %s\n", step, g_quark_to_string (error->domain), error->code, error->message);
	failed = TRUE;
	g_error_free (error);
}

/* SCHEMA argument to a SecretSchema (or NULL), declaring every key of ATTRIBUTES as a string. */
static SecretSchema *make_schema (const char *arg, GHashTable *attributes) {
	if (strcmp (arg, "-") == 0)
		return NULL;
	gboolean dont_match = g_str_has_suffix (arg, "!");
	g_autofree char *name = g_strndup (arg, strlen (arg) - (dont_match ? 1 : 0));
	GHashTable *types = g_hash_table_new (g_str_hash, g_str_equal);
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init (&iter, attributes);
	while (g_hash_table_iter_next (&iter, &key, NULL))
		g_hash_table_insert (types, key, GINT_TO_POINTER (SECRET_SCHEMA_ATTRIBUTE_STRING));
	SecretSchema *schema = secret_schema_newv (name, dont_match ? SECRET_SCHEMA_DONT_MATCH_NAME : SECRET_SCHEMA_NONE,
	                                           types);
	g_hash_table_unref (types);
	return schema;
}

static GHashTable *parse_attributes (char **args, int count) {
	GHashTable *attributes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
	for (int i = 0; i < count; i++) {
		const char *equals = strchr (args[i], '=');
		if (equals == NULL) {
			fprintf (stderr, "attribute without '=': %s\n", args[i]);
			exit (64);
		}
		g_hash_table_insert (attributes, g_strndup (args[i], equals - args[i]), g_strdup (equals + 1));
	}
	return attributes;
}

static char *format_attributes (GHashTable *attributes) {
	GString *out = g_string_new ("{");
	g_autoptr(GList) keys = g_list_sort (g_hash_table_get_keys (attributes), (GCompareFunc) strcmp);
	for (GList *l = keys; l; l = l->next)
		g_string_append_printf (out, "%s%s=%s", l == keys ? "" : ", ", (char *) l->data,
		                        (char *) g_hash_table_lookup (attributes, l->data));
	g_string_append (out, "}");
	return g_string_free (out, FALSE);
}

static void on_backend (G_GNUC_UNUSED GObject *source, GAsyncResult *result, gpointer data) {
	GError *error = NULL;
	SecretBackend *backend = secret_backend_get_finish (result, &error);
	if (backend) {
		printf ("backend ok %s%s\n", G_OBJECT_TYPE_NAME (backend),
		        SECRET_IS_SERVICE (backend) ? " (a SecretService)" : "");
		/* Not unreferenced: libsecret (0.20.5 to 0.21.7) caches this very reference as its process-wide
		 * backend without a reference of its own, so an unref leaves later calls with a freed object. */
		if (getenv ("PROBE_UNREF_BACKEND"))
			g_object_unref (backend);
	} else
		report_error ("backend", error);
	g_main_loop_quit (data);
}

static void step_search (SecretSchema *schema, GHashTable *attributes) {
	GError *error = NULL;
	const char *flags = getenv ("PROBE_SEARCH_FLAGS"); /* a number; 14 = ALL | UNLOCK | LOAD_SECRETS */
	GList *items = secret_password_searchv_sync (schema, attributes,
	                                             flags ? (SecretSearchFlags) atoi (flags)
	                                                   : SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS,
	                                             cancellable, &error);
	if (error) {
		report_error ("search", error);
		return;
	}
	printf ("search ok %u\n", g_list_length (items));
	for (GList *l = items; l; l = l->next) {
		SecretRetrievable *item = l->data;
		g_autoptr(GHashTable) attrs = secret_retrievable_get_attributes (item);
		g_autofree char *label = secret_retrievable_get_label (item);
		g_autofree char *formatted = format_attributes (attrs);
		printf ("  item %s label=%s created=%" G_GUINT64_FORMAT " modified=%" G_GUINT64_FORMAT " attributes=%s\n",
		        G_OBJECT_TYPE_NAME (item), label ? label : "(null)", secret_retrievable_get_created (item),
		        secret_retrievable_get_modified (item), formatted);
		SecretValue *value = secret_retrievable_retrieve_secret_sync (item, cancellable, &error);
		if (value) {
			printf ("  retrieve ok %s (%s)\n", secret_value_get_text (value), secret_value_get_content_type (value));
			secret_value_unref (value);
		} else if (error)
			report_error ("  retrieve", error);
		else
			printf ("  retrieve none\n");
	}
	g_list_free_full (items, g_object_unref);
}

/* Runs the step at args[0] with its arguments up to count; returns nothing, prints its line(s). */
static void run_step (char **args, int count) {
	const char *step = args[0];
	GError *error = NULL;
	new_cancellable ();
	if (strcmp (step, "sleep") == 0 && count == 2) {
		g_usleep ((gulong) atoi (args[1]) * 1000);
		printf ("sleep ok\n");
	} else if (strcmp (step, "backend") == 0) {
		GMainContext *context = g_main_context_new ();
		GMainLoop *loop = g_main_loop_new (context, FALSE);
		g_main_context_push_thread_default (context);
		secret_backend_get (SECRET_BACKEND_OPEN_SESSION, cancellable, on_backend, loop);
		g_main_loop_run (loop);
		g_main_context_pop_thread_default (context);
		g_main_loop_unref (loop);
		g_main_context_unref (context);
	} else if (strcmp (step, "disconnect") == 0) {
		secret_service_disconnect ();
		printf ("disconnect ok\n");
	} else if (strcmp (step, "service") == 0) {
		SecretService *service = secret_service_get_sync (SECRET_SERVICE_OPEN_SESSION | SECRET_SERVICE_LOAD_COLLECTIONS,
		                                                  cancellable, &error);
		if (service) {
			printf ("service ok %s\n", G_OBJECT_TYPE_NAME (service));
			g_object_unref (service);
		} else
			report_error (step, error);
	} else if (count >= 2) {
		int first = strcmp (step, "store") == 0 ? 4 : 2;
		if (count < first) {
			fprintf (stderr, "%s: too few arguments\n", step);
			exit (64);
		}
		g_autoptr(GHashTable) attributes = parse_attributes (args + first, count - first);
		SecretSchema *schema = make_schema (args[1], attributes);
		if (strcmp (step, "store") == 0) {
			if (secret_password_storev_sync (schema, attributes, getenv ("PROBE_COLLECTION"), args[2], args[3],
			                                 cancellable, &error))
				printf ("store ok\n");
			else
				report_error (step, error);
		} else if (strcmp (step, "lookup") == 0) {
			g_autofree char *secret = secret_password_lookupv_sync (schema, attributes, cancellable, &error);
			if (error)
				report_error (step, error);
			else if (secret)
				printf ("lookup ok %s\n", secret);
			else
				printf ("lookup none\n");
		} else if (strcmp (step, "lookup-binary") == 0) {
			SecretValue *value = secret_password_lookupv_binary_sync (schema, attributes, cancellable, &error);
			if (error)
				report_error (step, error);
			else if (value) {
				gsize length;
				const char *bytes = secret_value_get (value, &length);
				printf ("lookup-binary ok %.*s (%s, %zu bytes)\n", (int) length, bytes,
				        secret_value_get_content_type (value), length);
				secret_value_unref (value);
			} else
				printf ("lookup-binary none\n");
		} else if (strcmp (step, "search") == 0) {
			step_search (schema, attributes);
		} else if (strcmp (step, "clear") == 0) {
			gboolean removed = secret_password_clearv_sync (schema, attributes, cancellable, &error);
			if (error)
				report_error (step, error);
			else
				printf ("clear %s\n", removed ? "ok" : "none");
		} else {
			fprintf (stderr, "unknown step %s\n", step);
			exit (64);
		}
		if (schema)
			secret_schema_unref (schema);
	} else {
		fprintf (stderr, "unknown step or missing arguments: %s\n", step);
		exit (64);
	}
	fflush (stdout);
}

/* "bounded MS STEP ARGS": STEP on a thread of its own, given MS milliseconds; when it is not done by then, the
 * thread is left behind (never cancelled: a portal wait does not end on cancellation, and 0.20.5 deadlocks on it)
 * and STEP runs once more on a new thread, as a keyring backend with a timeout and one retry would do. */
typedef struct { char **args; int count; gboolean done; } Bounded;
static GMutex bounded_lock;
static GCond bounded_cond;

static gpointer run_bounded (gpointer data) {
	Bounded *bounded = data;
	run_step (bounded->args, bounded->count);
	g_mutex_lock (&bounded_lock);
	bounded->done = TRUE;
	g_cond_broadcast (&bounded_cond);
	g_mutex_unlock (&bounded_lock);
	return NULL;
}

static void run_bounded_step (char **args, int count) {
	int ms = atoi (args[1]);
	for (int attempt = 1; attempt <= 2; attempt++) {
		Bounded *bounded = g_new0 (Bounded, 1); /* leaked with a thread left behind */
		bounded->args = args + 2;
		bounded->count = count - 2;
		g_thread_unref (g_thread_new ("bounded", run_bounded, bounded));
		gint64 deadline = g_get_monotonic_time () + (gint64) ms * 1000;
		g_mutex_lock (&bounded_lock);
		while (!bounded->done && g_cond_wait_until (&bounded_cond, &bounded_lock, deadline))
			;
		gboolean done = bounded->done;
		g_mutex_unlock (&bounded_lock);
		if (done)
			return;
		printf ("bounded timed out after %d ms (attempt %d)\n", ms, attempt);
	}
	failed = TRUE;
}

int main (int argc, char **argv) {
	int i = 1;
	if (argc > 2 && strcmp (argv[1], "--cancel-after") == 0) {
		cancel_after_ms = atoi (argv[2]);
		i = 3;
	}
	setvbuf (stdout, NULL, _IOLBF, 0);
	Dl_info info;
	if (dladdr ((void *) secret_password_lookupv_sync, &info) && info.dli_fname)
		printf ("# libsecret: %s\n", info.dli_fname);
	while (i < argc) {
		int end = i;
		while (end < argc && strcmp (argv[end], ",") != 0)
			end++;
		if (end - i > 2 && strcmp (argv[i], "bounded") == 0)
			run_bounded_step (argv + i, end - i);
		else if (end > i)
			run_step (argv + i, end - i);
		i = end + 1;
	}
	g_clear_object (&cancellable);
	return failed ? 2 : 0;
}
