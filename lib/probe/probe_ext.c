/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe's flow extensions (--flow-ext tls,quic,...): what a flow's
 * first payloads say about its application, and what its first packets
 * look like (basicplus, pstats), kept in a side table indexed by the
 * flow's slot in the cache and put in its record as it ends.
 *
 * A new TCP or UDP flow is looked at until its application's fields are
 * whole (a TLS ClientHello and the ServerHello; a QUIC client's hello),
 * the parsers all said its first payload is none of theirs, or LOOK_MAX
 * of its packets carried payload. basicplus looks until it saw each
 * direction's first packet, pstats until it holds LR_PSTATS_MAX packets
 * with payload; none looks past SEEN_MAX packets. From then on the cache
 * never calls here for the flow (lr_flowcache.h's ext). Each entry of the
 * side table is the flow's state, the flow-wide extensions' structs and
 * the largest struct of the applications enabled: that is the memory per
 * flow (lr_probe_ext_bytes()). A hello that does not come
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
#include "lr_pkt.h"
#include "probe_internal.h"

#define LOOK_MAX 8		/* payload packets a flow is looked at for */
#define SEEN_MAX 128		/* packets, payload or not, at most */
#define POOL 256		/* hellos put together at once, per task */

enum head_state {
	APP_DONE = 1,		/* the applications' parsers are done */
	XTRA_SET = 2,		/* the flow-wide structs are this flow's */
};

/* A flow's state: its application, once a parser claimed it. */
struct ext_head {
	uint8_t app;		/* enum lr_app, NONE: not (yet) claimed */
	uint8_t looked;		/* payload packets looked at */
	uint16_t crypto;	/* its pool buffer + 1, 0: none */
	uint8_t result;		/* the last parse's enum lr_ext_result */
	uint8_t asm_rev;	/* TLS: the direction its buffer takes */
	uint8_t seen;		/* packets looked at, payload or not */
	uint8_t state;		/* enum head_state bits */
};

struct probe_ext {
	unsigned int apps;		/* 1 << enum lr_app enabled */
	unsigned int xtra;		/* enum lr_xtra enabled */
	bool biflow;			/* basicplus looks for both directions */
	size_t stride;			/* bytes of a side table entry */
	size_t bp_off, ps_off, lbl_off, app_off; /* of an entry's structs,
						  * 0: none */
	struct lr_ndpi *ndpi;		/* --flow-ext app */
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
static const char *const xtra_names[] = { "basicplus", "pstats", "app" };

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
lr_probe_ext_parse(const char *val, uint8_t *ext)
{
	char buf[128], *tok, *save;
	unsigned int a, i;

	*ext = 0;
	if (strcmp(val, "none") == 0 || val[0] == '\0')
		return 0;
	if (strlen(val) >= sizeof(buf))
		return lr_err(EINVAL, "probe: flow-ext '%s': too long", val);
	snprintf(buf, sizeof(buf), "%s", val);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < RTE_DIM(xtra_names); i++)
			if (strcmp(tok, xtra_names[i]) == 0)
				break;
		if (i < RTE_DIM(xtra_names)) {
			*ext |= (uint8_t)(1u << (LR_EXT_XTRA_SHIFT + i));
			continue;
		}
		for (a = LR_APP_TLS; a < LR_APP_KINDS; a++)
			if (app_bytes(a) != 0 && strcmp(tok, app_names[a]) == 0)
				break;
		if (a == LR_APP_KINDS)
			return lr_err(EINVAL, "probe: flow-ext '%s': want a comma "
				      "list of tls, quic, dns, http, basicplus, "
				      "pstats (or none)", tok);
		*ext |= (uint8_t)(1u << a);
	}
	return 0;
}

/* An entry's layout: the head, basicplus, pstats, the application's
 * fields; offsets 0 for what is not enabled. @return its bytes. */
static size_t
layout(uint8_t ext, size_t *bp_off, size_t *ps_off, size_t *lbl_off,
       size_t *app_off)
{
	unsigned int xtra = ext >> LR_EXT_XTRA_SHIFT, a;
	size_t n = sizeof(struct ext_head), app = 0;

	*bp_off = *ps_off = *lbl_off = *app_off = 0;
	if (xtra & LR_XTRA_BPLUS) {
		*bp_off = n;
		n += sizeof(struct lr_bplus);
	}
	if (xtra & LR_XTRA_PSTATS) {
		*ps_off = n;
		n += sizeof(struct lr_pstats);
	}
	if (xtra & LR_XTRA_LABEL) {
		n = RTE_ALIGN(n, 8);
		*lbl_off = n;
		n += sizeof(struct lr_ndpi_side);
	}
	for (a = LR_APP_TLS; a < LR_APP_KINDS; a++)
		if (ext & (1u << a))
			app = RTE_MAX(app, app_bytes(a));
	if (app != 0) {
		*app_off = n;
		n += app;
	}
	return n == sizeof(struct ext_head) ? 0 : RTE_ALIGN(n, 8);
}

size_t
lr_probe_ext_bytes(uint8_t ext)
{
	size_t bp, ps, lbl, app;

	return layout(ext, &bp, &ps, &lbl, &app);
}

static inline struct ext_head *
head_of(struct probe_ext *x, uint32_t slot)
{
	return (struct ext_head *)(x->side + (size_t)slot * x->stride);
}

static inline union lr_app_fields *
fields_of(const struct probe_ext *x, struct ext_head *h)
{
	return (union lr_app_fields *)((uint8_t *)h + x->app_off);
}

static inline struct lr_bplus *
bplus_of(const struct probe_ext *x, struct ext_head *h)
{
	return (struct lr_bplus *)((uint8_t *)h + x->bp_off);
}

static inline struct lr_pstats *
pstats_of(const struct probe_ext *x, struct ext_head *h)
{
	return (struct lr_pstats *)((uint8_t *)h + x->ps_off);
}

static inline struct lr_ndpi_side *
label_of(const struct probe_ext *x, struct ext_head *h)
{
	return (struct lr_ndpi_side *)((uint8_t *)h + x->lbl_off);
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
	struct lr_tls *t = &fields_of(x, h)->tls, n;
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
	union lr_app_fields *f = fields_of(x, h);
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
	union lr_app_fields *f = fields_of(x, h);

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
whole(const struct probe_ext *x, struct ext_head *h)
{
	const union lr_app_fields *f = fields_of(x, h);

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
found(const struct probe_ext *x, struct ext_head *h)
{
	const union lr_app_fields *f = fields_of(x, h);

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

/* The applications' parsers on a packet: false when they are done with
 * the flow. */
static bool
app_packet(struct probe_ext *x, struct ext_head *h, const struct lr_fc_ext_pkt *k)
{
	enum lr_ext_result r;

	if (k->len == 0)
		return true;		/* a TCP handshake: look on */
	h->looked++;
	r = h->app == LR_APP_NONE ?
	    claim(x, h, k->p, k->reverse, k->l4, k->len) :
	    more(x, h, k->reverse, k->l4, k->len);
	if (r != LR_EXT_NOT)
		h->result = (uint8_t)r;
	x->c.parsed[r]++;
	/* A TLS hello put together and whole: its buffer goes back. */
	if (h->app == LR_APP_TLS && h->crypto != 0 && r != LR_EXT_TRUNC)
		crypto_put_back(x, h);
	/* Done: whole, malformed, none of the parsers' at its first payload
	 * (each application speaks first: a client's hello, a query), or
	 * looked at long enough. */
	if (whole(x, h) || r == LR_EXT_BAD || h->app == LR_APP_NONE ||
	    h->looked >= LOOK_MAX) {
		crypto_put_back(x, h);
		return false;
	}
	return true;
}

/* The IPv4 flags of @p k's packet (DF 0x40, MF 0x20, as fragmentFlags
 * has them), 0 for IPv6: its header found again by the locator (the
 * parser keeps no L3 offset: a byte more on every packet for a field
 * read once a flow). */
static uint8_t
ip_flags(const struct lr_fc_ext_pkt *k)
{
	struct lr_pkt pk;

	if (k->p->ipv6 ||
	    lr_pkt_locate(k->frame, k->frame_len, k->frame_len, &pk) != LR_PKT_OK ||
	    pk.l3 == 0 || pk.l3type != LR_PKT_L3_IPV4)
		return 0;
	return k->frame[pk.l3 + 6] & 0x60;
}

/* basicplus: each direction's first packet (TTL, IP flags, TCP window),
 * the options (and MSS) of the packets up to the reverse direction's first
 * (biflow; else the first: a TCP handshake's), a SYN's size among them.
 * False when it has what it looks for. */
static bool
bplus_packet(struct probe_ext *x, struct ext_head *h,
	     const struct lr_fc_ext_pkt *k)
{
	struct lr_bplus *b = bplus_of(x, h);
	const struct lr_parsed *p = k->p;
	unsigned int d = k->reverse;
	uint32_t off = p->l4_off, hl;
	const uint8_t *t = k->frame + off;
	uint8_t all = x->biflow ? 3 : 1;

	if (b->seen == all)
		return false;		/* pstats looks on: not for these */
	if (!(b->seen & (1u << d))) {
		b->seen |= (uint8_t)(1u << d);
		b->ttl[d] = p->ttl;
		b->ip_flags[d] = ip_flags(k);
		if (p->proto == 6 && off != 0 && off + 20 <= k->frame_len)
			b->win[d] = (uint16_t)(t[14] << 8 | t[15]);
	}
	if (p->proto == 6 && off != 0 && off + 20 <= k->frame_len) {
		hl = (uint32_t)(t[12] >> 4) * 4;
		if (hl > 20)
			lr_tcp_options(t + 20, RTE_MIN(hl, k->frame_len - off) - 20,
				       &b->tcp_opt[d], &b->mss[d]);
		if ((p->tcp_flags & 0x12) == 0x02)	/* SYN, no ACK */
			b->syn_size = (uint16_t)RTE_MIN(p->ip_bytes, 65535u);
	}
	return b->seen != all;
}

/* pstats: the first LR_PSTATS_MAX packets with payload, as ipfixprobe's
 * (their L4 payload's bytes at hand: all but under --trim). False when
 * it holds them. */
static bool
pstats_packet(struct probe_ext *x, struct ext_head *h,
	      const struct lr_fc_ext_pkt *k)
{
	struct lr_pstats *s = pstats_of(x, h);
	uint64_t dt;

	if (s->n >= LR_PSTATS_MAX)
		return false;
	if (k->len == 0)
		return true;
	if (s->n == 0)
		s->base_ns = k->now_ns;
	/* A capture's packets may come out of order: never before the
	 * first's time. */
	dt = k->now_ns > s->base_ns ? (k->now_ns - s->base_ns) / 1000 : 0;
	s->dt_us[s->n] = (uint32_t)RTE_MIN(dt, (uint64_t)UINT32_MAX);
	s->len[s->n] = (uint16_t)RTE_MIN(k->len, 65535u);
	s->flags[s->n] = (uint8_t)k->p->tcp_flags;
	s->dir[s->n] = k->reverse ? -1 : 1;
	s->n++;
	return s->n < LR_PSTATS_MAX;
}

bool
lr_probe_ext_packet(void *arg, uint32_t slot, const struct lr_fc_ext_pkt *k)
{
	struct probe_ext *x = arg;
	struct ext_head *h = head_of(x, slot);
	bool more = false;

	if (k->created) {
		crypto_put_back(x, h);
		memset(h, 0, sizeof(*h));
		h->state = (uint8_t)(XTRA_SET | (x->apps == 0 ? APP_DONE : 0));
		if (x->bp_off != 0)
			memset(bplus_of(x, h), 0, sizeof(struct lr_bplus));
		if (x->ps_off != 0)
			pstats_of(x, h)->n = 0;
		if (x->lbl_off != 0) {
			/* A slot's last flow gave its loan back at its end. */
			memset(label_of(x, h), 0, sizeof(struct lr_ndpi_side));
		}
	}
	if (x->bp_off != 0)
		more |= bplus_packet(x, h, k);
	if (x->ps_off != 0)
		more |= pstats_packet(x, h, k);
	if (x->lbl_off != 0)
		more |= lr_ndpi_packet(x->ndpi, label_of(x, h), k);
	if (!(h->state & APP_DONE)) {
		if (app_packet(x, h, k))
			more = true;
		else
			h->state |= APP_DONE;
	}
	if (++h->seen >= SEEN_MAX && more) {
		crypto_put_back(x, h);
		if (x->lbl_off != 0)
			lr_ndpi_end(x->ndpi, label_of(x, h));
		more = false;
	}
	return more;
}

void
lr_probe_ext_end(void *arg, uint32_t slot, struct lr_flow_rec_app *out)
{
	struct probe_ext *x = arg;
	struct ext_head *h = head_of(x, slot);
	bool set = (h->state & XTRA_SET) != 0;

	crypto_put_back(x, h);
	h->state = 0;
	/* The flow-wide structs: every record carries them, zero for a flow
	 * never looked at (not TCP or UDP). */
	if (x->bp_off != 0) {
		if (set && bplus_of(x, h)->seen != 0) {
			out->x.bp = *bplus_of(x, h);
			x->c.xtra[0]++;
		} else {
			memset(&out->x.bp, 0, sizeof(out->x.bp));
		}
	}
	if (x->ps_off != 0) {
		const struct lr_pstats *s = pstats_of(x, h);

		if (set && s->n != 0) {
			memcpy(&out->x.ps, s, offsetof(struct lr_pstats, pad));
			x->c.xtra[1]++;
		} else {
			out->x.ps.n = 0;
		}
	}
	if (x->lbl_off != 0) {
		struct lr_ndpi_side *l = label_of(x, h);

		if (set)
			lr_ndpi_end(x->ndpi, l);
		if (set && l->done && l->l.name_len != 0) {
			out->x.lbl = l->l;
			x->c.xtra[2]++;
		} else {
			memset(&out->x.lbl, 0, sizeof(out->x.lbl));
		}
	}
	if (h->app == LR_APP_NONE || !found(x, h)) {
		h->app = LR_APP_NONE;
		return;		/* a broken hello, an Initial that did not
				 * decrypt: counted, not exported */
	}
	x->c.flows[h->app]++;
	if (!whole(x, h))
		x->c.partial[h->app]++;
	out->r.app = h->app;
	memcpy(&out->f, fields_of(x, h), app_bytes(h->app));
	h->app = LR_APP_NONE;
}

struct probe_ext *
lr_probe_ext_new(uint8_t ext, uint32_t ndpi_flows, bool biflow, uint32_t capacity,
		 int socket)
{
	struct probe_ext *x;
	unsigned int i;

	x = rte_zmalloc_socket("lr_probe_ext", sizeof(*x), RTE_CACHE_LINE_SIZE,
			       socket);
	if (x == NULL)
		return lr_err_null(ENOMEM, "probe: no memory for flow extensions");
	x->apps = ext & LR_EXT_APPS;
	x->xtra = ext >> LR_EXT_XTRA_SHIFT;
	x->biflow = biflow;
	x->stride = layout(ext, &x->bp_off, &x->ps_off, &x->lbl_off, &x->app_off);
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
	if (x->lbl_off != 0) {
		x->ndpi = lr_ndpi_new(ndpi_flows, socket);
		if (x->ndpi == NULL) {
			lr_probe_ext_free(x);
			return NULL;
		}
	}
	if (x->apps & (1u << LR_APP_QUIC)) {
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
	lr_ndpi_free(x->ndpi);
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
	for (i = 0; i < RTE_DIM(xtra_names); i++) {
		if (!(x->xtra & (1u << i)))
			continue;
		json_array_append_new(apps, json_string(xtra_names[i]));
		json_object_set_new(rec, xtra_names[i],
				    json_integer((json_int_t)x->c.xtra[i]));
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
	if (x->ndpi != NULL) {
		const struct lr_ndpi_counts *n = lr_ndpi_counts(x->ndpi);

		json_object_set_new(e, "labels", json_pack(
			"{s:s, s:I, s:I, s:I, s:I, s:I}",
			"ndpi", lr_ndpi_version(),
			"packets", (json_int_t)n->packets,
			"named", (json_int_t)n->named,
			"guessed", (json_int_t)n->guessed,
			"unknown", (json_int_t)n->unknown,
			"pool_full", (json_int_t)n->pool_full));
	}
	json_object_set_new(o, "flow_ext", e);
}
