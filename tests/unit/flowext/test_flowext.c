/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow-extension parsers (lib/flowext) on messages scapy built
 * (vectors.h, from gen_vectors.py), every prefix of each, and broken ones
 * made by hand. Each parse reads from a buffer of exactly the bytes given,
 * so an over-read is ASan's error under -Dsanitize=true. One group of
 * functions per protocol, each named after it (dns_*, http_*, tcpopt_*);
 * main() lists
 * them by protocol.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lr_flowext.h"
#include "vectors.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A copy of @p len bytes in a heap block of exactly that size. */
static uint8_t *
exact_copy(const void *b, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, b, len);
	return copy;
}

static void
str_equal(const char *s, size_t n, const char *want)
{
	assert_int_equal(n, strlen(want));
	assert_memory_equal(s, want, n);
}

/* A field of a prefix's parse: not filled, or what the whole gave. */
#define ZERO_OR(f, whole) do { if ((f) != 0) assert_int_equal((f), (whole)); } while (0)

static void
str_zero_or(const char *s, size_t n, const char *whole, size_t whole_n)
{
	if (n == 0)
		return;
	assert_int_equal(n, whole_n);
	assert_memory_equal(s, whole, n);
}

/*
 * Every byte of @p msg set to each of @p vals in turn: never an over-read
 * (ASan), a result among the four; @p parse checks the lengths.
 */
static void
every_byte(const uint8_t *msg, size_t n, const uint8_t *vals, size_t nvals,
	   enum lr_ext_result (*parse)(const void *b, size_t len))
{
	uint8_t *b = malloc(n);
	size_t i, k;

	assert_non_null(b);
	for (i = 0; i < n; i++)
		for (k = 0; k < nvals; k++) {
			memcpy(b, msg, n);
			b[i] = vals[k];
			assert_true(parse(b, n) <= LR_EXT_BAD);
		}
	free(b);
}

/* ---- DNS ---- */

static enum lr_ext_result
dns_parse(const void *b, size_t len, struct lr_dns *d)
{
	uint8_t *copy = exact_copy(b, len);
	enum lr_ext_result r;

	memset(d, 0, sizeof(*d));
	r = lr_dns_parse(copy, len, d);
	free(copy);
	assert_true(d->name_len <= LR_DNS_NAME_MAX);
	assert_true(d->rdata_len <= LR_DNS_RDATA_MAX);
	return r;
}

static void
dns_check(const struct dns_want *w, const struct lr_dns *d)
{
	size_t keep = w->rdlength < LR_DNS_RDATA_MAX ? w->rdlength : LR_DNS_RDATA_MAX;

	assert_int_equal(d->id, w->id);
	assert_int_equal(d->response, w->response);
	assert_int_equal(d->rcode, w->rcode);
	str_equal(d->name, d->name_len, w->name);
	assert_int_equal(d->qtype, w->qtype);
	assert_int_equal(d->qclass, w->qclass);
	assert_int_equal(d->answers, w->answers);
	assert_int_equal(d->atype, w->atype);
	assert_int_equal(d->ttl, w->ttl);
	assert_int_equal(d->rdlength, w->rdlength);
	assert_int_equal(d->rdata_len, keep);
	if (keep > 0)
		assert_memory_equal(d->rdata, w->rdata, keep);
	assert_int_equal(d->psize, w->psize);
	assert_int_equal(d->dnssec_ok, w->dnssec_ok);
}

static void
dns_scapy_messages(void **state)
{
	struct lr_dns d;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(dns_vectors); i++) {
		print_message("%s\n", dns_vectors[i].what);
		assert_int_equal(dns_parse(dns_vectors[i].b, dns_vectors[i].n, &d), LR_EXT_OK);
		dns_check(&dns_vectors[i], &d);
	}
}

/* Every prefix: TRUNC (OK once the walk's end is in), each field not
 * filled or the whole message's. */
static void
dns_every_prefix(void **state)
{
	struct lr_dns whole, d;
	unsigned int i;
	size_t n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(dns_vectors); i++) {
		const struct dns_want *w = &dns_vectors[i];

		assert_int_equal(dns_parse(w->b, w->n, &whole), LR_EXT_OK);
		for (n = 1; n < w->n; n++) {
			enum lr_ext_result r = dns_parse(w->b, n, &d);

			assert_true(r == LR_EXT_TRUNC || r == LR_EXT_OK);
			if (r == LR_EXT_OK) {
				assert_memory_equal(&d, &whole, sizeof(d));
				continue;
			}
			ZERO_OR(d.id, whole.id);
			ZERO_OR(d.response, whole.response);
			ZERO_OR(d.rcode, whole.rcode);
			ZERO_OR(d.qtype, whole.qtype);
			ZERO_OR(d.qclass, whole.qclass);
			ZERO_OR(d.answers, whole.answers);
			ZERO_OR(d.atype, whole.atype);
			ZERO_OR(d.ttl, whole.ttl);
			ZERO_OR(d.rdlength, whole.rdlength);
			ZERO_OR(d.psize, whole.psize);
			ZERO_OR(d.dnssec_ok, whole.dnssec_ok);
			str_zero_or(d.name, d.name_len, whole.name, whole.name_len);
			str_zero_or((const char *)d.rdata, d.rdata_len,
				    (const char *)whole.rdata, whole.rdata_len);
			/* below 12 bytes there is no header to fill */
			if (n < 12)
				assert_int_equal(d.id, 0);
		}
	}
}

/* A query's header and first bytes, then what a test appends. */
static size_t
dns_msg(uint8_t *b, uint16_t flags, uint16_t qd, uint16_t an, uint16_t ns,
	uint16_t ar, const void *body, size_t body_len)
{
	const uint8_t hdr[12] = {
		0xab, 0xcd, flags >> 8, flags & 0xff, qd >> 8, qd & 0xff,
		an >> 8, an & 0xff, ns >> 8, ns & 0xff, ar >> 8, ar & 0xff,
	};

	memcpy(b, hdr, sizeof(hdr));
	if (body_len > 0)	/* a body of NULL: no question */
		memcpy(b + sizeof(hdr), body, body_len);
	return sizeof(hdr) + body_len;
}

#define Q_TAIL "\x00\x01\x00\x01"	/* QTYPE A, QCLASS IN */

/* Names that break RFC 1035's rules: BAD, the header kept. */
static void
dns_bad_names(void **state)
{
	static const struct {
		const char *what;
		const char *body;
		size_t len;
	} bad[] = {
#define B(what, s) { what, s, sizeof(s) - 1 }
		B("a pointer to itself", "\xc0\x0c" Q_TAIL),
		B("a pointer into its own labels", "\x03www\x01" "a\xc0\x10" Q_TAIL),
		B("a forward pointer", "\x03www\xc0\x20" Q_TAIL "\x00\x00\x00\x00\x00\x00"),
		B("a pointer into the header", "\xc0\x02" Q_TAIL),
		B("a label of 64 (type 01)", "\x40" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "\x00" Q_TAIL),
		B("a label of type 10", "\x80\x00" Q_TAIL),
#undef B
	};
	/* 5 labels of 50: 255 bytes on the wire with the root: fine; 6: BAD */
	uint8_t body[400], b[512];
	struct lr_dns d;
	unsigned int i, k;
	size_t n, off;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		print_message("%s\n", bad[i].what);
		n = dns_msg(b, 0x0100, 1, 0, 0, 0, bad[i].body, bad[i].len);
		assert_int_equal(dns_parse(b, n, &d), LR_EXT_BAD);
		assert_int_equal(d.id, 0xabcd);
		assert_int_equal(d.name_len, 0);
		assert_int_equal(d.qtype, 0);
	}
	for (k = 4; k <= 6; k++) {
		off = 0;
		for (i = 0; i < k; i++) {
			body[off++] = k == 5 ? 50 : 62;
			memset(body + off, 'a' + i, body[off - 1]);
			off += body[off - 1];
		}
		body[off++] = 0;
		memcpy(body + off, Q_TAIL, 4);
		off += 4;
		n = dns_msg(b, 0x0100, 1, 0, 0, 0, body, off);
		/* 4 x 63 + 1 = 253; 5 x 51 + 1 = 256; 6 x 63 + 1 = 379 */
		assert_int_equal(dns_parse(b, n, &d), k == 4 ? LR_EXT_OK : LR_EXT_BAD);
		if (k == 4)
			assert_int_equal(d.name_len, LR_DNS_NAME_MAX);	/* cut */
	}
	/* a label of 63, the most there is: fine */
	off = 0;
	body[off++] = 63;
	memset(body + off, 'z', 63);
	off += 63;
	body[off++] = 0;
	memcpy(body + off, Q_TAIL, 4);
	n = dns_msg(b, 0x0100, 1, 0, 0, 0, body, off + 4);
	assert_int_equal(dns_parse(b, n, &d), LR_EXT_OK);
	assert_int_equal(d.name_len, 63);
}

/* A later record's name: a pointer back is fine, not one to itself or
 * forward; a pointer cut after its first byte is TRUNC. */
static void
dns_answer_pointers(void **state)
{
	static const uint8_t back[] = "\x01" "a\x00" Q_TAIL
		"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x0a\x00\x00\x01";
	uint8_t b[128], body[64];
	struct lr_dns d;
	size_t n;

	(void)state;
	n = dns_msg(b, 0x8180, 1, 1, 0, 0, back, sizeof(back) - 1);
	assert_int_equal(dns_parse(b, n, &d), LR_EXT_OK);
	str_equal(d.name, d.name_len, "a");
	assert_int_equal(d.atype, 1);
	assert_int_equal(d.ttl, 60);
	assert_int_equal(d.rdata_len, 4);
	/* the answer's name points at itself (offset 19), then forward */
	memcpy(body, back, sizeof(back) - 1);
	body[8] = 19;
	n = dns_msg(b, 0x8180, 1, 1, 0, 0, body, sizeof(back) - 1);
	assert_int_equal(dns_parse(b, n, &d), LR_EXT_BAD);
	str_equal(d.name, d.name_len, "a");	/* before the fault: kept */
	assert_int_equal(d.atype, 0);
	body[8] = 40;
	assert_int_equal(dns_parse(b, n, &d), LR_EXT_BAD);
	/* cut between the pointer's two bytes */
	body[8] = 12;
	assert_int_equal(dns_parse(b, 12 + 8, &d), LR_EXT_TRUNC);
	/* an RDLENGTH past the end: the record's fixed part kept, not its data */
	body[17] = 0x40;
	n = dns_msg(b, 0x8180, 1, 1, 0, 0, body, sizeof(back) - 1);
	assert_int_equal(dns_parse(b, n, &d), LR_EXT_TRUNC);
	assert_int_equal(d.atype, 1);
	assert_int_equal(d.rdlength, 0x4004);
	assert_int_equal(d.rdata_len, 0);
}

/* Headers no DNS peer sends: NOT, the struct as it was. */
static void
dns_not_dns(void **state)
{
	static const uint8_t q[] = "\x01" "a\x00" Q_TAIL;
	uint8_t b[64];
	struct lr_dns d, before;
	size_t n;

	(void)state;
	memset(&before, 0xa5, sizeof(before));
	/* opcode 3 (unassigned), 7, 15 */
	n = dns_msg(b, 0x1800, 1, 0, 0, 0, q, sizeof(q) - 1);
	d = before;
	assert_int_equal(lr_dns_parse(b, n, &d), LR_EXT_NOT);
	assert_memory_equal(&d, &before, sizeof(d));
	n = dns_msg(b, 0x3800, 1, 0, 0, 0, q, sizeof(q) - 1);
	assert_int_equal(lr_dns_parse(b, n, &d), LR_EXT_NOT);
	n = dns_msg(b, 0x7800, 1, 0, 0, 0, q, sizeof(q) - 1);
	assert_int_equal(lr_dns_parse(b, n, &d), LR_EXT_NOT);
	/* the opcode is in the third byte: two bytes cannot tell */
	assert_int_equal(lr_dns_parse(b, 2, &d), LR_EXT_TRUNC);
	assert_int_equal(lr_dns_parse(b, 3, &d), LR_EXT_NOT);
	/* more records than 64 KiB hold */
	n = dns_msg(b, 0x8180, 1, 0x8000, 0, 0x8000, q, sizeof(q) - 1);
	assert_int_equal(lr_dns_parse(b, n, &d), LR_EXT_NOT);
	/* 5957 records of 11 bytes fit, as the count says; the message is
	 * cut */
	n = dns_msg(b, 0x8180, 1, 5900, 0, 0, q, sizeof(q) - 1);
	assert_int_equal(dns_parse(b, n, &d), LR_EXT_TRUNC);
	/* no question: a query without an additional record, a response
	 * with no error and none */
	d = before;
	n = dns_msg(b, 0x0100, 0, 0, 0, 0, NULL, 0);
	assert_int_equal(lr_dns_parse(b, n, &d), LR_EXT_NOT);
	assert_memory_equal(&d, &before, sizeof(d));
	n = dns_msg(b, 0x8180, 0, 1, 0, 0, NULL, 0);
	assert_int_equal(lr_dns_parse(b, n, &d), LR_EXT_NOT);
	/* ... but DSO (opcode 6) has none */
	n = dns_msg(b, 0x3000, 0, 0, 0, 0, NULL, 0);
	assert_int_equal(dns_parse(b, n, &d), LR_EXT_OK);
	assert_int_equal(d.id, 0xabcd);
	/* an empty payload */
	d = before;
	assert_int_equal(lr_dns_parse(b, 0, &d), LR_EXT_NOT);
	assert_memory_equal(&d, &before, sizeof(d));
	/* HTTP and TLS to port 53 */
	assert_int_equal(dns_parse("GET / HTTP/1.1\r\n\r\n", 18, &d), LR_EXT_NOT);
	assert_int_equal(dns_parse("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x00", 12, &d),
			 LR_EXT_NOT);
}

static enum lr_ext_result
dns_parse_any(const void *b, size_t len)
{
	struct lr_dns d;

	return dns_parse(b, len, &d);
}

static void
dns_every_byte(void **state)
{
	static const uint8_t vals[] = { 0x00, 0x01, 0x3f, 0x40, 0x80, 0xc0, 0xff };

	(void)state;
	every_byte(dns_vectors[1].b, dns_vectors[1].n, vals, sizeof(vals), dns_parse_any);
}

/* ---- HTTP ---- */

static enum lr_ext_result
http_parse_raw(const void *b, size_t len, struct lr_http *h)
{
	uint8_t *copy = exact_copy(b, len);
	enum lr_ext_result r;

	r = lr_http_parse(copy, len, h);
	free(copy);
	return r;
}

static enum lr_ext_result
http_parse(const void *b, size_t len, struct lr_http *h)
{
	enum lr_ext_result r = http_parse_raw(b, len, h);

	assert_true(h->method_len <= LR_HTTP_METHOD_MAX);
	assert_true(h->host_len <= LR_HTTP_HOST_MAX);
	assert_true(h->target_len <= LR_HTTP_TARGET_MAX);
	assert_true(h->ua_len <= LR_HTTP_UA_MAX);
	assert_true(h->referer_len <= LR_HTTP_REFERER_MAX);
	assert_true(h->ctype_len <= LR_HTTP_CTYPE_MAX);
	return r;
}

/* A fresh struct for each parse. */
static enum lr_ext_result
http_parse0(const char *s, struct lr_http *h)
{
	memset(h, 0, sizeof(*h));
	return http_parse(s, strlen(s), h);
}

static void
http_check(const struct http_want *w, const struct lr_http *h)
{
	str_equal(h->method, h->method_len, w->method);
	str_equal(h->target, h->target_len, w->target);
	str_equal(h->host, h->host_len, w->host);
	str_equal(h->ua, h->ua_len, w->ua);
	str_equal(h->referer, h->referer_len, w->referer);
	str_equal(h->ctype, h->ctype_len, w->ctype);
	assert_int_equal(h->status, w->status);
	assert_int_equal(h->have_request, w->method[0] != '\0');
	assert_int_equal(h->have_response, w->status != 0);
}

static void
http_scapy_heads(void **state)
{
	struct lr_http h;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(http_vectors); i++) {
		print_message("%s\n", http_vectors[i].what);
		memset(&h, 0, sizeof(h));
		assert_int_equal(http_parse(http_vectors[i].b, http_vectors[i].n, &h),
				 LR_EXT_OK);
		http_check(&http_vectors[i], &h);
	}
}

static void
http_every_prefix(void **state)
{
	struct lr_http whole, h;
	unsigned int i;
	size_t n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(http_vectors); i++) {
		const struct http_want *w = &http_vectors[i];

		memset(&whole, 0, sizeof(whole));
		assert_int_equal(http_parse(w->b, w->n, &whole), LR_EXT_OK);
		for (n = 1; n < w->n; n++) {
			enum lr_ext_result r;

			memset(&h, 0, sizeof(h));
			r = http_parse(w->b, n, &h);
			assert_true(r == LR_EXT_TRUNC || r == LR_EXT_OK);
			if (r == LR_EXT_OK) {	/* the head whole, the body cut */
				assert_memory_equal(&h, &whole, sizeof(h));
				continue;
			}
			ZERO_OR(h.have_request, whole.have_request);
			ZERO_OR(h.have_response, whole.have_response);
			ZERO_OR(h.status, whole.status);
			str_zero_or(h.method, h.method_len, whole.method, whole.method_len);
			str_zero_or(h.target, h.target_len, whole.target, whole.target_len);
			str_zero_or(h.host, h.host_len, whole.host, whole.host_len);
			str_zero_or(h.ua, h.ua_len, whole.ua, whole.ua_len);
			str_zero_or(h.referer, h.referer_len, whole.referer, whole.referer_len);
			str_zero_or(h.ctype, h.ctype_len, whole.ctype, whole.ctype_len);
		}
	}
}

/* The server's answer in the struct of the client's request: both kept. */
static void
http_request_then_response(void **state)
{
	struct lr_http h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(http_parse(http_vectors[0].b, http_vectors[0].n, &h), LR_EXT_OK);
	assert_int_equal(http_parse(http_vectors[2].b, http_vectors[2].n, &h), LR_EXT_OK);
	assert_true(h.have_request && h.have_response);
	str_equal(h.host, h.host_len, "www.example.com");
	str_equal(h.method, h.method_len, "GET");
	assert_int_equal(h.status, 200);
	str_equal(h.ctype, h.ctype_len, "text/html; charset=UTF-8");
	/* a second request replaces the first's fields, not the response's */
	assert_int_equal(http_parse("PUT /x HTTP/1.1\r\n\r\n", 19, &h), LR_EXT_OK);
	str_equal(h.method, h.method_len, "PUT");
	assert_int_equal(h.host_len, 0);
	assert_int_equal(h.status, 200);
}

/* What real peers send beside the RFC's letter. */
static void
http_lenient(void **state)
{
	struct lr_http h;

	(void)state;
	/* bare LF, names in any case, values trimmed of spaces and tabs, an
	 * obsolete fold stepped over, the first Host kept */
	assert_int_equal(http_parse0("GET /a HTTP/1.0\nhOsT: \t a.example \t\n"
				     " folded\nUSER-AGENT:curl/8.0\nHost: b\n"
				     "referer:\n\n", &h), LR_EXT_OK);
	str_equal(h.target, h.target_len, "/a");
	str_equal(h.host, h.host_len, "a.example");
	str_equal(h.ua, h.ua_len, "curl/8.0");
	assert_int_equal(h.referer_len, 0);
	/* every method of RFC 9110 and PATCH; CONNECT's authority form,
	 * OPTIONS' asterisk */
	assert_int_equal(http_parse0("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n",
				     &h), LR_EXT_OK);
	str_equal(h.target, h.target_len, "a.example:443");
	assert_int_equal(http_parse0("OPTIONS * HTTP/1.1\r\n\r\n", &h), LR_EXT_OK);
	assert_int_equal(http_parse0("HEAD / HTTP/1.1\r\n\r\n", &h), LR_EXT_OK);
	assert_int_equal(http_parse0("DELETE /1 HTTP/1.1\r\n\r\n", &h), LR_EXT_OK);
	assert_int_equal(http_parse0("TRACE / HTTP/1.1\r\n\r\n", &h), LR_EXT_OK);
	assert_int_equal(http_parse0("PATCH /1 HTTP/1.1\r\n\r\n", &h), LR_EXT_OK);
	str_equal(h.method, h.method_len, "PATCH");
	/* a status line without a reason, or without its space */
	assert_int_equal(http_parse0("HTTP/1.1 204 \r\n\r\n", &h), LR_EXT_OK);
	assert_int_equal(h.status, 204);
	assert_int_equal(http_parse0("HTTP/1.1 304\r\nContent-Type:  image/png\r\n\r\n", &h),
			 LR_EXT_OK);
	assert_int_equal(h.status, 304);
	str_equal(h.ctype, h.ctype_len, "image/png");
	/* long values cut to their buffers, the result still OK */
	{
		char req[1024], target[300];

		memset(target, 'x', sizeof(target) - 1);
		target[0] = '/';
		target[sizeof(target) - 1] = '\0';
		snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target,
			 target + 1);
		assert_int_equal(http_parse0(req, &h), LR_EXT_OK);
		assert_int_equal(h.target_len, LR_HTTP_TARGET_MAX);
		assert_memory_equal(h.target, target, LR_HTTP_TARGET_MAX);
		assert_int_equal(h.host_len, LR_HTTP_HOST_MAX);
	}
}

/* Not HTTP/1.x: NOT, nothing written; too short to tell: TRUNC, nothing
 * written. */
static void
http_not_http(void **state)
{
	static const char *const nots[] = {
		"get / HTTP/1.1\r\n\r\n",		/* methods are case-sensitive */
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",	/* HTTP/2's preface */
		"OPTIONS rtsp://a/ RTSP/1.0\r\nCSeq: 1\r\n\r\n",
		"INVITE sip:a@b SIP/2.0\r\n\r\n",
		"SIP/2.0 200 OK\r\n\r\n",
		"HTTP/2 200\r\n\r\n",
		"GETS / HTTP/1.1\r\n\r\n",
		"\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00",
		"SSH-2.0-OpenSSH_9.2\r\n",
	};
	static const char *const shorts[] = { "G", "GE", "GET", "P", "PU", "HTTP/1.", "OPTIONS" };
	struct lr_http h, before;
	unsigned int i;

	(void)state;
	memset(&before, 0xa5, sizeof(before));
	for (i = 0; i < ARRAY_SIZE(nots); i++) {
		print_message("%s\n", nots[i]);
		h = before;
		assert_int_equal(http_parse_raw(nots[i], strlen(nots[i]), &h), LR_EXT_NOT);
		assert_memory_equal(&h, &before, sizeof(h));
	}
	for (i = 0; i < ARRAY_SIZE(shorts); i++) {
		h = before;
		assert_int_equal(http_parse_raw(shorts[i], strlen(shorts[i]), &h), LR_EXT_TRUNC);
		assert_memory_equal(&h, &before, sizeof(h));
	}
	h = before;
	assert_int_equal(http_parse_raw("", 0, &h), LR_EXT_NOT);
	assert_memory_equal(&h, &before, sizeof(h));
}

/* HTTP's start, then the grammar broken: BAD, what came before kept. */
static void
http_bad(void **state)
{
	static const struct {
		const char *head;
		const char *method, *target, *host;
	} bad[] = {
		{ "GET  / HTTP/1.1\r\n\r\n", "GET", "", "" },		/* empty target */
		{ "GET /\r\n", "GET", "", "" },				/* HTTP/0.9 */
		{ "GET /a\tb HTTP/1.1\r\n\r\n", "GET", "", "" },	/* a tab in it */
		{ "GET / HTTP/1.1x\r\n\r\n", "GET", "/", "" },
		{ "GET / HTTP/2.0\r\n\r\n", "GET", "/", "" },
		{ "GET / HTTP/1.1\rX\n\r\n", "GET", "/", "" },
		{ "GET / HTTP/1.1\r\nHost: a\r\nno colon\r\n\r\n", "GET", "/", "a" },
		{ "GET / HTTP/1.1\r\nHost : a\r\n\r\n", "GET", "/", "" },
		{ "GET / HTTP/1.1\r\n: a\r\n\r\n", "GET", "/", "" },
		{ "HTTP/1.1 20x OK\r\n\r\n", "", "", "" },
		{ "HTTP/1.1 600 Odd\r\n\r\n", "", "", "" },
		{ "HTTP/1.1 2000 OK\r\n\r\n", "", "", "" },
		{ "HTTP/1.1200 OK\r\n\r\n", "", "", "" },
		{ "HTTP/1.1 200\rOK\r\n\r\n", "", "", "" },
	};
	struct lr_http h;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		print_message("%s\n", bad[i].head);
		assert_int_equal(http_parse0(bad[i].head, &h), LR_EXT_BAD);
		str_equal(h.method, h.method_len, bad[i].method);
		str_equal(h.target, h.target_len, bad[i].target);
		str_equal(h.host, h.host_len, bad[i].host);
		assert_int_equal(h.status, 0);
		assert_true(h.have_request || h.have_response);
	}
}

static enum lr_ext_result
http_parse_any(const void *b, size_t len)
{
	struct lr_http h;

	memset(&h, 0, sizeof(h));
	return http_parse(b, len, &h);
}

static void
http_every_byte(void **state)
{
	static const uint8_t vals[] = { 0x00, '\r', '\n', ' ', ':', 0x7f, 0xff };

	(void)state;
	every_byte(http_vectors[0].b, http_vectors[0].n, vals, sizeof(vals), http_parse_any);
}

/* ---- TCP options ---- */

/* A Linux SYN's options (MSS 1460, SACK permitted, timestamps, NOP, window
 * scale 7), as tcpdump shows them: every kind's bit, the MSS. */
static void
tcpopt_linux_syn(void **state)
{
	static const uint8_t o[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1,
				     0, 0, 0, 0, 1, 3, 3, 7 };
	uint8_t *c = exact_copy(o, sizeof(o));
	uint64_t k = 0;
	uint32_t mss = 0;

	(void)state;
	assert_int_equal(lr_tcp_options(c, sizeof(o), &k, &mss), LR_EXT_OK);
	assert_int_equal(mss, 1460);
	/* kinds 1, 2, 3, 4, 8: bits 62, 61, 60, 59, 55 */
	assert_true(k == (1ull << 62 | 1ull << 61 | 1ull << 60 | 1ull << 59 |
			  1ull << 55));
	free(c);
}

/* End of Option List stops the reading; kinds past 63 set no bit; what
 * came before a fault is kept. */
static void
tcpopt_edges(void **state)
{
	static const uint8_t eol[] = { 1, 0, 2, 4, 0x05, 0xb4 };
	static const uint8_t big[] = { 200, 3, 9, 30, 2, 0 };
	static const uint8_t zero[] = { 2, 4, 1, 0, 5, 0, 8 };
	static const uint8_t cut[] = { 8, 10, 0, 0 };
	static const uint8_t lone[] = { 1, 1, 3 };
	uint64_t k;
	uint32_t mss;
	uint8_t *c;

	(void)state;
	k = 0, mss = 0, c = exact_copy(eol, sizeof(eol));
	assert_int_equal(lr_tcp_options(c, sizeof(eol), &k, &mss), LR_EXT_OK);
	assert_true(k == (1ull << 62 | 1ull << 63) && mss == 0);
	free(c);
	k = 0, mss = 0, c = exact_copy(big, sizeof(big));
	assert_int_equal(lr_tcp_options(c, sizeof(big), &k, &mss), LR_EXT_OK);
	/* kind 30 and End of Option List (0); 200 has no bit */
	assert_true(k == (1ull << 33 | 1ull << 63) && mss == 0);
	free(c);
	k = 0, mss = 0, c = exact_copy(zero, sizeof(zero));
	assert_int_equal(lr_tcp_options(c, sizeof(zero), &k, &mss), LR_EXT_BAD);
	assert_true(k == (1ull << 61 | 1ull << 58) && mss == 0x100);
	free(c);
	k = 0, mss = 0, c = exact_copy(cut, sizeof(cut));
	assert_int_equal(lr_tcp_options(c, sizeof(cut), &k, &mss), LR_EXT_TRUNC);
	assert_true(k == 1ull << 55);
	free(c);
	k = 0, mss = 0, c = exact_copy(lone, sizeof(lone));
	assert_int_equal(lr_tcp_options(c, sizeof(lone), &k, &mss), LR_EXT_TRUNC);
	assert_true(k == (1ull << 62 | 1ull << 60));
	free(c);
	k = 7, mss = 9;
	assert_int_equal(lr_tcp_options(NULL, 0, &k, &mss), LR_EXT_OK);
	assert_true(k == 7 && mss == 9);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* DNS */
		cmocka_unit_test(dns_scapy_messages),
		cmocka_unit_test(dns_every_prefix),
		cmocka_unit_test(dns_bad_names),
		cmocka_unit_test(dns_answer_pointers),
		cmocka_unit_test(dns_not_dns),
		cmocka_unit_test(dns_every_byte),
		/* HTTP */
		cmocka_unit_test(http_scapy_heads),
		cmocka_unit_test(http_every_prefix),
		cmocka_unit_test(http_request_then_response),
		cmocka_unit_test(http_lenient),
		cmocka_unit_test(http_not_http),
		cmocka_unit_test(http_bad),
		cmocka_unit_test(http_every_byte),
		cmocka_unit_test(tcpopt_linux_syn),
		cmocka_unit_test(tcpopt_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
