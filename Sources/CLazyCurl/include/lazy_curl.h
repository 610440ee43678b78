#ifndef TOKENKEYRING_LAZY_CURL_H
#define TOKENKEYRING_LAZY_CURL_H

/// Whether libcurl has been loaded yet: it is loaded on the first call of a `curl_` function.
int tokenkeyring_lazy_curl_loaded(void);

#endif
