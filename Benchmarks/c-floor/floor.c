/*
 * The libsecret floor for scripts/bench: stores and looks up one item N times with libsecret's simplest calls
 * and prints each call's latency as JSON. Nothing else happens per call, so this is what one process pays for
 * the D-Bus round trips themselves.
 *
 *   floor SERVICE ACCOUNT ITERATIONS < secret
 *   {"save_ns":[...],"load_ns":[...]}
 *
 *   floor --lookup SERVICE ACCOUNT
 *
 * The second form is figure 6's floor for a whole process: it connects, opens a session, looks the item up once with
 * secret_password_lookupv_sync and prints its secret as `secret-tool lookup` does (no newline), then exits.
 *
 * The item's attributes are exactly `service` and `account` (no schema), like TokenKeyring's items.
 * Exit status 1 when any call fails, with libsecret's message on stderr.
 */
#include <libsecret/secret.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char *read_stdin(void) {
    size_t capacity = 4096, length = 0;
    char *buffer = malloc(capacity);
    size_t got;
    while (buffer && (got = fread(buffer + length, 1, capacity - length - 1, stdin)) > 0) {
        length += got;
        if (length + 1 == capacity) {
            capacity *= 2;
            buffer = realloc(buffer, capacity);
        }
    }
    if (buffer) buffer[length] = '\0';
    return buffer;
}

static void print_array(const char *name, const long long *values, int count) {
    printf("\"%s\":[", name);
    for (int i = 0; i < count; i++) printf("%s%lld", i ? "," : "", values[i]);
    printf("]");
}

/* One lookup in a new process: the least any program that reads an item through libsecret does. */
static int lookup_once(const char *service, const char *account) {
    GHashTable *attributes = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(attributes, "service", (char *)service);
    g_hash_table_insert(attributes, "account", (char *)account);
    GError *error = NULL;
    gchar *found = secret_password_lookupv_sync(NULL, attributes, NULL, &error);
    g_hash_table_unref(attributes);
    if (error) {
        fprintf(stderr, "floor: %s\n", error->message);
        g_error_free(error);
        return 1;
    }
    if (!found) return 1;
    fputs(found, stdout);
    secret_password_free(found);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--lookup") == 0) return lookup_once(argv[2], argv[3]);
    if (argc != 4) {
        fprintf(stderr, "usage: floor SERVICE ACCOUNT ITERATIONS < secret\n       floor --lookup SERVICE ACCOUNT\n");
        return 64;
    }
    int iterations = atoi(argv[3]);
    if (iterations <= 0) {
        fprintf(stderr, "ITERATIONS must be a positive number\n");
        return 64;
    }
    char *secret = read_stdin();
    if (!secret) return 1;

    GHashTable *attributes = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(attributes, "service", argv[1]);
    g_hash_table_insert(attributes, "account", argv[2]);

    long long *save_ns = calloc(iterations, sizeof *save_ns);
    long long *load_ns = calloc(iterations, sizeof *load_ns);
    GError *error = NULL;

    /* Connect (and open the session) once, outside the timings, as every long-running client does. */
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, &error);
    if (!service) goto failed;
    /* One store outside the timings too, so the first timed one replaces an item like all the others. */
    if (!secret_password_storev_sync(NULL, attributes, SECRET_COLLECTION_DEFAULT, "tokenkeyring-bench floor", secret,
                                     NULL, &error))
        goto failed;

    for (int i = 0; i < iterations; i++) {
        long long start = now_ns();
        if (!secret_password_storev_sync(NULL, attributes, SECRET_COLLECTION_DEFAULT, "tokenkeyring-bench floor",
                                         secret, NULL, &error))
            goto failed;
        save_ns[i] = now_ns() - start;
    }
    for (int i = 0; i < iterations; i++) {
        long long start = now_ns();
        gchar *found = secret_password_lookupv_sync(NULL, attributes, NULL, &error);
        load_ns[i] = now_ns() - start;
        if (error) goto failed;
        if (!found || strcmp(found, secret) != 0) {
            fprintf(stderr, "floor: the secret read back differs from the one stored\n");
            return 1;
        }
        secret_password_free(found);
    }

    printf("{");
    print_array("save_ns", save_ns, iterations);
    printf(",");
    print_array("load_ns", load_ns, iterations);
    printf("}\n");
    g_object_unref(service);
    g_hash_table_unref(attributes);
    free(save_ns);
    free(load_ns);
    free(secret);
    return 0;

failed:
    fprintf(stderr, "floor: %s\n", error ? error->message : "libsecret failed");
    return 1;
}
