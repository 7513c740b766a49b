/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe's flow extensions (--flow-ext tls,quic): what a flow's first
 * payloads say about its application, kept in a side table indexed by the
 * flow's slot in the cache and put in its record as it ends.
 *
 * A new TCP or UDP flow is looked at until its application's fields are
 * whole (a TLS ClientHello and the ServerHello; a QUIC client's hello),
 * the parsers all said its first payload is none of theirs, or LOOK_MAX
 * of its packets carried payload; from then on the cache never calls here for it
 * (lr_flowcache.h's ext). Each entry of the side table is the flow's
 * state and the largest struct of the extensions enabled: that is the
 * memory per flow (lr_probe_ext_bytes()). A hello that does not come
 * whole in one payload (a TLS ClientHello over TCP segments, a QUIC hello
 * over several Initials) borrows a buffer (4 KiB) from a pool of POOL
 * per task while it is incomplete; with none free the flow is counted
 * (pool_full) and read no further.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "lr_bigmem.h"
#include "lr_common.h"
#include "probe_internal.h"

#define LOOK_MAX 8		/* payload packets a flow is looked at for */
#define POOL 256		/* hellos put together at once, per task */

/* A flow's state: its application, once a parser claimed it. */
struct ext_head {
	uint8_t app;		/* enum lr_app, NONE: not (yet) claimed */
	uint8_t looked;		/* payload packets looked at */
	uint16_t crypto;	/* its pool buffer + 1, 0: none */
	uint8_t result;		/* the last parse's enum lr_ext_result */
	uint8_t asm_rev;	/* TLS: the direction its buffer takes */
	uint8_t pad[2];
};

struct probe_ext {
	unsigned int apps;		/* 1 << enum lr_app enabled */
	size_t stride;			/* bytes of a side table entry */
	struct lr_bigmem mem;
	uint8_t *side;
	struct lr_quic_ctx *quic;
	struct lr_quic_crypto *pool;
	uint16_t free_top;
	uint16_t free[POOL];
	struct lr_probe_ext_counts c;
};

static const char *const app_names[LR_APP_KINDS] = {
	[LR_APP_TLS] = "tls", [LR_APP_QUIC] = "quic",
	[LR_APP_DNS] = "dns", [LR_APP_HTTP] = "http",
};

/* The fields' size of each application. */
static size_t
app_bytes(unsigned int app)
{
	switch (app) {
	case LR_APP_TLS:
		return sizeof(struct lr_tls);
	case LR_APP_QUIC:
		return sizeof(struct lr_quic);
	case LR_APP_DNS:
		return sizeof(struct lr_dns);
	case LR_APP_HTTP:
		return sizeof(struct lr_http);
	default:
		return 0;
	}
}

int
lr_probe_ext_parse(const char *val, uint8_t *apps)
{
	char buf[128], *tok, *save;
	unsigned int a;

	*apps = 0;
	if (strcmp(val, "none") == 0 || val[0] == '\0')
		return 0;
	if (strlen(val) >= sizeof(buf))
		return lr_err(EINVAL, "probe: flow-ext '%s': too long", val);
	snprintf(buf, sizeof(buf), "%s", val);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		for (a = LR_APP_TLS; a < LR_APP_KINDS; a++)
			if (app_bytes(a) != 0 && strcmp(tok, app_names[a]) == 0)
				break;
		if (a == LR_APP_KINDS)
			return lr_err(EINVAL, "probe: flow-ext '%s': want a comma "
				      "list of tls, quic, dns, http (or none)", tok);
		*apps |= (uint8_t)(1u << a);
	}
	return 0;
}

size_t
lr_probe_ext_bytes(uint8_t apps)
{
	size_t n = 0;
	unsigned int a;

	for (a = LR_APP_TLS; a < LR_APP_KINDS; a++)
		if (apps & (1u << a))
			n = RTE_MAX(n, app_bytes(a));
	return n == 0 ? 0 : RTE_ALIGN(sizeof(struct ext_head) + n, 8);
}

static inline struct ext_head *
head_of(struct probe_ext *x, uint32_t slot)
{
	return (struct ext_head *)(x->side + (size_t)slot * x->stride);
}

static inline union lr_app_fields *
fields_of(struct ext_head *h)
{
	return (union lr_app_fields *)(h + 1);
}

static void
crypto_put_back(struct probe_ext *x, struct ext_head *h)
{
	if (h->crypto != 0) {
		x->free[x->free_top++] = (uint16_t)(h->crypto - 1);
		h->crypto = 0;
	}
}

/* A pool buffer for @p h, its ranges cleared; false: none free. */
static bool
borrow(struct probe_ext *x, struct ext_head *h)
{
	if (h->crypto != 0)
		return true;
	if (x->free_top == 0) {
		x->c.pool_full++;
		return false;
	}
	h->crypto = (uint16_t)(x->free[--x->free_top] + 1);
	memset(&x->pool[h->crypto - 1], 0, offsetof(struct lr_quic_crypto, buf));
	return true;
}

/* A TLS hello cut by its segment: its bytes put after those before it in
 * the flow's buffer, the hello read again from the start. The fields of
 * the other side (a ServerHello's) stay. */
static enum lr_ext_result
tls_assemble(struct probe_ext *x, struct ext_head *h, const uint8_t *l4,
	     uint32_t len)
{
	struct lr_quic_crypto *b = &x->pool[h->crypto - 1];
	struct lr_tls *t = &fields_of(h)->tls, n;
	uint32_t have = b->range[0][1], add = RTE_MIN(len, LR_QUIC_CRYPTO_MAX - have);
	enum lr_ext_result r;

	memcpy(b->buf + have, l4, add);
	b->range[0][1] = (uint16_t)(have + add);
	memset(&n, 0, sizeof(n));
	r = lr_tls_parse(b->buf, b->range[0][1], &n);
	if (!n.have_client) {		/* the server's hello, cut */
		if (n.have_server) {
			t->have_server = true;
			t->version = n.version;
			if (n.alpn_server) {
				memcpy(t->alpn, n.alpn, n.alpn_len);
				t->alpn_len = n.alpn_len;
				t->alpn_server = true;
			}
		}
		return r;
	}
	memcpy(t->sni, n.sni, n.sni_len);
	t->sni_len = n.sni_len;
	if (!t->alpn_server) {
		memcpy(t->alpn, n.alpn, n.alpn_len);
		t->alpn_len = n.alpn_len;
	}
	t->client_version = n.client_version;
	if (!t->have_server)
		t->version = n.version;
	t->have_client = true;
	t->have_ja3 = n.have_ja3;
	memcpy(t->ja3, n.ja3, sizeof(t->ja3));
	return r;
}

/* The parsers of the packet's protocol, in turn, until one claims it. */
static enum lr_ext_result
claim(struct probe_ext *x, struct ext_head *h, const struct lr_parsed *p,
      bool reverse, const uint8_t *l4, uint32_t len)
{
	union lr_app_fields *f = fields_of(h);
	enum lr_ext_result r;

	if (p->proto == 6 && (x->apps & (1u << LR_APP_TLS))) {
		memset(&f->tls, 0, sizeof(f->tls));
		r = lr_tls_parse(l4, len, &f->tls);
		if (r != LR_EXT_NOT) {
			h->app = LR_APP_TLS;
			/* Cut by its segment: the rest comes in the next. */
			if (r == LR_EXT_TRUNC && borrow(x, h)) {
				h->asm_rev = reverse;
				memset(&f->tls, 0, sizeof(f->tls));
				r = tls_assemble(x, h, l4, len);
			}
			return r;
		}
	}
	if (p->proto == 6 && (x->apps & (1u << LR_APP_HTTP))) {
		r = lr_http_parse(l4, len, &f->http);
		if (r != LR_EXT_NOT) {
			h->app = LR_APP_HTTP;
			return r;
		}
	}
	/* A client's Initial: not the server's (other keys). */
	if (p->proto == 17 && !reverse && (x->apps & (1u << LR_APP_QUIC)) &&
	    len > 0 && (l4[0] & 0xc0) == 0xc0) {
		if (!borrow(x, h))
			return LR_EXT_NOT;
		memset(&f->quic, 0, sizeof(f->quic));
		r = lr_quic_parse(x->quic, l4, len, &f->quic, &x->pool[h->crypto - 1]);
		if (r != LR_EXT_NOT) {
			h->app = LR_APP_QUIC;
			return r;
		}
		crypto_put_back(x, h);
	}
	/* DNS on its port only: its header says too little to tell it from
	 * any other UDP payload. */
	if (p->proto == 17 && (x->apps & (1u << LR_APP_DNS)) &&
	    (p->sport == 53 || p->dport == 53)) {
		r = lr_dns_parse(l4, len, &f->dns);
		if (r != LR_EXT_NOT) {
			h->app = LR_APP_DNS;
			return r;
		}
	}
	return LR_EXT_NOT;
}

/* The next payload of a flow whose application is known. */
static enum lr_ext_result
more(struct probe_ext *x, struct ext_head *h, bool reverse, const uint8_t *l4,
     uint32_t len)
{
	union lr_app_fields *f = fields_of(h);

	switch (h->app) {
	case LR_APP_TLS:
		if (h->crypto != 0 && reverse == h->asm_rev)
			return tls_assemble(x, h, l4, len);
		return lr_tls_parse(l4, len, &f->tls);
	case LR_APP_QUIC:
		if (reverse || h->crypto == 0)
			return LR_EXT_NOT;
		return lr_quic_parse(x->quic, l4, len, &f->quic,
				     &x->pool[h->crypto - 1]);
	case LR_APP_HTTP:
		return lr_http_parse(l4, len, &f->http);
	case LR_APP_DNS: {
		/* The response repeats the question: it tells all. A
		 * message that is not DNS leaves the query's fields. */
		struct lr_dns d;
		enum lr_ext_result r = lr_dns_parse(l4, len, &d);

		if (r != LR_EXT_NOT && (d.response || !f->dns.response))
			f->dns = d;
		return r;
	}
	default:
		return LR_EXT_NOT;
	}
}

/* Are the flow's fields whole (nothing more to look for)? */
static bool
whole(struct ext_head *h)
{
	const union lr_app_fields *f = fields_of(h);

	switch (h->app) {
	case LR_APP_TLS:
		return f->tls.have_client && f->tls.have_server;
	case LR_APP_QUIC:
		return f->quic.have_hello;
	case LR_APP_DNS:
		return f->dns.response;
	case LR_APP_HTTP:
		return f->http.have_request && f->http.have_response;
	default:
		return false;
	}
}

/* Did the flow give any field (a hello read, an Initial decrypted)? */
static bool
found(struct ext_head *h)
{
	const union lr_app_fields *f = fields_of(h);

	switch (h->app) {
	case LR_APP_TLS:
		return f->tls.have_client || f->tls.have_server;
	case LR_APP_QUIC:
		return f->quic.packets > 0;
	case LR_APP_DNS:
		return f->dns.qtype != 0 || f->dns.response;
	case LR_APP_HTTP:
		return f->http.have_request || f->http.have_response;
	default:
		return false;
	}
}

bool
lr_probe_ext_packet(void *arg, uint32_t slot, bool created, bool reverse,
		    const struct lr_parsed *p, const uint8_t *l4, uint32_t len)
{
	struct probe_ext *x = arg;
	struct ext_head *h = head_of(x, slot);
	enum lr_ext_result r;

	if (created) {
		crypto_put_back(x, h);
		memset(h, 0, sizeof(*h));
	}
	if (len == 0)
		return true;		/* a TCP handshake: look on */
	h->looked++;
	r = h->app == LR_APP_NONE ? claim(x, h, p, reverse, l4, len) :
	    more(x, h, reverse, l4, len);
	if (r != LR_EXT_NOT)
		h->result = (uint8_t)r;
	x->c.parsed[r]++;
	/* A TLS hello put together and whole: its buffer goes back. */
	if (h->app == LR_APP_TLS && h->crypto != 0 && r != LR_EXT_TRUNC)
		crypto_put_back(x, h);
	/* Done: whole, malformed, none of the parsers' at its first payload
	 * (each application speaks first: a client's hello, a query), or
	 * looked at long enough. */
	if (whole(h) || r == LR_EXT_BAD || h->app == LR_APP_NONE ||
	    h->looked >= LOOK_MAX) {
		crypto_put_back(x, h);
		return false;
	}
	return true;
}

void
lr_probe_ext_end(void *arg, uint32_t slot, struct lr_flow_rec_app *out)
{
	struct probe_ext *x = arg;
	struct ext_head *h = head_of(x, slot);

	crypto_put_back(x, h);
	if (h->app == LR_APP_NONE || !found(h)) {
		h->app = LR_APP_NONE;
		return;		/* a broken hello, an Initial that did not
				 * decrypt: counted, not exported */
	}
	x->c.flows[h->app]++;
	if (!whole(h))
		x->c.partial[h->app]++;
	out->r.app = h->app;
	memcpy(&out->f, fields_of(h), app_bytes(h->app));
	h->app = LR_APP_NONE;
}

struct probe_ext *
lr_probe_ext_new(uint8_t apps, uint32_t capacity, int socket)
{
	struct probe_ext *x;
	unsigned int i;

	x = rte_zmalloc_socket("lr_probe_ext", sizeof(*x), RTE_CACHE_LINE_SIZE,
			       socket);
	if (x == NULL)
		return lr_err_null(ENOMEM, "probe: no memory for flow extensions");
	x->apps = apps;
	x->stride = lr_probe_ext_bytes(apps);
	lr_bigmem_alloc(&x->mem, "lr_probe_ext_side", x->stride * capacity, socket);
	x->side = x->mem.p;
	if (x->side == NULL) {
		lr_probe_ext_free(x);
		return lr_err_null(ENOMEM, "probe: no memory for the flow "
				   "extensions' %zu B a flow of %u flows",
				   x->stride, capacity);
	}
	memset(x->side, 0, x->stride * capacity);
	x->pool = rte_malloc_socket("lr_probe_ext_pool", sizeof(*x->pool) * POOL,
				    RTE_CACHE_LINE_SIZE, socket);
	if (x->pool == NULL) {
		lr_probe_ext_free(x);
		return lr_err_null(ENOMEM, "probe: no memory for the hellos' buffers");
	}
	for (i = 0; i < POOL; i++)
		x->free[i] = (uint16_t)(POOL - 1 - i);
	x->free_top = POOL;
	if (apps & (1u << LR_APP_QUIC)) {
		x->quic = lr_quic_ctx_new();
		if (x->quic == NULL) {
			lr_probe_ext_free(x);
			return lr_err_null(ENOMEM, "probe: no memory for QUIC");
		}
	}
	return x;
}

void
lr_probe_ext_free(struct probe_ext *x)
{
	if (x == NULL)
		return;
	lr_quic_ctx_free(x->quic);
	rte_free(x->pool);
	lr_bigmem_free(&x->mem);
	rte_free(x);
}

/* The task's "flow_ext" object: what it looked for, its memory per flow,
 * what the parsers made of the payloads, the records it filled. */
void
lr_probe_ext_json(const struct probe_ext *x, json_t *o)
{
	static const char *const result[] = { "ok", "not", "truncated", "malformed" };
	json_t *e = json_object(), *apps = json_array(), *pl = json_object(),
	       *rec = json_object(), *part = json_object();
	unsigned int a, i;

	for (a = LR_APP_TLS; a < LR_APP_KINDS; a++) {
		if (!(x->apps & (1u << a)))
			continue;
		json_array_append_new(apps, json_string(app_names[a]));
		json_object_set_new(rec, app_names[a],
				    json_integer((json_int_t)x->c.flows[a]));
		json_object_set_new(part, app_names[a],
				    json_integer((json_int_t)x->c.partial[a]));
	}
	for (i = 0; i < RTE_DIM(result); i++)
		json_object_set_new(pl, result[i],
				    json_integer((json_int_t)x->c.parsed[i]));
	json_object_set_new(e, "apps", apps);
	json_object_set_new(e, "bytes_per_flow", json_integer((json_int_t)x->stride));
	json_object_set_new(e, "payloads", pl);
	json_object_set_new(e, "records", rec);
	json_object_set_new(e, "partial", part);
	json_object_set_new(e, "pool_full",
			    json_integer((json_int_t)x->c.pool_full));
	json_object_set_new(o, "flow_ext", e);
}
