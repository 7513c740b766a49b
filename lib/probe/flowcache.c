/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "lr_bigmem.h"
#include "lr_common.h"
#include "lr_flowcache.h"
#include "lr_frag.h"

#define TCP_FIN 0x01
#define TCP_RST 0x04
#define NS 1000000000ull

/* A flow in the cache: what its record needs, nothing else, in two parts.
 * The key and what every packet of the flow writes but the bytes fill one
 * cache line, so that a lookup touches that line and no other: the key's
 * 5 bytes of padding hold the flow's flags, TTLs, ToS and direction, which
 * key_eq() leaves out. The first time and the bytes are its tail, 16 bytes
 * in the bucket's last two lines. A record of 88 bytes in one piece
 * spanned two or three lines, and a prefetch of its start fetched only the
 * first. The direction is bit 15 of tcp_flags, which tcpControlBits' 12
 * bits (RFC 7125) leave free: the key's 43rd byte (the inner VID's low 8
 * bits) took the byte the direction had. */
struct fc_rec {
	union {
		struct lr_flow_key key;
		struct {
			uint8_t key_bytes[offsetof(struct lr_flow_key, pad)];
			uint8_t min_ttl;
			uint16_t tcp_flags;	/* FC_TCP_FLAGS | FC_SWAPPED */
			uint8_t max_ttl;
			uint8_t tos;
		};
	};
	uint64_t last_ns;
	uint64_t packets;
} __rte_cache_aligned;

/* A record's tcp_flags: the flow's TCP flags (RFC 7125's 12 bits), and
 * biflow's direction, set when the initiator is key.dst. Whatever reads the
 * flags masks the direction off. */
#define FC_TCP_FLAGS 0x0fff
#define FC_SWAPPED 0x8000
#define FC_EXT 0x4000		/* the flow extensions still look at it */

struct fc_tail {
	uint64_t first_ns;
	uint64_t bytes;
};

/* Biflow's reverse direction, in a table beside the buckets (only with
 * biflow, so that a uniflow cache keeps its smaller lines). */
struct fc_rev {
	uint64_t packets;
	uint64_t bytes;
	uint16_t tcp_flags;
	uint8_t min_ttl;
	uint8_t max_ttl;
	uint8_t pad[4];
};

/* One cache line of signatures and deadlines, then the records' lines,
 * then their tails: 11 lines, 88 bytes a flow. */
struct fc_bucket {
	uint32_t sig[LR_FC_WAYS];	/* hash | 1; 0: empty */
	uint32_t expire[LR_FC_WAYS];	/* when the flow ends, in ticks */
	struct fc_rec rec[LR_FC_WAYS];
	struct fc_tail tail[LR_FC_WAYS];
} __rte_cache_aligned;

struct lr_fc {
	struct fc_bucket *b;
	struct lr_frag_slot *frag;	/* first fragments' ports */
	struct fc_rev *rev;		/* [bucket * WAYS + way], biflow only */
	struct lr_bigmem b_mem, rev_mem;	/* b's and rev's memory */
	uint32_t mask;			/* buckets - 1 */
	uint32_t scan_pos;		/* next bucket the expiry walk looks at */
	uint64_t scan_ns;		/* time of the last walk */
	double scan_carry;		/* buckets owed to the walk */
	uint64_t epoch_ns;		/* deadlines count ticks from here */
	uint64_t inactive_ns, active_ns;	/* the timeouts, ns */
	struct lr_fc_conf conf;
	struct lr_fc_counts c;
};

/* Deadlines count ticks of 2^20 ns (1.05 ms): a shift, not a division, per
 * packet. */
#define TICK_SHIFT 20

void
lr_fc_conf_init(struct lr_fc_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->entries = LR_FC_ENTRIES_DEFAULT;
	c->active_s = LR_FC_ACTIVE_S_DEFAULT;
	c->inactive_s = LR_FC_INACTIVE_S_DEFAULT;
	c->socket = SOCKET_ID_ANY;
}

size_t
lr_fc_entry_bytes(bool biflow)
{
	RTE_BUILD_BUG_ON(sizeof(struct fc_rec) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(offsetof(struct fc_rec, min_ttl) !=
			 offsetof(struct lr_flow_key, pad));
	RTE_BUILD_BUG_ON(offsetof(struct fc_rec, tos) !=
			 sizeof(struct lr_flow_key) - 1);
	RTE_BUILD_BUG_ON(sizeof(struct fc_tail) != 16);
	RTE_BUILD_BUG_ON(sizeof(struct fc_bucket) != 11 * RTE_CACHE_LINE_SIZE);
	return sizeof(struct fc_bucket) / LR_FC_WAYS +
	       (biflow ? sizeof(struct fc_rev) : 0);
}

static inline struct fc_rev *
rev_of(const struct lr_fc *fc, const struct fc_bucket *b, unsigned int j)
{
	return &fc->rev[(size_t)(b - fc->b) * LR_FC_WAYS + j];
}

struct lr_fc *
lr_fc_create(const struct lr_fc_conf *c)
{
	uint32_t nb = 1;
	struct lr_fc *fc;

	if (c->entries == 0 || c->entries > (1u << 30) || c->export == NULL ||
	    c->active_s == 0 || c->inactive_s == 0)
		return lr_err_null(EINVAL, "probe: flow cache of %u entries, "
				   "timeouts %u/%u s: want 1..2^30 entries and "
				   "timeouts > 0", c->entries, c->active_s,
				   c->inactive_s);
	while ((uint64_t)nb * LR_FC_WAYS < c->entries)
		nb <<= 1;
	fc = rte_zmalloc_socket("lr_fc", sizeof(*fc), RTE_CACHE_LINE_SIZE,
				c->socket);
	if (fc == NULL)
		return lr_err_null(ENOMEM, "probe: no memory for a flow cache");
	/* In 2 MB pages even without EAL hugepages (lr_bigmem.h). */
	lr_bigmem_alloc(&fc->b_mem, "lr_fc_table", sizeof(*fc->b) * nb, c->socket);
	fc->b = fc->b_mem.p;
	if (fc->b == NULL) {
		lr_err(ENOMEM, "probe: no memory for %u flows (%zu MB) on socket %d",
		       nb * LR_FC_WAYS, sizeof(struct fc_bucket) * nb >> 20,
		       c->socket);
		goto free_fc;
	}
	fc->frag = rte_zmalloc_socket("lr_fc_frag", sizeof(*fc->frag) * LR_FRAG_SLOTS,
				      RTE_CACHE_LINE_SIZE, c->socket);
	if (fc->frag == NULL) {
		lr_err(ENOMEM, "probe: no memory for fragments");
		goto free_table;
	}
	if (c->biflow) {
		lr_bigmem_alloc(&fc->rev_mem, "lr_fc_rev", sizeof(*fc->rev) *
				nb * LR_FC_WAYS, c->socket);
		fc->rev = fc->rev_mem.p;
		if (fc->rev == NULL) {
			lr_err(ENOMEM, "probe: no memory for biflow");
			goto free_frag;
		}
	}
	fc->mask = nb - 1;
	fc->conf = *c;
	fc->inactive_ns = (uint64_t)c->inactive_s * NS;
	fc->active_ns = (uint64_t)c->active_s * NS;
	return fc;

free_frag:
	rte_free(fc->frag);
free_table:
	lr_bigmem_free(&fc->b_mem);
free_fc:
	rte_free(fc);
	rte_errno = ENOMEM;
	return NULL;
}

void
lr_fc_free(struct lr_fc *fc)
{
	if (fc == NULL)
		return;
	lr_bigmem_free(&fc->rev_mem);
	rte_free(fc->frag);
	lr_bigmem_free(&fc->b_mem);
	rte_free(fc);
}

uint32_t
lr_fc_capacity(const struct lr_fc *fc)
{
	return (fc->mask + 1) * LR_FC_WAYS;
}

void
lr_fc_set_ext(struct lr_fc *fc,
	      bool (*ext)(void *arg, uint32_t slot,
			  const struct lr_fc_ext_pkt *k),
	      void (*ext_end)(void *arg, uint32_t slot, struct lr_flow_rec_app *out),
	      void *arg)
{
	fc->conf.ext = ext;
	fc->conf.ext_end = ext_end;
	fc->conf.ext_arg = arg;
}

const struct lr_fc_counts *
lr_fc_counts(const struct lr_fc *fc)
{
	return &fc->c;
}

bool
lr_fc_key(const struct lr_parsed *p, uint16_t ingress, bool biflow,
	  struct lr_flow_key *k)
{
	int c = biflow ? memcmp(p->src, p->dst, 16) : 0;
	bool swap = c > 0 || (c == 0 && biflow && p->sport > p->dport);

	memcpy(k->src, swap ? p->dst : p->src, 16);
	memcpy(k->dst, swap ? p->src : p->dst, 16);
	k->sport = swap ? p->dport : p->sport;
	k->dport = swap ? p->sport : p->dport;
	/* lr_fc_key_vlan(), lr_fc_key_vlan_inner() read them back. */
	k->vid_packed = (uint16_t)((p->vlan & 0x0fff) |
				   (p->vlan_inner & 0x0f00) << 4);
	k->vid_inner_lo = (uint8_t)p->vlan_inner;
	k->ingress = ingress;
	k->proto = p->proto;
	k->ipv6 = p->ipv6;
	memset(k->pad, 0, sizeof(k->pad));
	return swap;
}

static inline uint32_t
hash_of(const struct lr_fc *fc, const struct lr_flow_key *k)
{
	if (fc->conf.hash != NULL)
		return fc->conf.hash(k);
	return rte_hash_crc(k, sizeof(*k), 0x4c52);
}

/* Is @p r the flow of key @p k? Its 43 bytes, not the padding (where the
 * record keeps its flags): five words and the first 3 bytes of a sixth,
 * whose mask has the bytes ff ff ff 00 in memory on either byte order. */
static inline bool
key_eq(const struct fc_rec *r, const struct lr_flow_key *k)
{
	const uint64_t *x = (const uint64_t *)&r->key, *y = (const uint64_t *)k;
	uint32_t a, b;

	RTE_BUILD_BUG_ON(sizeof(*k) != 48);
	RTE_BUILD_BUG_ON(offsetof(struct lr_flow_key, proto) != 40 ||
			 offsetof(struct lr_flow_key, ipv6) != 41 ||
			 offsetof(struct lr_flow_key, vid_inner_lo) != 42 ||
			 offsetof(struct lr_flow_key, pad) != 43);
	memcpy(&a, &x[5], sizeof(a));
	memcpy(&b, &y[5], sizeof(b));
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) |
		(x[4] ^ y[4]) | ((a ^ b) & rte_cpu_to_le_32(0x00ffffff))) == 0;
}

static inline uint32_t
slot_of(const struct lr_fc *fc, const struct fc_bucket *b, unsigned int j)
{
	return (uint32_t)(b - fc->b) * LR_FC_WAYS + j;
}

/* Hand a record to the exporter and free its slot. */
static void
end_flow(struct lr_fc *fc, struct fc_bucket *b, unsigned int j,
	 enum lr_flow_end why)
{
	const struct fc_rec *r = &b->rec[j];
	const struct fc_tail *t = &b->tail[j];
	bool swapped = (r->tcp_flags & FC_SWAPPED) != 0;
	struct lr_flow_rec_app oa;

	/* Biflow: the source is who sent the first packet. */
	memcpy(oa.r.src, swapped ? r->key.dst : r->key.src, 16);
	memcpy(oa.r.dst, swapped ? r->key.src : r->key.dst, 16);
	oa.r.first_ns = t->first_ns;
	oa.r.last_ns = r->last_ns;
	oa.r.packets = r->packets;
	oa.r.bytes = t->bytes;
	oa.r.ingress = r->key.ingress;
	oa.r.sport = swapped ? r->key.dport : r->key.sport;
	oa.r.dport = swapped ? r->key.sport : r->key.dport;
	if (fc->rev != NULL) {
		const struct fc_rev *v = rev_of(fc, b, j);

		oa.r.rev_packets = v->packets;
		oa.r.rev_bytes = v->bytes;
		oa.r.rev_tcp_flags = v->tcp_flags;
		oa.r.rev_min_ttl = v->packets ? v->min_ttl : 0;
		oa.r.rev_max_ttl = v->max_ttl;
	} else {
		oa.r.rev_packets = 0;
		oa.r.rev_bytes = 0;
		oa.r.rev_tcp_flags = 0;
		oa.r.rev_min_ttl = 0;
		oa.r.rev_max_ttl = 0;
	}
	oa.r.tcp_flags = r->tcp_flags & FC_TCP_FLAGS;
	oa.r.vlan = lr_fc_key_vlan(&r->key);
	oa.r.vlan_inner = lr_fc_key_vlan_inner(&r->key);
	oa.r.proto = r->key.proto;
	oa.r.tos = r->tos;
	oa.r.min_ttl = r->min_ttl;
	oa.r.max_ttl = r->max_ttl;
	oa.r.end_reason = (uint8_t)why;
	oa.r.ipv6 = r->key.ipv6;
	oa.r.app = LR_APP_NONE;
	if (fc->conf.ext_end != NULL)
		fc->conf.ext_end(fc->conf.ext_arg, slot_of(fc, b, j), &oa);
	if (fc->conf.export(fc->conf.arg, &oa.r) < 0)
		fc->c.export_drops++;
	fc->c.ended[why]++;
	fc->c.active--;
	b->sig[j] = 0;
}

/* Deadlines are 32-bit ticks (TICK_SHIFT) from the cache's epoch, compared
 * as a signed difference, so they may wrap (every 52 days). */
static inline uint32_t
tick_of(struct lr_fc *fc, uint64_t ns)
{
	if (unlikely(fc->epoch_ns == 0))
		fc->epoch_ns = ns;
	return (uint32_t)((ns - fc->epoch_ns) >> TICK_SHIFT);
}



static inline bool
past(uint32_t deadline, uint32_t now_t)
{
	return (int32_t)(deadline - now_t) <= 0;
}

/* The tick of a flow's timeout: the earlier of its inactive timeout (from
 * its last packet) and its active one (from its first), rounded down, so
 * that a look at a flow is never late; expired() decides, to the ns. */
static inline uint32_t
deadline(struct lr_fc *fc, const struct fc_bucket *b, unsigned int j)
{
	uint32_t idle = tick_of(fc, b->rec[j].last_ns + fc->inactive_ns);
	uint32_t act = tick_of(fc, b->tail[j].first_ns + fc->active_ns);

	return (int32_t)(idle - act) < 0 ? idle : act;
}

/* Has a flow whose deadline passed timed out at @p now_ns, to the ns? Idle
 * or active, whichever came first; 0 (none) when not yet: a tick's rounding
 * never ends a flow early, nor gives an idle one the active reason. */
static inline enum lr_flow_end
expired(const struct lr_fc *fc, const struct fc_bucket *b, unsigned int j,
	uint64_t now_ns)
{
	uint64_t idle = b->rec[j].last_ns + fc->inactive_ns;
	uint64_t act = b->tail[j].first_ns + fc->active_ns;

	if (idle <= act)
		return now_ns >= idle ? LR_FLOW_END_IDLE : 0;
	return now_ns >= act ? LR_FLOW_END_ACTIVE : 0;
}

/* A slot for a new flow: an empty one, or the least recently seen flow of
 * the bucket, ended for lack of resources. */
static unsigned int
make_slot(struct lr_fc *fc, struct fc_bucket *b)
{
	unsigned int j, old = 0;

	for (j = 0; j < LR_FC_WAYS; j++)
		if (b->sig[j] == 0)
			return j;
	for (j = 1; j < LR_FC_WAYS; j++)
		if (b->rec[j].last_ns < b->rec[old].last_ns)
			old = j;
	end_flow(fc, b, old, LR_FLOW_END_RESOURCES);
	return old;
}

/* The L4 payload of @p p in its frame @p d: none for a fragment or a
 * header the bytes at hand cut. */
static inline uint32_t
payload(const struct lr_parsed *p, const struct lr_fc_data *d,
	const uint8_t **l4)
{
	uint32_t off = p->l4_off, hl, n;

	if (p->frag != LR_FRAG_NONE || off == 0 || d->frame == NULL)
		return 0;
	if (p->proto == 17)
		hl = 8;
	else if (p->proto == 6 && off + 13 <= d->len)
		hl = (uint32_t)(d->frame[off + 12] >> 4) * 4;
	else
		return 0;
	if (hl < 8 || off + hl > d->len)
		return 0;
	*l4 = d->frame + off + hl;
	n = d->len - off - hl;
	/* Not a frame's padding: UDP says its length; a TCP segment in a
	 * frame of the least size whose bytes after the header are zeros
	 * is taken for one without payload. */
	if (p->proto == 17) {
		uint32_t ul = (uint32_t)d->frame[off + 4] << 8 | d->frame[off + 5];

		return ul >= 8 ? RTE_MIN(n, ul - 8) : 0;
	}
	if (d->len <= 60) {
		uint32_t i;

		for (i = 0; i < n && (*l4)[i] == 0; i++)
			;
		if (i == n)
			return 0;
	}
	return n;
}

/* A packet of a flow the extensions look at. Rare: out of line. */
static void __rte_noinline
ext_packet(struct lr_fc *fc, struct fc_bucket *b, unsigned int j,
	   const struct lr_parsed *p, bool reverse, bool created,
	   const struct lr_fc_data *d, uint64_t now_ns)
{
	struct lr_fc_ext_pkt k = {
		.p = p, .frame = d->frame, .frame_len = d->len,
		.now_ns = now_ns, .created = created, .reverse = reverse,
	};

	k.len = payload(p, d, &k.l4);
	if (!fc->conf.ext(fc->conf.ext_arg, slot_of(fc, b, j), &k))
		b->rec[j].tcp_flags &= (uint16_t)~FC_EXT;
}

static inline void
record_packet(struct lr_fc *fc, struct fc_bucket *b, unsigned int j,
	const struct lr_parsed *p, bool swapped, uint64_t now_ns,
	const struct lr_fc_data *d, bool created)
{
	struct fc_rec *r = &b->rec[j];
	struct fc_tail *t = &b->tail[j];

	if (d != NULL && unlikely(r->tcp_flags & FC_EXT))
		ext_packet(fc, b, j, p, swapped != ((r->tcp_flags & FC_SWAPPED) != 0),
			   created, d, now_ns);

	/* A capture's packets may come out of time order (merged files,
	 * queues): the flow spans its earliest to its latest. */
	if (likely(now_ns >= r->last_ns))
		r->last_ns = now_ns;
	else if (now_ns < t->first_ns)
		t->first_ns = now_ns;
	if (unlikely(swapped != ((r->tcp_flags & FC_SWAPPED) != 0))) {
		/* Biflow, the reverse direction. */
		struct fc_rev *v = rev_of(fc, b, j);

		v->packets++;
		v->bytes += p->ip_bytes;
		v->tcp_flags |= p->tcp_flags;
		if (p->ttl < v->min_ttl)
			v->min_ttl = p->ttl;
		if (p->ttl > v->max_ttl)
			v->max_ttl = p->ttl;
	} else {
		r->packets++;
		t->bytes += p->ip_bytes;
		/* Never the direction bit, whoever filled the packet's. */
		r->tcp_flags |= p->tcp_flags & FC_TCP_FLAGS;
		if (p->ttl < r->min_ttl)
			r->min_ttl = p->ttl;
		if (p->ttl > r->max_ttl)
			r->max_ttl = p->ttl;
	}
	b->expire[j] = deadline(fc, b, j);
	if (p->proto == 6 && (p->tcp_flags & (TCP_FIN | TCP_RST)))
		end_flow(fc, b, j, LR_FLOW_END_DETECTED);
}

static void
create(struct lr_fc *fc, struct fc_bucket *b, uint32_t sig,
       const struct lr_flow_key *k, const struct lr_parsed *p, bool swapped,
       uint64_t now_ns, const struct lr_fc_data *d)
{
	unsigned int j = make_slot(fc, b);
	struct fc_rec *r = &b->rec[j];
	struct fc_tail *t = &b->tail[j];

	r->key = *k;
	r->last_ns = now_ns;
	r->packets = 0;
	t->first_ns = now_ns;
	t->bytes = 0;
	r->tcp_flags = swapped ? FC_SWAPPED : 0;
	if (fc->conf.ext != NULL && (p->proto == 6 || p->proto == 17))
		r->tcp_flags |= FC_EXT;
	r->min_ttl = 255;
	r->max_ttl = 0;
	r->tos = p->tos;
	if (fc->rev != NULL) {
		struct fc_rev *v = rev_of(fc, b, j);

		memset(v, 0, sizeof(*v));
		v->min_ttl = 255;
	}
	b->sig[j] = sig;
	fc->c.created++;
	fc->c.active++;
	record_packet(fc, b, j, p, swapped, now_ns, d, true);
}

/* A first fragment leaves its ports; a later one takes them into @p copy.
 * @return the packet to account: @p p itself, or @p copy with ports. */
static const struct lr_parsed *
frag_ports(struct lr_fc *fc, const struct lr_parsed *p, struct lr_parsed *copy,
	   uint64_t now_ns)
{
	struct lr_frag_slot *f = lr_frag_slot(fc->frag, p->src, p->dst,
					      p->frag_id, p->proto);

	if (p->frag == LR_FRAG_FIRST) {
		lr_frag_put(f, p->src, p->dst, p->frag_id, p->proto, now_ns,
			    (uint32_t)p->sport << 16 | p->dport);
		return p;
	}
	fc->c.frag_later++;
	if (!lr_frag_match(f, p->src, p->dst, p->frag_id, p->proto, now_ns)) {
		fc->c.frag_unmatched++;
		return p;
	}
	*copy = *p;
	copy->sport = (uint16_t)(f->val >> 16);
	copy->dport = (uint16_t)f->val;
	return copy;
}

/* How many packets ahead of the one it updates the burst's third pass
 * looks at a bucket's signatures and fetches the matching record: enough
 * updates (about 100 cycles each) to cover a miss to memory, few enough
 * that the lines stay in L1 until they are used. */
#define FC_AHEAD 8

/* The way of @p b whose signature is @p sig (-1: none), its record's line
 * and tail fetched: a hint for the pass that compares keys. */
static inline int
candidate(struct fc_bucket *b, uint32_t sig)
{
	unsigned int j;

	for (j = 0; j < LR_FC_WAYS; j++) {
		if (b->sig[j] == sig) {
			rte_prefetch0(&b->rec[j]);
			rte_prefetch0(&b->tail[j]);
			return (int)j;
		}
	}
	return -1;
}

/* The burst in three passes. @p ts: each packet's own time (a capture's),
 * or NULL: all of them at @p now_ns. Inlined into both callers, so that
 * the live path (NULL) compiles to what it was. */
static __rte_always_inline void
update(struct lr_fc *fc, const struct lr_parsed *const *pkts, unsigned int n,
       uint16_t ingress, uint64_t now_ns, const uint64_t *ts,
       const struct lr_fc_data *d)
{
	struct lr_flow_key key[LR_BURST];
	const struct lr_parsed *pk[LR_BURST];
	struct lr_parsed fragcopy[LR_BURST];
	struct fc_bucket *bk[LR_BURST];
	uint32_t sig[LR_BURST];
	bool swap[LR_BURST];
	int cand[LR_BURST];
	uint32_t now_t = tick_of(fc, now_ns);
	unsigned int i, j;

	while (n > LR_BURST) {
		update(fc, pkts, LR_BURST, ingress, now_ns, ts, d);
		pkts += LR_BURST;
		if (ts != NULL)
			ts += LR_BURST;
		if (d != NULL)
			d += LR_BURST;
		n -= LR_BURST;
	}
	/* 1: hash, and fetch each bucket's line of signatures. */
	for (i = 0; i < n; i++) {
		uint32_t h;

		pk[i] = unlikely(pkts[i]->frag != LR_FRAG_NONE) ?
			frag_ports(fc, pkts[i], &fragcopy[i],
				   ts != NULL ? ts[i] : now_ns) : pkts[i];
		swap[i] = lr_fc_key(pk[i], ingress, fc->conf.biflow, &key[i]);
		h = hash_of(fc, &key[i]);
		sig[i] = h | 1;
		bk[i] = &fc->b[h & fc->mask];
		rte_prefetch0(bk[i]);
	}
	/* 2: the record whose signature matches, fetched, for the first
	 * packets; then for packet i + FC_AHEAD while packet i is updated
	 * (a burst's worth of fetches at once would wait for the L1's fill
	 * buffers, and the first ones for memory). */
	for (i = 0; i < n && i < FC_AHEAD; i++)
		cand[i] = candidate(bk[i], sig[i]);
	/* 3: compare whole keys, update or create. A flow made earlier in
	 * this burst is found by looking again. */
	for (i = 0; i < n; i++) {
		struct fc_bucket *b = bk[i];
		int found = -1;

		if (i + FC_AHEAD < n)
			cand[i + FC_AHEAD] = candidate(bk[i + FC_AHEAD],
						       sig[i + FC_AHEAD]);

		if (ts != NULL) {
			now_ns = ts[i];
			now_t = tick_of(fc, now_ns);
		}
		fc->c.packets++;
		if (cand[i] >= 0 && b->sig[cand[i]] == sig[i] &&
		    key_eq(&b->rec[cand[i]], &key[i]))
			found = cand[i];
		for (j = 0; found < 0 && j < LR_FC_WAYS; j++)
			if (b->sig[j] == sig[i] && key_eq(&b->rec[j], &key[i]))
				found = (int)j;
		if (found >= 0 && past(b->expire[found], now_t)) {
			enum lr_flow_end why = expired(fc, b, (unsigned int)found,
						       now_ns);

			/* Its time was up before the walk came by. */
			if (why != 0) {
				end_flow(fc, b, (unsigned int)found, why);
				found = -1;
			}
		}
		if (found >= 0)
			record_packet(fc, b, (unsigned int)found, pk[i], swap[i],
				now_ns, d != NULL ? &d[i] : NULL, false);
		else
			create(fc, b, sig[i], &key[i], pk[i], swap[i], now_ns,
			       d != NULL ? &d[i] : NULL);
	}
}

void
lr_fc_update(struct lr_fc *fc, const struct lr_parsed *const *pkts, unsigned int n,
	     uint16_t ingress, uint64_t now_ns)
{
	update(fc, pkts, n, ingress, now_ns, NULL, NULL);
}

void
lr_fc_update_ts(struct lr_fc *fc, const struct lr_parsed *const *pkts,
		unsigned int n, uint16_t ingress, const uint64_t *ts_ns)
{
	if (n != 0)
		update(fc, pkts, n, ingress, ts_ns[0], ts_ns, NULL);
}

void
lr_fc_update_data(struct lr_fc *fc, const struct lr_parsed *const *pkts,
		  const struct lr_fc_data *d, unsigned int n, uint16_t ingress,
		  uint64_t now_ns, const uint64_t *ts_ns)
{
	if (n == 0)
		return;
	if (ts_ns != NULL)
		update(fc, pkts, n, ingress, ts_ns[0], ts_ns, d);
	else
		update(fc, pkts, n, ingress, now_ns, NULL, d);
}

static unsigned int
expire_bucket(struct lr_fc *fc, struct fc_bucket *b, uint32_t now_t,
	      uint64_t now_ns)
{
	unsigned int j, n = 0;

	/* The bucket's line says which ways are due: the records of the
	 * others stay unread. (A branch-free mask of the due ways cost more
	 * instructions a bucket under callgrind, doc/performance.md.) */
	for (j = 0; j < LR_FC_WAYS; j++) {
		enum lr_flow_end why;

		if (b->sig[j] != 0 && past(b->expire[j], now_t) &&
		    (why = expired(fc, b, j, now_ns)) != 0) {
			end_flow(fc, b, j, why);
			n++;
		}
	}
	return n;
}

unsigned int
lr_fc_expire(struct lr_fc *fc, uint64_t now_ns)
{
	uint32_t nb = fc->mask + 1, now_t = tick_of(fc, now_ns), k, todo;
	unsigned int n = 0;

	if (fc->scan_ns == 0 || now_ns < fc->scan_ns) {
		fc->scan_ns = now_ns;
		return 0;
	}
	/* The whole table once a second, a slice at a time. */
	fc->scan_carry += (double)nb * (double)(now_ns - fc->scan_ns) / NS;
	fc->scan_ns = now_ns;
	todo = fc->scan_carry >= nb ? nb : (uint32_t)fc->scan_carry;
	fc->scan_carry -= todo;
	for (k = 0; k < todo; k++) {
		/* The walk's next lines on their way while this one is read. */
		if (k + 4 < todo)
			rte_prefetch0(&fc->b[(fc->scan_pos + 4) & fc->mask]);
		n += expire_bucket(fc, &fc->b[fc->scan_pos], now_t, now_ns);
		fc->scan_pos = (fc->scan_pos + 1) & fc->mask;
	}
	return n;
}

unsigned int
lr_fc_flush(struct lr_fc *fc)
{
	uint32_t i;
	unsigned int j, n = 0;

	for (i = 0; i <= fc->mask; i++)
		for (j = 0; j < LR_FC_WAYS; j++)
			if (fc->b[i].sig[j] != 0) {
				end_flow(fc, &fc->b[i], j, LR_FLOW_END_FORCED);
				n++;
			}
	return n;
}
