#ifndef PUSHBUS_CCURL_SHIM_H
#define PUSHBUS_CCURL_SHIM_H
#include <stddef.h>
#include <curl/curl.h>

// curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, which Swift cannot call:
// each kind of argument gets one typed wrapper, so the type a given option wants is checked here.

/// Sets up libcurl once per process (OpenSSL included). Not thread-safe on older libcurl, so the
/// Swift side calls it from a `static let` (run once, under a lock).
static inline CURLcode pushbus_curl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

/// An option that takes a `long` (a flag, a count, a timeout, an enum such as the HTTP version).
static inline CURLcode pushbus_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// An option that takes a C string; libcurl copies it (except `CURLOPT_POSTFIELDS`, never passed
/// here: bodies go through `pushbus_curl_set_body`). NULL restores the default.
static inline CURLcode pushbus_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// A request body of `length` bytes, copied by libcurl so the caller's buffer may go at once. The
/// size goes first: without it `CURLOPT_COPYPOSTFIELDS` would take `strlen` of binary data. Makes
/// the request a POST unless `CURLOPT_CUSTOMREQUEST` says otherwise.
static inline CURLcode pushbus_curl_set_body(CURL *handle, const void *body, size_t length) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, length > 0 ? (const char *)body : "");
}

/// An option that takes an opaque pointer (`CURLOPT_ERRORBUFFER`). Not copied: it must outlive the handle.
static inline CURLcode pushbus_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// An option that takes a header list (`CURLOPT_HTTPHEADER`). Not copied: the list must outlive
/// the transfer.
static inline CURLcode pushbus_curl_set_slist(CURL *handle, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(handle, option, list);
}

/// The shape of libcurl's write and header callbacks: `count` bytes at `data`, returning how many
/// were taken (anything else aborts the transfer).
typedef size_t (*pushbus_curl_data_callback)(char *data, size_t size, size_t count, void *context);

/// Where the response body goes: `callback` with `context` for each chunk.
static inline CURLcode pushbus_curl_set_write_callback(CURL *handle, pushbus_curl_data_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}

/// Where response header lines go (status line included, one call per line).
static inline CURLcode pushbus_curl_set_header_callback(CURL *handle, pushbus_curl_data_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_HEADERDATA, context);
}

/// A multi-handle option that takes a `long`.
static inline CURLMcode pushbus_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// A `long` fact about a transfer (`CURLINFO_RESPONSE_CODE`, `CURLINFO_NUM_CONNECTS`, ...).
static inline CURLcode pushbus_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
