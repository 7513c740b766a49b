/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An HTTP/1.x message head (RFC 9112 §2-5) at the start of a TCP payload:
 * a request line and its Host, User-Agent and Referer, or a status line
 * and its Content-Type.
 *
 * What the result says (every rule decided by bytes that are there, so a
 * prefix of a head gives that head's result or TRUNC, never another):
 *
 * NOT: the payload starts neither with a method of RFC 9110 §9 or PATCH
 *   (RFC 5789), case-sensitive, and a space, nor with "HTTP/1." and a
 *   digit; or a request line's version does not start "HTTP/" (RTSP and
 *   SIP look like HTTP up to there). Nothing is written.
 * TRUNC: the head ends before its empty line (one TCP segment of a longer
 *   head, or a capture cut short); the lines whole before the cut are
 *   filled, the method and target as soon as each is followed by its space.
 *   A payload too short to tell that agrees with a start so far is TRUNC
 *   with nothing written.
 * BAD: after such a start, the head breaks the grammar: a target empty, or
 *   ended by anything but one space (a control byte, a line end: HTTP/0.9),
 *   a version not "HTTP/1." and a digit ending its line, a status code not
 *   three digits from 100 to 599 ended by a space or the line's end, a
 *   header line with no colon, an empty name or a byte in it that is not a
 *   token's (whitespace before the colon too, §5.1). The fields before the
 *   fault are filled.
 * OK: the empty line that ends the head was found; the body is not read.
 *
 * Lines end with CRLF or a bare LF (§2.2); a line that starts with a space
 * or tab (an obsolete fold, §5.2) is stepped over, its text not added to
 * the header before it. The first of a repeated header counts. A request
 * clears and fills the request's fields and have_request, a response the
 * response's: the server's answer lands beside the client's request.
 */
#include <string.h>

#include "lr_flowext.h"

static const struct {
	const char *name;
	size_t len;
} methods[] = {
	{ "GET", 3 }, { "HEAD", 4 }, { "POST", 4 }, { "PUT", 3 },
	{ "DELETE", 6 }, { "CONNECT", 7 }, { "OPTIONS", 7 }, { "TRACE", 5 },
	{ "PATCH", 5 },
};

#define VERSION_PREFIX "HTTP/1."
#define VERSION_LEN 8		/* "HTTP/1.1" */

/* A match of the bytes there are against an expected start. */
enum match { M_NO, M_SHORT, M_YES };

static bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* tchar of RFC 9110 §5.6.2 */
static bool
is_tchar(uint8_t c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c))
		return true;
	return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool
is_ows(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* "HTTP/1." and a digit at @p p: M_SHORT when the bytes run out first. */
static enum match
version_at(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < VERSION_LEN; i++) {
		if (i == len)
			return M_SHORT;
		if (i < VERSION_LEN - 1 ? p[i] != (uint8_t)VERSION_PREFIX[i] :
		    !is_digit(p[i]))
			return M_NO;
	}
	return M_YES;
}

/* The method that starts @p p followed by a space: its length in *n. */
static enum match
method_at(const uint8_t *p, size_t len, size_t *n)
{
	enum match best = M_NO;
	size_t m, i;

	for (m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
		const char *w = methods[m].name;
		size_t wl = methods[m].len;

		for (i = 0; i <= wl; i++) {
			if (i == len) {
				best = M_SHORT;
				break;
			}
			if (p[i] != (i < wl ? (uint8_t)w[i] : ' '))
				break;
		}
		if (i > wl) {
			*n = wl;
			return M_YES;
		}
	}
	return best;
}

/*
 * The line that starts at *off: [*off, *end) without its CR LF or LF;
 * *off moves past the LF. false when no LF is there (the head is cut).
 */
static bool
line(const uint8_t *p, size_t len, size_t *off, size_t *start, size_t *end)
{
	const uint8_t *lf = memchr(p + *off, '\n', len - *off);
	size_t e;

	if (lf == NULL)
		return false;
	e = (size_t)(lf - p);
	*start = *off;
	*off = e + 1;
	if (e > *start && p[e - 1] == '\r')
		e--;
	*end = e;
	return true;
}

static void
put(char *dst, uint8_t *dst_len, size_t max, const uint8_t *src, size_t n)
{
	if (n > max)
		n = max;
	memcpy(dst, src, n);
	*dst_len = (uint8_t)n;
}

static bool
name_is(const uint8_t *p, size_t n, const char *want)
{
	size_t i;

	if (n != strlen(want))
		return false;
	for (i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c - 'A' + 'a');
		if (c != (uint8_t)want[i])
			return false;
	}
	return true;
}

/* A header of interest and where its value goes. */
struct want {
	const char *name;	/* lower case */
	char *dst;
	uint8_t *dst_len;
	size_t max;
	bool seen;
};

/*
 * The header lines from @p off to the empty line: each value of a name in
 * @p w (trimmed, cut) into its field, the first of each only.
 */
static enum lr_ext_result
headers(const uint8_t *p, size_t len, size_t off, struct want *w, size_t nw)
{
	size_t s, e, colon, i;

	for (;;) {
		if (!line(p, len, &off, &s, &e))
			return LR_EXT_TRUNC;
		if (s == e)
			return LR_EXT_OK;
		if (is_ows(p[s]))
			continue;	/* an obsolete fold */
		for (colon = s; colon < e && p[colon] != ':'; colon++)
			if (!is_tchar(p[colon]))
				return LR_EXT_BAD;
		if (colon == e || colon == s)
			return LR_EXT_BAD;
		for (i = 0; i < nw; i++) {
			size_t vs = colon + 1, ve = e;

			if (w[i].seen || !name_is(p + s, colon - s, w[i].name))
				continue;
			while (vs < ve && is_ows(p[vs]))
				vs++;
			while (ve > vs && is_ows(p[ve - 1]))
				ve--;
			put(w[i].dst, w[i].dst_len, w[i].max, p + vs, ve - vs);
			w[i].seen = true;
		}
	}
}

/*
 * After a method and its space at [0, mlen]: the target, the version, the
 * headers. The request line is judged before anything is written, so that
 * a NOT (another protocol's version) writes nothing.
 */
static enum lr_ext_result
request(const uint8_t *p, size_t len, size_t mlen, struct lr_http *h)
{
	struct want w[] = {
		{ "host", h->host, &h->host_len, LR_HTTP_HOST_MAX, false },
		{ "user-agent", h->ua, &h->ua_len, LR_HTTP_UA_MAX, false },
		{ "referer", h->referer, &h->referer_len, LR_HTTP_REFERER_MAX, false },
	};
	size_t ts = mlen + 1, te = ts, v, off = 0;
	enum lr_ext_result r = LR_EXT_OK;
	bool have_target = false;

	while (te < len && p[te] > ' ' && p[te] != 0x7f)
		te++;
	if (te == len) {
		r = LR_EXT_TRUNC;
	} else if (p[te] != ' ' || te == ts) {
		r = LR_EXT_BAD;
	} else {
		have_target = true;
		v = te + 1;
		switch (version_at(p + v, len - v)) {
		case M_SHORT:
			r = LR_EXT_TRUNC;
			break;
		case M_NO:
			/* "HTTP/" itself wrong: another protocol; past it,
			 * a wrong HTTP version */
			if (version_at(p + v, len - v < 5 ? len - v : 5) == M_NO)
				return LR_EXT_NOT;
			r = LR_EXT_BAD;
			break;
		case M_YES:
			off = v + VERSION_LEN;
			if (off == len || (p[off] == '\r' && off + 1 == len))
				r = LR_EXT_TRUNC;
			else if (p[off] == '\n')
				off++;
			else if (p[off] == '\r' && p[off + 1] == '\n')
				off += 2;
			else
				r = LR_EXT_BAD;
			break;
		}
	}

	h->have_request = true;
	h->method_len = h->host_len = h->target_len = h->ua_len = h->referer_len = 0;
	put(h->method, &h->method_len, LR_HTTP_METHOD_MAX, p, mlen);
	if (have_target)
		put(h->target, &h->target_len, LR_HTTP_TARGET_MAX, p + ts, te - ts);
	if (r != LR_EXT_OK)
		return r;
	return headers(p, len, off, w, sizeof(w) / sizeof(w[0]));
}

/* After "HTTP/1.x": a space, the status code, the reason, the headers. */
static enum lr_ext_result
response(const uint8_t *p, size_t len, struct lr_http *h)
{
	struct want w[] = {
		{ "content-type", h->ctype, &h->ctype_len, LR_HTTP_CTYPE_MAX, false },
	};
	size_t off = VERSION_LEN, s, e, i;
	unsigned int status = 0;

	h->have_response = true;
	h->status = 0;
	h->ctype_len = 0;
	if (off == len)
		return LR_EXT_TRUNC;
	if (p[off++] != ' ')
		return LR_EXT_BAD;
	for (i = 0; i < 3; i++, off++) {
		if (off == len)
			return LR_EXT_TRUNC;
		if (!is_digit(p[off]) || (i == 0 && (p[off] < '1' || p[off] > '5')))
			return LR_EXT_BAD;
		status = status * 10 + (unsigned int)(p[off] - '0');
	}
	/* the reason may be empty, its space too (servers leave it out) */
	if (off == len)
		return LR_EXT_TRUNC;
	if (p[off] != ' ' && p[off] != '\r' && p[off] != '\n')
		return LR_EXT_BAD;
	if (p[off] == '\r' && off + 1 < len && p[off + 1] != '\n')
		return LR_EXT_BAD;
	if (!line(p, len, &off, &s, &e))
		return LR_EXT_TRUNC;
	h->status = (uint16_t)status;
	return headers(p, len, off, w, sizeof(w) / sizeof(w[0]));
}

enum lr_ext_result
lr_http_parse(const uint8_t *p, size_t len, struct lr_http *h)
{
	enum match m, v;
	size_t mlen = 0;

	if (len == 0)
		return LR_EXT_NOT;
	m = method_at(p, len, &mlen);
	if (m == M_YES)
		return request(p, len, mlen, h);
	v = version_at(p, len);
	if (v == M_YES)
		return response(p, len, h);
	return m == M_SHORT || v == M_SHORT ? LR_EXT_TRUNC : LR_EXT_NOT;
}
