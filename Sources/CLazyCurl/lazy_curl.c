/*
 * libcurl, loaded on first use: the curl_ functions FoundationNetworking's URLSession calls, each of which loads
 * libcurl.so.4 with dlopen the first time one is called and then forwards to it.
 *
 * Why: linked the usual way, libcurl and its ~35 libraries (TLS, Kerberos, LDAP, SSH, IDN, …) are loaded and
 * relocated before main in every tokenctl run, about 7 ms of CPU, although `tokenctl token` over a valid token sends
 * no HTTP request. With the Swift runtime and Foundation linked statically (`swift build --static-swift-stdlib`),
 * these definitions are the only ones of these names, so libcurl loads when the first URLSession is made. In a
 * dynamically linked build, libFoundationNetworking.so loads libcurl itself and these definitions forward to it.
 *
 * Only the functions FoundationNetworking calls are here (`nm -u lib_CFURLSessionInterface.a`; scripts/build-tokenctl
 * compares that list with this file's before it builds); the types are spelled as their ABI is, since libcurl's
 * headers are not needed to build. If libcurl cannot be loaded, or lacks one of them, the process ends with exit
 * code 5 and one sentence naming the library and the package that has it: URLSession cannot work without it, and
 * nothing has been sent.
 */
#include "lazy_curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CURLcode;
typedef int CURLMcode;
typedef int CURLUcode;
typedef long long curl_off_t;

static struct {
    CURLcode (*global_init)(long);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    CURLcode (*easy_setopt)(void *, int, ...);
    CURLcode (*easy_getinfo)(void *, int, ...);
    CURLcode (*easy_pause)(void *, int);
    const char *(*easy_strerror)(CURLcode);
    void (*free)(void *);
    void *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(void *, void *);
    CURLMcode (*multi_remove_handle)(void *, void *);
    CURLMcode (*multi_assign)(void *, int, void *);
    CURLMcode (*multi_cleanup)(void *);
    void *(*multi_info_read)(void *, int *);
    CURLMcode (*multi_setopt)(void *, int, ...);
    CURLMcode (*multi_socket_action)(void *, int, int, int *);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    void *(*url)(void);
    CURLUcode (*url_get)(const void *, int, char **, unsigned int);
    CURLUcode (*url_set)(void *, int, const char *, unsigned int);
    char *(*version)(void);
    void *(*version_info)(int);
} curl;

static pthread_once_t loading = PTHREAD_ONCE_INIT;
static int loaded = 0;

/* tokenctl's exit code for a request that could not be sent (5); the tokens are untouched. */
enum { EXIT_NO_HTTP = 5 };

static void unavailable(const char *problem) {
    fprintf(stderr,
            "tokenctl: sending HTTP needs libcurl (libcurl.so.4; Debian: apt install libcurl4), which %s. "
            "Nothing was sent and the stored tokens are unchanged.\n",
            problem);
    exit(EXIT_NO_HTTP);
}

static void *resolve(void *library, const char *name) {
    void *function = dlsym(library, name);
    if (!function) {
        char problem[512];
        snprintf(problem, sizeof problem, "has no %s: %s", name, dlerror());
        unavailable(problem);
    }
    return function;
}

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        char problem[512];
        snprintf(problem, sizeof problem, "could not be loaded: %s", dlerror());
        unavailable(problem);
    }
    curl.global_init = resolve(library, "curl_global_init");
    curl.easy_init = resolve(library, "curl_easy_init");
    curl.easy_cleanup = resolve(library, "curl_easy_cleanup");
    curl.easy_setopt = resolve(library, "curl_easy_setopt");
    curl.easy_getinfo = resolve(library, "curl_easy_getinfo");
    curl.easy_pause = resolve(library, "curl_easy_pause");
    curl.easy_strerror = resolve(library, "curl_easy_strerror");
    curl.free = resolve(library, "curl_free");
    curl.multi_init = resolve(library, "curl_multi_init");
    curl.multi_add_handle = resolve(library, "curl_multi_add_handle");
    curl.multi_remove_handle = resolve(library, "curl_multi_remove_handle");
    curl.multi_assign = resolve(library, "curl_multi_assign");
    curl.multi_cleanup = resolve(library, "curl_multi_cleanup");
    curl.multi_info_read = resolve(library, "curl_multi_info_read");
    curl.multi_setopt = resolve(library, "curl_multi_setopt");
    curl.multi_socket_action = resolve(library, "curl_multi_socket_action");
    curl.slist_append = resolve(library, "curl_slist_append");
    curl.slist_free_all = resolve(library, "curl_slist_free_all");
    curl.url = resolve(library, "curl_url");
    curl.url_get = resolve(library, "curl_url_get");
    curl.url_set = resolve(library, "curl_url_set");
    curl.version = resolve(library, "curl_version");
    curl.version_info = resolve(library, "curl_version_info");
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

static inline void ensure_loaded(void) { pthread_once(&loading, load); }

int tokenkeyring_lazy_curl_loaded(void) { return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE); }

/* The option's number says its argument's type: libcurl's CURLOPTTYPE_ ranges, the same for easy and multi. */
enum { OPTION_TYPE_STEP = 10000, OPTION_LONG = 0, OPTION_OFF_T = 3 };

CURLcode curl_global_init(long flags) { ensure_loaded(); return curl.global_init(flags); }
void *curl_easy_init(void) { ensure_loaded(); return curl.easy_init(); }
void curl_easy_cleanup(void *handle) { ensure_loaded(); curl.easy_cleanup(handle); }

CURLcode curl_easy_setopt(void *handle, int option, ...) {
    ensure_loaded();
    va_list arguments;
    va_start(arguments, option);
    CURLcode result;
    switch (option / OPTION_TYPE_STEP) {
    case OPTION_LONG: result = curl.easy_setopt(handle, option, va_arg(arguments, long)); break;
    case OPTION_OFF_T: result = curl.easy_setopt(handle, option, va_arg(arguments, curl_off_t)); break;
    default: result = curl.easy_setopt(handle, option, va_arg(arguments, void *)); break;  /* object, function, blob */
    }
    va_end(arguments);
    return result;
}

/* Every CURLINFO_ takes a pointer to where the answer goes. */
CURLcode curl_easy_getinfo(void *handle, int info, ...) {
    ensure_loaded();
    va_list arguments;
    va_start(arguments, info);
    CURLcode result = curl.easy_getinfo(handle, info, va_arg(arguments, void *));
    va_end(arguments);
    return result;
}

CURLcode curl_easy_pause(void *handle, int bitmask) { ensure_loaded(); return curl.easy_pause(handle, bitmask); }
const char *curl_easy_strerror(CURLcode code) { ensure_loaded(); return curl.easy_strerror(code); }
void curl_free(void *pointer) { ensure_loaded(); curl.free(pointer); }
void *curl_multi_init(void) { ensure_loaded(); return curl.multi_init(); }
CURLMcode curl_multi_add_handle(void *multi, void *easy) { ensure_loaded(); return curl.multi_add_handle(multi, easy); }
CURLMcode curl_multi_remove_handle(void *multi, void *easy) { ensure_loaded(); return curl.multi_remove_handle(multi, easy); }
CURLMcode curl_multi_assign(void *multi, int socket, void *pointer) {
    ensure_loaded();
    return curl.multi_assign(multi, socket, pointer);
}
CURLMcode curl_multi_cleanup(void *multi) { ensure_loaded(); return curl.multi_cleanup(multi); }
void *curl_multi_info_read(void *multi, int *queued) { ensure_loaded(); return curl.multi_info_read(multi, queued); }

CURLMcode curl_multi_setopt(void *multi, int option, ...) {
    ensure_loaded();
    va_list arguments;
    va_start(arguments, option);
    CURLMcode result;
    switch (option / OPTION_TYPE_STEP) {
    case OPTION_LONG: result = curl.multi_setopt(multi, option, va_arg(arguments, long)); break;
    case OPTION_OFF_T: result = curl.multi_setopt(multi, option, va_arg(arguments, curl_off_t)); break;
    default: result = curl.multi_setopt(multi, option, va_arg(arguments, void *)); break;
    }
    va_end(arguments);
    return result;
}

CURLMcode curl_multi_socket_action(void *multi, int socket, int events, int *running) {
    ensure_loaded();
    return curl.multi_socket_action(multi, socket, events, running);
}
void *curl_slist_append(void *list, const char *text) { ensure_loaded(); return curl.slist_append(list, text); }
void curl_slist_free_all(void *list) { ensure_loaded(); curl.slist_free_all(list); }
void *curl_url(void) { ensure_loaded(); return curl.url(); }
CURLUcode curl_url_get(const void *url, int part, char **text, unsigned int flags) {
    ensure_loaded();
    return curl.url_get(url, part, text, flags);
}
CURLUcode curl_url_set(void *url, int part, const char *text, unsigned int flags) {
    ensure_loaded();
    return curl.url_set(url, part, text, flags);
}
char *curl_version(void) { ensure_loaded(); return curl.version(); }
void *curl_version_info(int age) { ensure_loaded(); return curl.version_info(age); }
