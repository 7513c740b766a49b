/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ClientHello in a QUIC client's Initial packets (RFC 9000 §17.2.2,
 * RFC 9001 §5: Initial keys from the Destination Connection ID; RFC 9369:
 * version 2's salt, labels and packet type). Each Initial is unprotected
 * (header protection, then AES-128-GCM) in a copy on the stack, its
 * CRYPTO frames put in place in the stream buffer by offset, and the
 * ClientHello read by the TLS parser once the stream's first bytes hold
 * all of it. HKDF is HMAC-SHA256 (RFC 5869) and the ciphers are OpenSSL's,
 * fetched once per context: OpenSSL 3's one-shot HMAC() fetches its
 * algorithm at every call, 22,000 instructions of the 150,000 an Initial
 * took (tools/bench/probe-ext.sh).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "lr_flowext.h"

#define CID_MAX 20
#define TAG_BYTES 16
#define SAMPLE_BYTES 16

struct lr_quic_ctx {
	EVP_CIPHER_CTX *ecb;
	EVP_CIPHER_CTX *gcm;
	EVP_MAC *mac;
	EVP_MAC_CTX *hmac;	/* HMAC with SHA-256 set, keyed per use */
};

/* A version's Initial salt, its labels' prefix and its Initial type. */
struct version {
	uint32_t version;
	uint8_t salt[20];
	const char *key, *iv, *hp;
	unsigned int initial;	/* the long header's type bits */
};

static const struct version versions[] = {
	{ LR_QUIC_V1,
	  { 0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
	    0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a },
	  "quic key", "quic iv", "quic hp", 0 },
	{ LR_QUIC_V2,
	  { 0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
	    0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9 },
	  "quicv2 key", "quicv2 iv", "quicv2 hp", 1 },
};

struct lr_quic_ctx *
lr_quic_ctx_new(void)
{
	struct lr_quic_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	OSSL_PARAM params[2];

	c->ecb = EVP_CIPHER_CTX_new();
	c->gcm = EVP_CIPHER_CTX_new();
	c->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	c->hmac = c->mac != NULL ? EVP_MAC_CTX_new(c->mac) : NULL;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						     (char *)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	if (c->ecb == NULL || c->gcm == NULL || c->hmac == NULL ||
	    EVP_MAC_CTX_set_params(c->hmac, params) != 1 ||
	    EVP_EncryptInit_ex(c->ecb, EVP_aes_128_ecb(), NULL, NULL, NULL) != 1 ||
	    EVP_DecryptInit_ex(c->gcm, EVP_aes_128_gcm(), NULL, NULL, NULL) != 1) {
		lr_quic_ctx_free(c);
		return NULL;
	}
	EVP_CIPHER_CTX_set_padding(c->ecb, 0);
	return c;
}

void
lr_quic_ctx_free(struct lr_quic_ctx *c)
{
	if (c == NULL)
		return;
	EVP_CIPHER_CTX_free(c->ecb);
	EVP_CIPHER_CTX_free(c->gcm);
	EVP_MAC_CTX_free(c->hmac);
	EVP_MAC_free(c->mac);
	free(c);
}

/* HMAC-SHA256 of @p d keyed with @p key into @p out (32 bytes). */
static bool
hmac(struct lr_quic_ctx *c, const uint8_t *key, size_t key_len,
     const uint8_t *d, size_t len, uint8_t *out)
{
	size_t n = 0;

	return EVP_MAC_init(c->hmac, key, key_len, NULL) == 1 &&
	       EVP_MAC_update(c->hmac, d, len) == 1 &&
	       EVP_MAC_final(c->hmac, out, &n, 32) == 1 && n == 32;
}

/* HKDF-Expand-Label (RFC 8446 §7.1) with an empty context, @p n <= 32:
 * one block of HKDF-Expand. */
static bool
expand_label(struct lr_quic_ctx *c, const uint8_t *secret, const char *label,
	     uint8_t *out, size_t n)
{
	uint8_t info[2 + 1 + 6 + 16 + 1 + 1], md[32];
	size_t l = strlen(label), k = 0;

	info[k++] = (uint8_t)(n >> 8);
	info[k++] = (uint8_t)n;
	info[k++] = (uint8_t)(6 + l);
	memcpy(info + k, "tls13 ", 6);
	k += 6;
	memcpy(info + k, label, l);
	k += l;
	info[k++] = 0;		/* the context: empty */
	info[k++] = 1;		/* HKDF-Expand's counter: T(1) */
	if (!hmac(c, secret, 32, info, k, md))
		return false;
	memcpy(out, md, n);
	return true;
}

/* The client's Initial key, IV and header protection key of @p v. */
static bool
client_keys(struct lr_quic_ctx *c, const struct version *v, const uint8_t *cid,
	    size_t cid_len, uint8_t key[16], uint8_t iv[12], uint8_t hp[16])
{
	uint8_t initial[32], client[32];

	if (!hmac(c, v->salt, sizeof(v->salt), cid, cid_len, initial))
		return false;
	return expand_label(c, initial, "client in", client, 32) &&
	       expand_label(c, client, v->key, key, 16) &&
	       expand_label(c, client, v->iv, iv, 12) &&
	       expand_label(c, client, v->hp, hp, 16);
}

/* A variable-length integer (RFC 9000 §16) at *@p off of [0, len). */
static bool
varint(const uint8_t *p, size_t len, size_t *off, uint64_t *v)
{
	size_t n, i;

	if (*off >= len)
		return false;
	n = (size_t)1 << (p[*off] >> 6);
	if (len - *off < n)
		return false;
	*v = p[*off] & 0x3f;
	for (i = 1; i < n; i++)
		*v = *v << 8 | p[*off + i];
	*off += n;
	return true;
}

/* Put CRYPTO bytes [off, off + n) in the stream buffer; what lies past
 * LR_QUIC_CRYPTO_MAX is dropped (the hello is then said TRUNC for ever).
 * Held ranges merge; with no room for another, false. */
static bool
crypto_put(struct lr_quic_crypto *cs, uint64_t off, const uint8_t *d, uint64_t n)
{
	uint16_t s, e, i, j;

	if (off >= LR_QUIC_CRYPTO_MAX || n == 0)
		return true;
	if (n > LR_QUIC_CRYPTO_MAX - off)
		n = LR_QUIC_CRYPTO_MAX - off;
	memcpy(cs->buf + off, d, n);
	s = (uint16_t)off;
	e = (uint16_t)(off + n);
	/* Merge with every range it touches, keep them sorted. */
	for (i = 0; i < cs->nranges;) {
		if (cs->range[i][1] < s || cs->range[i][0] > e) {
			i++;
			continue;
		}
		if (cs->range[i][0] < s)
			s = cs->range[i][0];
		if (cs->range[i][1] > e)
			e = cs->range[i][1];
		memmove(cs->range[i], cs->range[i + 1],
			sizeof(cs->range[0]) * (cs->nranges - i - 1));
		cs->nranges--;
	}
	if (cs->nranges == LR_QUIC_RANGES)
		return false;
	for (j = 0; j < cs->nranges && cs->range[j][0] < s; j++)
		;
	memmove(cs->range[j + 1], cs->range[j],
		sizeof(cs->range[0]) * (cs->nranges - j));
	cs->range[j][0] = s;
	cs->range[j][1] = e;
	cs->nranges++;
	return true;
}

/* The frames of a decrypted Initial: CRYPTO into @p cs; PADDING, PING,
 * ACK and CONNECTION_CLOSE passed over; any other type breaks RFC 9000
 * §12.4 (not allowed in an Initial). */
static bool
frames(const uint8_t *p, size_t len, struct lr_quic_crypto *cs)
{
	size_t off = 0;
	uint64_t type, a, b, n, i;

	while (off < len) {
		if (!varint(p, len, &off, &type))
			return false;
		switch (type) {
		case 0x00:	/* PADDING */
		case 0x01:	/* PING */
			break;
		case 0x02:	/* ACK: largest, delay, range count, first */
		case 0x03:
			if (!varint(p, len, &off, &a) || !varint(p, len, &off, &a) ||
			    !varint(p, len, &off, &n) || !varint(p, len, &off, &a))
				return false;
			for (i = 0; i < n; i++)
				if (!varint(p, len, &off, &a) || !varint(p, len, &off, &b))
					return false;
			if (type == 0x03)	/* ECN counts */
				for (i = 0; i < 3; i++)
					if (!varint(p, len, &off, &a))
						return false;
			break;
		case 0x06:	/* CRYPTO: offset, length, data */
			if (!varint(p, len, &off, &a) || !varint(p, len, &off, &n) ||
			    n > len - off || a > (1ull << 62) - n)
				return false;
			if (!crypto_put(cs, a, p + off, n))
				return false;
			off += n;
			break;
		case 0x1c:	/* CONNECTION_CLOSE: error, frame type, reason */
			if (!varint(p, len, &off, &a) || !varint(p, len, &off, &a) ||
			    !varint(p, len, &off, &n) || n > len - off)
				return false;
			off += n;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The packet of @p plen bytes at @p p (a copy: unprotected in place):
 * its payload decrypted into @p out. @return the payload's bytes, or -1. */
static int
unprotect(struct lr_quic_ctx *c, const struct version *v, uint8_t *p,
	  size_t plen, size_t pn_off, const uint8_t *cid, size_t cid_len,
	  uint8_t *out)
{
	uint8_t key[16], iv[12], hp[16], mask[16 + 16];
	size_t pn_len, i, ct;
	uint32_t pn = 0;
	int n = 0, m = 0;

	if (plen < pn_off + 4 + SAMPLE_BYTES ||
	    !client_keys(c, v, cid, cid_len, key, iv, hp))
		return -1;
	if (EVP_EncryptInit_ex(c->ecb, NULL, NULL, hp, NULL) != 1 ||
	    EVP_EncryptUpdate(c->ecb, mask, &n, p + pn_off + 4, SAMPLE_BYTES) != 1 ||
	    n != SAMPLE_BYTES)
		return -1;
	p[0] ^= mask[0] & 0x0f;
	pn_len = (p[0] & 0x03) + 1u;
	for (i = 0; i < pn_len; i++) {
		p[pn_off + i] ^= mask[1 + i];
		pn = pn << 8 | p[pn_off + i];
	}
	/* The full packet number: a client's first Initials' are small, the
	 * truncated one is the whole (RFC 9000 §A.3 with none acknowledged). */
	for (i = 0; i < 4; i++)
		iv[11 - i] ^= (uint8_t)(pn >> (8 * i));
	if (plen < pn_off + pn_len + TAG_BYTES)
		return -1;
	ct = plen - pn_off - pn_len - TAG_BYTES;
	if (EVP_DecryptInit_ex(c->gcm, NULL, NULL, key, iv) != 1 ||
	    EVP_DecryptUpdate(c->gcm, NULL, &n, p, (int)(pn_off + pn_len)) != 1 ||
	    EVP_DecryptUpdate(c->gcm, out, &n, p + pn_off + pn_len, (int)ct) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c->gcm, EVP_CTRL_GCM_SET_TAG, TAG_BYTES,
				p + plen - TAG_BYTES) != 1 ||
	    EVP_DecryptFinal_ex(c->gcm, out + n, &m) != 1)
		return -1;
	return n + m;
}

/* The long header of the packet at @p p: its version's entry (NULL: not
 * a v1 or v2 Initial), its DCID, where its packet number starts and its
 * length (pn, payload and tag). */
static const struct version *
initial_header(const uint8_t *p, size_t len, const uint8_t **cid,
	       size_t *cid_len, size_t *pn_off, uint64_t *plen, bool *cut)
{
	const struct version *v = NULL;
	uint32_t ver;
	size_t off, i;
	uint64_t tok;

	*cut = false;
	if (len < 7 || (p[0] & 0xc0) != 0xc0)	/* long header, fixed bit */
		return NULL;
	ver = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 |
	      (uint32_t)p[3] << 8 | p[4];
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].version == ver)
			v = &versions[i];
	if (v == NULL || ((p[0] >> 4) & 0x03) != v->initial)
		return NULL;
	*cid_len = p[5];
	if (*cid_len > CID_MAX)
		return NULL;
	off = 6 + *cid_len;
	*cid = p + 6;
	if (off >= len || p[off] > CID_MAX || off + 1 + p[off] > len) {
		*cut = true;
		return v;
	}
	off += 1 + p[off];		/* the source CID */
	if (!varint(p, len, &off, &tok) || tok > len - off) {
		*cut = true;
		return v;
	}
	off += tok;
	if (!varint(p, len, &off, plen)) {
		*cut = true;
		return v;
	}
	*pn_off = off;
	if (*plen > len - off)
		*cut = true;
	return v;
}

/* The ClientHello, once the stream's first range (from 0) holds it. */
static enum lr_ext_result
hello_of(struct lr_quic *q, const struct lr_quic_crypto *cs)
{
	enum lr_ext_result r;
	struct lr_tls t;

	if (q->have_hello)
		return LR_EXT_OK;
	if (cs->nranges == 0 || cs->range[0][0] != 0)
		return LR_EXT_TRUNC;
	memset(&t, 0, sizeof(t));
	r = lr_tls_parse_handshake(cs->buf, cs->range[0][1], &t);
	if (r == LR_EXT_OK && t.have_client) {
		q->tls = t;
		q->have_hello = true;
		return LR_EXT_OK;
	}
	return r == LR_EXT_BAD || r == LR_EXT_NOT ? LR_EXT_BAD : LR_EXT_TRUNC;
}

enum lr_ext_result
lr_quic_frames(struct lr_quic *q, struct lr_quic_crypto *cs, const uint8_t *p,
	       size_t len)
{
	if (!frames(p, len, cs))
		return LR_EXT_BAD;
	return hello_of(q, cs);
}

enum lr_ext_result
lr_quic_parse(struct lr_quic_ctx *c, const uint8_t *p, size_t len,
	      struct lr_quic *q, struct lr_quic_crypto *cs)
{
	uint8_t pkt[LR_QUIC_DATAGRAM_MAX], plain[LR_QUIC_DATAGRAM_MAX];
	const struct version *v;
	const uint8_t *cid;
	size_t cid_len, pn_off = 0, whole;
	uint64_t plen = 0;
	bool cut, any = false;
	int n;

	while (len > 0) {
		v = initial_header(p, len, &cid, &cid_len, &pn_off, &plen, &cut);
		if (v == NULL)
			break;		/* the rest: 0-RTT, Handshake, ... */
		if (cut)
			return LR_EXT_TRUNC;
		whole = pn_off + plen;
		if (whole > sizeof(pkt))
			return LR_EXT_BAD;
		memcpy(pkt, p, whole);
		n = unprotect(c, v, pkt, whole, pn_off, pkt + 6, cid_len, plain);
		if (n < 0 || !frames(plain, (size_t)n, cs))
			return LR_EXT_BAD;
		q->version = v->version;
		q->packets++;
		any = true;
		p += whole;
		len -= whole;
	}
	return any ? hello_of(q, cs) : LR_EXT_NOT;
}
