/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the probe's HTTP/1.x head parser (lr_http_parse) on any bytes
 * as one TCP payload. Invariants beside ASan/UBSan: a NOT leaves the struct
 * as it was; a request writes only the request's fields and a response
 * only the response's (each parsed over a struct that holds the other
 * side); lengths within their buffers; a method one of the list, a target
 * of visible bytes, values trimmed and without a line end, a status from
 * 100 to 599; an OK request has its method and target, an OK response its
 * status; and on prefixes of the input (each copied to a block of its own
 * size, so that a read past it is ASan's): the whole input's result or
 * TRUNC, each field not filled or the whole's.
 */
#include <stdlib.h>
#include <string.h>

#include "lr_flowext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char request_head[] =
	"GET /seed HTTP/1.1\r\nHost: seed.example\r\nUser-Agent: seed\r\n"
	"Referer: seed\r\n\r\n";
static const char response_head[] =
	"HTTP/1.1 299 Seed\r\nContent-Type: seed/seed\r\n\r\n";

static bool
trimmed(const char *s, size_t n)
{
	return n == 0 || (s[0] != ' ' && s[0] != '\t' && memchr(s, '\n', n) == NULL);
}

static void
check_fields(const struct lr_http *h)
{
	static const char *const methods[] = {
		"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
		"TRACE", "PATCH",
	};
	size_t i;
	bool known = h->method_len == 0;

	if (h->method_len > LR_HTTP_METHOD_MAX || h->host_len > LR_HTTP_HOST_MAX ||
	    h->target_len > LR_HTTP_TARGET_MAX || h->ua_len > LR_HTTP_UA_MAX ||
	    h->referer_len > LR_HTTP_REFERER_MAX || h->ctype_len > LR_HTTP_CTYPE_MAX)
		abort();
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (h->method_len == strlen(methods[i]) &&
		    memcmp(h->method, methods[i], h->method_len) == 0)
			known = true;
	if (!known)
		abort();
	for (i = 0; i < h->target_len; i++)
		if ((uint8_t)h->target[i] <= ' ' || h->target[i] == 0x7f)
			abort();
	if (!trimmed(h->host, h->host_len) || !trimmed(h->ua, h->ua_len) ||
	    !trimmed(h->referer, h->referer_len) || !trimmed(h->ctype, h->ctype_len))
		abort();
	if (h->status != 0 && (h->status < 100 || h->status > 599))
		abort();
}

/* The request's fields of @p a and @p b the same? */
static bool
same_request(const struct lr_http *a, const struct lr_http *b)
{
	return a->have_request == b->have_request && a->method_len == b->method_len &&
	       a->host_len == b->host_len && a->target_len == b->target_len &&
	       a->ua_len == b->ua_len && a->referer_len == b->referer_len &&
	       memcmp(a->method, b->method, a->method_len) == 0 &&
	       memcmp(a->host, b->host, a->host_len) == 0 &&
	       memcmp(a->target, b->target, a->target_len) == 0 &&
	       memcmp(a->ua, b->ua, a->ua_len) == 0 &&
	       memcmp(a->referer, b->referer, a->referer_len) == 0;
}

static bool
same_response(const struct lr_http *a, const struct lr_http *b)
{
	return a->have_response == b->have_response && a->status == b->status &&
	       a->ctype_len == b->ctype_len &&
	       memcmp(a->ctype, b->ctype, a->ctype_len) == 0;
}

static bool
str_zero_or(const char *s, size_t n, const char *w, size_t wn)
{
	return n == 0 || (n == wn && memcmp(s, w, n) == 0);
}

static void
check_prefix(const uint8_t *data, size_t n, enum lr_ext_result rw,
	     const struct lr_http *whole)
{
	uint8_t *copy = malloc(n ? n : 1);
	struct lr_http cut;
	enum lr_ext_result r;

	if (copy == NULL)
		return;
	memcpy(copy, data, n);
	memset(&cut, 0, sizeof(cut));
	r = lr_http_parse(copy, n, &cut);
	free(copy);
	if (r != rw && r != LR_EXT_TRUNC && !(n == 0 && r == LR_EXT_NOT))
		abort();
	check_fields(&cut);
	if (rw == LR_EXT_NOT || r == LR_EXT_NOT)
		return;
	if (r == rw && r != LR_EXT_TRUNC) {
		if (memcmp(&cut, whole, sizeof(cut)) != 0)
			abort();
		return;
	}
	if ((cut.have_request && !whole->have_request) ||
	    (cut.have_response && !whole->have_response) ||
	    (cut.status != 0 && cut.status != whole->status) ||
	    !str_zero_or(cut.method, cut.method_len, whole->method, whole->method_len) ||
	    !str_zero_or(cut.target, cut.target_len, whole->target, whole->target_len) ||
	    !str_zero_or(cut.host, cut.host_len, whole->host, whole->host_len) ||
	    !str_zero_or(cut.ua, cut.ua_len, whole->ua, whole->ua_len) ||
	    !str_zero_or(cut.referer, cut.referer_len, whole->referer, whole->referer_len) ||
	    !str_zero_or(cut.ctype, cut.ctype_len, whole->ctype, whole->ctype_len))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_http h, over_req, over_resp, seed_req, seed_resp, before;
	enum lr_ext_result r;

	/* on a fresh struct */
	memset(&h, 0, sizeof(h));
	r = lr_http_parse(data, size, &h);
	if (r > LR_EXT_BAD)
		abort();
	check_fields(&h);
	if (r == LR_EXT_OK && h.have_request && (h.method_len == 0 || h.target_len == 0))
		abort();
	if (r == LR_EXT_OK && !h.have_request && (!h.have_response || h.status == 0))
		abort();

	/* over a struct that holds a request, and one that holds a response */
	memset(&seed_req, 0, sizeof(seed_req));
	if (lr_http_parse((const uint8_t *)request_head, sizeof(request_head) - 1,
			  &seed_req) != LR_EXT_OK)
		abort();
	memset(&seed_resp, 0, sizeof(seed_resp));
	if (lr_http_parse((const uint8_t *)response_head, sizeof(response_head) - 1,
			  &seed_resp) != LR_EXT_OK)
		abort();
	over_req = seed_req;
	over_resp = seed_resp;
	if (lr_http_parse(data, size, &over_req) != r ||
	    lr_http_parse(data, size, &over_resp) != r)
		abort();
	if (h.have_request) {
		/* the request's fields replaced, the response's kept */
		if (!same_response(&over_resp, &seed_resp) || !same_request(&over_resp, &h))
			abort();
	} else if (h.have_response) {
		if (!same_request(&over_req, &seed_req) || !same_response(&over_req, &h))
			abort();
	} else {
		/* nothing written: NOT, or TRUNC before a start was whole */
		if (r != LR_EXT_NOT && r != LR_EXT_TRUNC)
			abort();
		if (memcmp(&over_req, &seed_req, sizeof(seed_req)) != 0)
			abort();
		memset(&before, 0xa5, sizeof(before));
		over_req = before;
		lr_http_parse(data, size, &over_req);
		if (memcmp(&over_req, &before, sizeof(before)) != 0)
			abort();
		return 0;
	}
	if (size > 0) {
		check_prefix(data, size - 1, r, &h);
		check_prefix(data, size / 2, r, &h);
		check_prefix(data, ((size_t)data[0] << 8 | data[size - 1]) % size, r, &h);
	}
	return 0;
}
