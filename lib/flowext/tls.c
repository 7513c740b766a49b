/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TLS ClientHello and ServerHello (RFC 8446 §4.1.2-3, RFC 5246 §7.4.1):
 * the server name (RFC 6066 §3), ALPN (RFC 7301), the versions, JA3.
 *
 * The bytes are read through a cursor of offsets into the payload: every
 * length in the message is checked against what is left of its enclosing
 * structure (past it: BAD) and of the bytes given (past them: TRUNC), so
 * no byte past either is read, and a field is filled only when it is whole.
 * Only the first record is read: a handshake message that continues in a
 * second record (a ClientHello of more than 16 KiB) or in the next TCP
 * segment is TRUNC, with the fields before the cut filled.
 */
#include <string.h>

#include <openssl/evp.h>

#include "lr_flowext.h"

#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define TLS_HANDSHAKE 22
#define TLS_RECORD_MAX (16384 + 2048)	/* RFC 8446 §5.2 */
#define HS_CLIENT_HELLO 1
#define HS_SERVER_HELLO 2
#define EXT_SERVER_NAME 0
#define EXT_GROUPS 10
#define EXT_POINT_FORMATS 11
#define EXT_ALPN 16
#define EXT_VERSIONS 43

/* [pos, end) of a structure of the payload b; bytes from stop on were not
 * given (stop <= end). */
struct cur {
	const uint8_t *b;
	size_t pos, end, stop;
	bool cut;		/* a read wanted bytes past stop */
	bool bad;		/* a read wanted bytes past end */
};

static bool
need(struct cur *c, size_t n)
{
	if (c->end - c->pos < n) {
		c->bad = true;
		return false;
	}
	if (c->stop < c->pos + n) {
		c->cut = true;
		return false;
	}
	return true;
}

static bool
get(struct cur *c, size_t n, unsigned int *v)
{
	size_t i;

	if (!need(c, n))
		return false;
	*v = 0;
	for (i = 0; i < n; i++)
		*v = *v << 8 | c->b[c->pos + i];
	c->pos += n;
	return true;
}

static bool
skip(struct cur *c, size_t n)
{
	if (!need(c, n))
		return false;
	c->pos += n;
	return true;
}

static bool
more(const struct cur *c)
{
	return c->pos < c->end;
}

/* A length-prefixed vector (RFC 8446 §3.4), its length @p width bytes:
 * its bytes as a structure of their own in @p s, the cursor past them. A
 * vector longer than its parent is BAD; one the payload cuts is read as
 * far as it goes (the parent is cut then too). */
static bool
vec(struct cur *c, size_t width, struct cur *s)
{
	unsigned int n;

	if (!get(c, width, &n))
		return false;
	if (c->end - c->pos < n) {
		c->bad = true;
		return false;
	}
	s->b = c->b;
	s->pos = c->pos;
	s->end = c->pos + n;
	s->stop = c->stop < s->end ? c->stop : s->end;
	s->cut = s->bad = false;
	c->pos = s->end;
	if (c->pos > c->stop)
		c->cut = true;
	return true;
}

static bool
whole(const struct cur *s)
{
	return s->stop == s->end;
}

static void
merge(struct cur *into, const struct cur *from)
{
	into->bad |= from->bad;
	into->cut |= from->cut;
}

/* RFC 8701's reserved values: 0x0a0a, 0x1a1a, ..., 0xfafa. */
static bool
grease(unsigned int v)
{
	return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff);
}

static void
copy(char *dst, uint8_t *dst_len, size_t cap, const struct cur *s)
{
	size_t n = s->end - s->pos;

	if (n > cap)
		n = cap;
	memcpy(dst, s->b + s->pos, n);
	*dst_len = (uint8_t)n;
}

/* JA3's text, built as the ClientHello is read. */
struct ja3 {
	char *buf;
	size_t size, len;
	bool over;		/* did not fit */
};

static void
ja3_put(struct ja3 *j, const char *sep, unsigned int v)
{
	char d[10];
	size_t n = 0, k = strlen(sep);

	if (j == NULL || j->over)
		return;
	/* Digits by hand: snprintf() was most of a hello's cost. */
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	if (j->len + k + n >= j->size) {
		j->over = true;
		return;
	}
	memcpy(j->buf + j->len, sep, k);
	j->len += k;
	while (n > 0)
		j->buf[j->len++] = d[--n];
	j->buf[j->len] = '\0';
}

static void
ja3_comma(struct ja3 *j)
{
	if (j == NULL || j->over)
		return;
	if (j->len + 1 < j->size) {
		j->buf[j->len++] = ',';
		j->buf[j->len] = '\0';
	} else {
		j->over = true;
	}
}

/* A list of 16-bit values (ciphers, groups) or of bytes (point formats)
 * into JA3's field, GREASE aside. */
static void
ja3_list(struct ja3 *j, struct cur *s, size_t width)
{
	unsigned int v;
	bool first = true;

	while (more(s) && get(s, width, &v)) {
		if (width == 2 && grease(v))
			continue;
		ja3_put(j, first ? "" : "-", v);
		first = false;
	}
}

/* server_name: the first host_name entry. */
static void
ext_sni(struct cur *e, struct lr_tls *t)
{
	struct cur list, name;
	unsigned int type;

	if (!vec(e, 2, &list))
		return;
	while (more(&list)) {
		if (!get(&list, 1, &type) || !vec(&list, 2, &name))
			break;
		if (type == 0) {
			if (whole(&name))
				copy(t->sni, &t->sni_len, sizeof(t->sni), &name);
			break;
		}
	}
	merge(e, &list);
}

/* application_layer_protocol_negotiation: the first protocol of the list
 * (the client's first offer, or the one the server chose). */
static bool
ext_alpn(struct cur *e, struct lr_tls *t)
{
	struct cur list, proto;
	bool ok = false;

	if (!vec(e, 2, &list))
		return false;
	if (vec(&list, 1, &proto) && whole(&proto) && proto.end > proto.pos) {
		copy(t->alpn, &t->alpn_len, sizeof(t->alpn), &proto);
		ok = true;
	}
	merge(e, &list);
	return ok;
}

/* A ClientHello's supported_versions: the highest offer, GREASE aside. */
static unsigned int
ext_versions_client(struct cur *e)
{
	struct cur list;
	unsigned int v, best = 0;

	if (!vec(e, 1, &list))
		return 0;
	while (more(&list) && get(&list, 2, &v))
		if (!grease(v) && v > best)
			best = v;
	merge(e, &list);
	return best;
}

static void
client_hello(struct cur *h, struct lr_tls *t, struct ja3 *j)
{
	struct cur sid, ciphers, comp, exts, e, groups, formats;
	unsigned int legacy, type, best;
	bool have_groups = false, have_formats = false, first = true;

	if (!get(h, 2, &legacy) || !skip(h, 32) || !vec(h, 1, &sid) ||
	    !vec(h, 2, &ciphers) || !vec(h, 1, &comp))
		return;
	t->have_client = true;
	t->client_version = (uint16_t)legacy;
	if (!t->have_server)
		t->version = (uint16_t)legacy;
	ja3_put(j, "", legacy);
	ja3_comma(j);
	ja3_list(j, &ciphers, 2);
	merge(h, &ciphers);
	ja3_comma(j);
	if (!more(h)) {		/* no extensions (SSL 3.0 style) */
		ja3_comma(j);
		ja3_comma(j);
		return;
	}
	if (!vec(h, 2, &exts))
		return;
	while (more(&exts)) {
		if (!get(&exts, 2, &type) || !vec(&exts, 2, &e))
			break;
		if (!grease(type)) {
			ja3_put(j, first ? "" : "-", type);
			first = false;
		}
		switch (type) {
		case EXT_SERVER_NAME:
			ext_sni(&e, t);
			break;
		case EXT_ALPN:
			if (!t->alpn_server)
				ext_alpn(&e, t);
			break;
		case EXT_VERSIONS:
			best = ext_versions_client(&e);
			if (best != 0) {
				t->client_version = (uint16_t)best;
				if (!t->have_server)
					t->version = (uint16_t)best;
			}
			break;
		case EXT_GROUPS:
			have_groups = vec(&e, 2, &groups);
			break;
		case EXT_POINT_FORMATS:
			have_formats = vec(&e, 1, &formats);
			break;
		default:
			break;
		}
		merge(&exts, &e);
	}
	merge(h, &exts);
	if (j == NULL || h->cut || h->bad)
		return;
	ja3_comma(j);
	if (have_groups)
		ja3_list(j, &groups, 2);
	ja3_comma(j);
	if (have_formats)
		ja3_list(j, &formats, 1);
}

static void
server_hello(struct cur *h, struct lr_tls *t)
{
	struct cur sid, exts, e;
	unsigned int legacy, type, v;

	if (!get(h, 2, &legacy) || !skip(h, 32) || !vec(h, 1, &sid) ||
	    !skip(h, 2 + 1))	/* the cipher suite, the compression */
		return;
	t->have_server = true;
	t->version = (uint16_t)legacy;
	if (!more(h) || !vec(h, 2, &exts))
		return;
	while (more(&exts)) {
		if (!get(&exts, 2, &type) || !vec(&exts, 2, &e))
			break;
		if (type == EXT_VERSIONS && get(&e, 2, &v))
			t->version = (uint16_t)v;
		else if (type == EXT_ALPN && ext_alpn(&e, t))
			t->alpn_server = true;
		merge(&exts, &e);
	}
	merge(h, &exts);
}

/* A handshake message's header at @p off of the payload: its body in @p h,
 * the bytes given no further than @p stop. */
static enum lr_ext_result
handshake(const uint8_t *p, size_t off, size_t stop, unsigned int *type,
	  struct cur *h)
{
	size_t hs;

	if (stop < off + 4)
		return LR_EXT_TRUNC;
	*type = p[off];
	hs = (size_t)p[off + 1] << 16 | (size_t)p[off + 2] << 8 | p[off + 3];
	h->b = p;
	h->pos = off + 4;
	h->end = off + 4 + hs;
	h->stop = stop < h->end ? stop : h->end;
	h->cut = h->bad = false;
	return LR_EXT_OK;
}

/*
 * The record and handshake headers: NOT unless the payload starts as a
 * handshake record of a ClientHello or ServerHello would (a payload too
 * short to tell, whose bytes agree so far, is TRUNC). The handshake's body
 * in @p h: its end the handshake's length, the bytes given no further than
 * the first record's end.
 */
static enum lr_ext_result
hello(const uint8_t *p, size_t len, unsigned int *type, struct cur *h)
{
	size_t rec = 0;

	if (len == 0 || p[0] != TLS_HANDSHAKE || (len > 1 && p[1] != 3) ||
	    (len > 2 && p[2] > 4) ||
	    (len > 5 && p[5] != HS_CLIENT_HELLO && p[5] != HS_SERVER_HELLO))
		return LR_EXT_NOT;
	if (len > 4) {
		rec = (size_t)p[3] << 8 | p[4];
		if (rec < 4 || rec > TLS_RECORD_MAX)
			return LR_EXT_NOT;
	}
	if (len < 9)
		return LR_EXT_TRUNC;
	return handshake(p, 5, len < 5 + rec ? len : 5 + rec, type, h);
}

static enum lr_ext_result
result_of(const struct cur *c)
{
	return c->bad ? LR_EXT_BAD : c->cut ? LR_EXT_TRUNC : LR_EXT_OK;
}

int
lr_tls_ja3_text(const uint8_t *p, size_t len, char *buf, size_t size)
{
	struct lr_tls t;
	struct ja3 j = { buf, size, 0, size == 0 };
	unsigned int type;
	struct cur h;

	if (size == 0 || hello(p, len, &type, &h) != LR_EXT_OK ||
	    type != HS_CLIENT_HELLO)
		return -1;
	buf[0] = '\0';
	memset(&t, 0, sizeof(t));
	client_hello(&h, &t, &j);
	if (h.cut || h.bad || !t.have_client || j.over)
		return -1;
	return (int)j.len;
}

/* JA3's MD5 of @p text. The digest and its context are fetched and made
 * once per thread: EVP_Digest() with EVP_md5() fetches the algorithm and
 * allocates a context at every call. */
static bool
md5(const char *text, size_t len, uint8_t out[16])
{
	static __thread EVP_MD *md;
	static __thread EVP_MD_CTX *ctx;
	unsigned int n = 0;

	if (unlikely(ctx == NULL)) {
		md = EVP_MD_fetch(NULL, "MD5", NULL);
		ctx = md != NULL ? EVP_MD_CTX_new() : NULL;
		if (ctx == NULL)
			return false;
	}
	return EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
	       EVP_DigestUpdate(ctx, text, len) == 1 &&
	       EVP_DigestFinal_ex(ctx, out, &n) == 1 && n == 16;
}

/* A hello's body into @p t. */
static enum lr_ext_result
parse_body(unsigned int type, struct cur *h, struct lr_tls *t)
{
	char text[2048];	/* 400 ciphers and extensions fit */
	struct ja3 j = { text, sizeof(text), 0, false };

	if (type == HS_SERVER_HELLO) {
		server_hello(h, t);
		return result_of(h);
	}
	text[0] = '\0';
	client_hello(h, t, &j);
	if (!h->cut && !h->bad && t->have_client && !j.over &&
	    md5(text, j.len, t->ja3))
		t->have_ja3 = true;
	return result_of(h);
}

enum lr_ext_result
lr_tls_parse(const uint8_t *p, size_t len, struct lr_tls *t)
{
	enum lr_ext_result r;
	unsigned int type;
	struct cur h;

	r = hello(p, len, &type, &h);
	return r != LR_EXT_OK ? r : parse_body(type, &h, t);
}

enum lr_ext_result
lr_tls_parse_handshake(const uint8_t *p, size_t len, struct lr_tls *t)
{
	enum lr_ext_result r;
	unsigned int type;
	struct cur h;

	if (len > 0 && p[0] != HS_CLIENT_HELLO && p[0] != HS_SERVER_HELLO)
		return LR_EXT_NOT;
	r = handshake(p, 0, len, &type, &h);
	return r != LR_EXT_OK ? r : parse_body(type, &h, t);
}
