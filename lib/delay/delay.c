/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The delay role (lr_delay.h): two directions per task, each a netem qdisc
 * (lib/netem decides) in front of a byte ring and a timing wheel.
 *
 * Storage. A direction keeps what it holds in one ring of bytes, in arrival
 * order: a 16 B record header (due time, wheel link, length, flags) and the
 * frame rounded up to 16 B. A record that would cross the ring's end leaves
 * a pad record there and starts again at 0. A record is freed where it is
 * sent; the ring's tail moves over freed records and pads, so a frame that
 * leaves before older ones (jitter) holds its bytes until they leave too.
 *
 * Order. Frames leave in the order of their due time (the kernel's tfifo:
 * ties in arrival order). Where due times never go back (no jitter; rate;
 * no-reorder) that is the ring's own order (FIFO mode, due_fifo()). Else a
 * timing wheel of 2^k buckets of G ns spans the jitter (the greatest delay
 * less the least, lr_netem_delay_bounds) and 2 ms more, each bucket a list
 * kept sorted. A record enters the wheel from the ring's arrival order once
 * its due time falls inside the wheel; since no frame is due earlier than
 * the least delay after the arrival of the frames before it, waiting for
 * the oldest to fit loses no order. The wheel holds a few milliseconds of
 * frames, not the 184 ms of the path; a frame that enters it already late
 * (the lcore stopped longer than that) waits in a heap by due time.
 *
 * Fast path per poll: each direction sends what it could not before, takes
 * one rx burst (netem's enqueue decisions, bytes into the ring) and sends
 * what is due, in new mbufs of its own pool.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>
#ifdef RTE_ARCH_X86
#include <emmintrin.h>
#endif

#include "lr_common.h"
#include "lr_delay.h"
#include "lr_engine.h"
#include "lr_hist.h"
#include "lr_netem.h"
#include "lr_opt.h"
#include "lr_pool.h"
#include "lr_port.h"

RTE_LOG_REGISTER(lr_delay_logtype, user.lr.delay, INFO);
#define DLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, lr_delay_logtype, "delay: " fmt "\n", ##__VA_ARGS__)

#define REC_HDR 16u
#define NIL UINT32_MAX
#define F_FREE 1u		/* sent: the tail may pass it */
#define F_PAD 2u		/* filler to the ring's end */
#define F_HEAD 4u		/* reordered: on the head list, not the wheel */

#define GRAIN_MIN_SHIFT 8	/* buckets of 256 ns at least: a few frames each */
#define WHEEL_MAX_SHIFT 22	/* 4 M buckets at most (32 MiB) */
#define WHEEL_AHEAD_NS 2000000ull	/* frames enter the wheel 2 ms early */
#define STREAM_MIN_NS 1000000	/* from 1 ms on, the ring is out of cache */
#define STORE_MIN (4u << 20)	/* bytes of a direction with no delay */
#define POOL_MBUFS 4095u	/* tx mbufs of a direction */
#define LATE_NS_DEFAULT 10000u
/* 1 %: this VM's CPUs stop for up to 0.5 ms, which makes the frames of
 * that time late on an idle machine too; a box past 1 % late has not
 * emulated the path it was asked for. */
#define LATE_SHARE_DEFAULT 0.01
/* Times start here, not at 0: a negative delay (jitter above the delay)
 * makes a due time before the first arrival. */
#define NS_BASE 1000000000000ull

struct rec {
	uint64_t tts;		/* due, ns */
	uint32_t next;		/* next record in its bucket or head list */
	uint16_t len;		/* frame bytes */
	uint16_t flags;
};

struct bucket {
	uint32_t first, last;
};

/* A record that was due before the wheel's current bucket when it entered
 * (the lcore fell behind): kept in a heap by due time, ties in arrival
 * order, so that a backlog costs log n a frame, not a walk of a list. */
struct late {
	uint64_t tts;
	uint32_t id;
	uint32_t seq;
};

/* A direction's counters, each named once: X(field, JSON key, what). */
#define DELAY_COUNTERS(X) \
	X(in,           "in",                 "frames received") \
	X(out,          "out",                "frames sent") \
	X(lost,         "lost",               "dropped by the loss model") \
	X(duplicated,   "duplicated",         "extra copies made") \
	X(corrupted,    "corrupted",          "copies with a bit flipped") \
	X(reordered,    "reordered",          "sent ahead of the queue (reorder)") \
	X(over_limit,   "over_limit",         "dropped: netem's limit") \
	X(no_room,      "no_room",            "dropped: the ring had no room") \
	X(late,         "late",               "sent later than due by more than late_ns") \
	X(held,         "held",               "in the ring now") \
	X(held_at_stop, "held_at_stop",       "still held when the task stopped") \
	X(mem_high,     "storage_high_bytes", "most bytes of the ring in use") \
	X(tx_full,      "tx_full",            "tx bursts the queue did not take whole") \
	X(misordered,   "misordered",         "sent before one due earlier (a bug if not 0)")

struct dir_counts {
#define DELAY_FIELD(name, key, what) uint64_t name;
	DELAY_COUNTERS(DELAY_FIELD)
#undef DELAY_FIELD
};

struct dir {
	struct lr_netem q;
	struct lr_netem_conf nc;
	bool active;		/* the direction exists (its rx and tx queue) */
	bool pass;		/* no impairment: mbufs go straight through */
	bool stream;		/* long delays: the ring written around the
				 * caches (rec_write()) */
	bool fifo_mode;		/* due times never go back: due_fifo() */
	uint16_t in_port, in_queue, out_port, out_queue;
	uint32_t limit;
	uint32_t late_ns;
	double late_share;	/* verdict late past it (of frames sent) */
	/* the ring */
	uint8_t *mem;
	uint64_t size;
	uint64_t used;
	uint64_t head;		/* offset of the next record */
	uint64_t tail;		/* offset of the oldest record */
	uint64_t fifo;		/* offset of the oldest record not yet in the
				 * wheel or on the head list */
	uint64_t fifo_recs;	/* records from fifo to head */
	/* the wheel */
	struct bucket *wheel;
	uint64_t wmask;
	unsigned int gshift;
	uint64_t base;		/* bucket number of the current bucket */
	uint64_t in_wheel;
	struct late *late;	/* min-heap of late records */
	uint32_t nb_late, max_late;
	uint32_t seq;		/* records that entered the wheel or heap */
	uint32_t hfirst, hlast;	/* head list (reordered frames) */
	uint64_t last_tts;	/* due time of the last frame sent from the queue */
	/* tx */
	struct rte_mempool *pool;
	struct rte_mbuf *spare[LR_BURST];
	uint16_t nb_spare;
	struct rte_mbuf *pend[LR_BURST];
	uint16_t nb_pend, pend_off;
	struct dir_counts c;
	struct lr_hist *lateness;
	uint64_t bdp_bytes;	/* what the ring was sized for */
};

struct delay {
	struct dir d[2];
	uint64_t busy_cycles;	/* of polls that moved frames */
	uint64_t last_poll_tsc;	/* when the last poll began */
	uint64_t max_gap_cycles; /* the longest time between two polls: a
				  * stall of the lcore (the host took its CPU)
				  * that a queue of the netem limit may not
				  * hide (lua/rfc2544.lua reads it) */
	uint64_t stall_cycles;	/* the sum of gaps longer than STALL_US:
				  * frames that came while the lcore was
				  * away were let in late, together */
	uint64_t stall_min_cycles;	/* STALL_US in TSC cycles */
	uint64_t tsc0;
	double ns_per_tsc;
};

/* A gap between two polls longer than this is the host's (a poll of the
 * box and of the other tasks on its lcore takes a few us): counted in
 * stalled_us and max_poll_gap_us. */
#define STALL_US 20

static const char *const dir_name[2] = { "forward", "back" };

/* ---- options ---- */

static int
set_str(char *dst, size_t len, const char *key, const char *val)
{
	if (strlen(val) >= len)
		return lr_err(EINVAL, "delay: %s: longer than %zu bytes", key,
			      len - 1);
	snprintf(dst, len, "%s", val);
	return 0;
}

static int
set_peer(void *conf, const char *key, const char *val)
{
	struct lr_delay_conf *c = conf;

	if (*val == '\0')
		return lr_err(EINVAL, "delay: %s: want a port", key);
	return set_str(c->peer, sizeof(c->peer), key, val);
}

/* A SPEC is parsed as it is given, so that a bad word is an error of the
 * option (exit 2), not of the run. */
static int
set_spec(void *conf, const char *key, const char *val)
{
	struct lr_delay_conf *c = conf;
	struct lr_netem_conf nc;
	char err[256];

	if (lr_netem_parse(val, &nc, err, sizeof(err)) != 0)
		return lr_err(EINVAL, "%s", err);
	lr_netem_conf_free(&nc);
	if (strcmp(key, "netem") == 0)
		return set_str(c->netem, sizeof(c->netem), key, val);
	return set_str(c->netem_back, sizeof(c->netem_back), key, val);
}

/* "1" or "1%": a percentage in 0..100, kept as a fraction. */
static int
set_late_share(void *conf, const char *key, const char *val)
{
	struct lr_delay_conf *c = conf;
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno == 0 && end != val && *end == '%')
		end++;
	if (errno != 0 || end == val || *end != '\0' || !(v >= 0 && v <= 100))
		return lr_err(EINVAL, "delay: %s '%s': want a percentage "
			      "0..100", key, val);
	c->late_share = v / 100;
	return 0;
}

#define DC(field) LR_OPT_FIELD(struct lr_delay_conf, field)

static const struct lr_opt delay_opts[] = {
	{ "peer", LR_OPT_FUNC, 0, 0, 0, 0, set_peer, "PORT",
	  "the other port: frames from --port leave by it, and its frames "
	  "leave by --port (an id, a name or vdev devargs, set up as --port)",
	  "`--peer net_null1`", NULL },
	{ "netem", LR_OPT_FUNC, 0, 0, 0, 0, set_spec, "SPEC",
	  "impairments from --port to --peer in tc-netem(8)'s words: delay, "
	  "jitter, correlation, distribution, loss (random, state, gemodel), "
	  "corrupt, duplicate, reorder/gap, rate, slot, limit, seed; and "
	  "no-reorder, jitter-ar1 (none)",
	  "`--netem \"delay 184ms 8us distribution normal\"`", NULL },
	{ "netem-back", LR_OPT_FUNC, 0, 0, 0, 0, set_spec, "SPEC",
	  "impairments from --peer to --port, as --netem (none)",
	  "`--netem-back \"delay 184ms loss 0.1%\"`", NULL },
	{ "buffer", LR_OPT_UINT, DC(buffer), 0, UINT64_MAX, NULL, "BYTES",
	  "storage of a direction of a queue pair, 0: the bandwidth-delay "
	  "product of the port's speed and the greatest delay (0)",
	  "`--buffer 512M`", NULL },
	{ "late", LR_OPT_UINT, DC(late_ns), 0, UINT32_MAX, NULL, "NS",
	  "a frame sent later than due by more than NS ns is counted late "
	  "(10000)", "`--late 1000`", NULL },
	{ "late-share", LR_OPT_FUNC, 0, 0, 0, 0, set_late_share, "P",
	  "a direction that sent more than P % of its frames late (--late) "
	  "gets the verdict late: exit 3 from --role (1)",
	  "`--late-share 0.1`", NULL },
	{ 0 },
};

static void
delay_conf_init(void *conf)
{
	struct lr_delay_conf *c = conf;

	memset(c, 0, sizeof(*c));
	c->late_ns = LATE_NS_DEFAULT;
	c->late_share = LATE_SHARE_DEFAULT;
}

static int
delay_conf_set(void *conf, const char *key, const char *val)
{
	return lr_opt_set(delay_opts, conf, "delay", key, val);
}

static int
delay_conf_check(const void *conf)
{
	const struct lr_delay_conf *c = conf;

	if (c->peer[0] == '\0')
		return lr_err(EINVAL, "delay: --peer PORT is missing: the port "
			      "the frames of --port leave by");
	return 0;
}

/* ---- the ring ---- */

static inline struct rec *
rec_at(const struct dir *d, uint64_t off)
{
	return (struct rec *)(d->mem + off);
}

static inline struct rec *
rec_id(const struct dir *d, uint32_t id)
{
	return (struct rec *)(d->mem + ((uint64_t)id << 4));
}

static inline uint64_t
rec_bytes(const struct dir *d, uint64_t off, const struct rec *r)
{
	if (r->flags & F_PAD)
		return d->size - off;
	return REC_HDR + RTE_ALIGN_CEIL((uint64_t)r->len, 16);
}

/* Room for a record of @p len bytes: the record (its header not written
 * yet: rec_write()), or NULL. */
static inline struct rec *
rec_new(struct dir *d, uint32_t len)
{
	uint64_t need = REC_HDR + RTE_ALIGN_CEIL((uint64_t)len, 16);
	uint64_t to_end = d->size - d->head;
	struct rec *r;

	if (unlikely(need > to_end)) {
		if (d->used + to_end + need > d->size)
			return NULL;
		r = rec_at(d, d->head);
		r->flags = F_PAD;
		r->len = 0;
		d->used += to_end;
		d->head = 0;
	} else if (d->used + need > d->size) {
		return NULL;
	}
	r = rec_at(d, d->head);
	d->used += need;
	d->head += need;
	if (d->head == d->size)
		d->head = 0;
	d->fifo_recs++;
	if (unlikely(d->used > d->c.mem_high))
		d->c.mem_high = d->used;
	return r;
}

/* Move the tail over what was sent. */
static inline void
tail_advance(struct dir *d)
{
	while (d->used != 0) {
		struct rec *r = rec_at(d, d->tail);
		uint64_t b;

		if (!(r->flags & (F_FREE | F_PAD)))
			break;
		b = rec_bytes(d, d->tail, r);
		d->used -= b;
		d->tail += b;
		if (d->tail == d->size)
			d->tail = 0;
	}
}

/*
 * Write a record: its header and its frame's bytes. The ring is read again
 * only after the delay (184 ms: long out of every cache), so on x86 the
 * record goes around the caches with non-temporal stores: no line is read
 * for ownership, and the caches keep what the next frames need. An sfence
 * after the burst (enqueue()) orders them before anything reads the ring.
 * A short delay (@p stream false) reads the record back from the cache.
 */
static inline void
rec_write(struct rec *r, uint64_t tts, uint32_t len, uint16_t flags,
	  const struct rte_mbuf *m, bool stream)
{
	struct rec h = { .tts = tts, .next = NIL, .len = (uint16_t)len,
			 .flags = flags };
#ifdef RTE_ARCH_X86
	if (likely(m->next == NULL) && stream) {
		const uint8_t *src = rte_pktmbuf_mtod(m, const uint8_t *);
		__m128i *dst = (__m128i *)(void *)r;
		uint32_t i, whole = len / 16;
		uint8_t tail[16];

		_mm_stream_si128(dst++, _mm_loadu_si128((const __m128i *)(const void *)&h));
		for (i = 0; i < whole; i++)
			_mm_stream_si128(dst++, _mm_loadu_si128(
				(const __m128i *)(const void *)(src + 16 * i)));
		if (len % 16 != 0) {
			/* Not past the frame's end: it may be the buffer's. */
			memset(tail, 0, sizeof(tail));
			memcpy(tail, src + 16 * whole, len % 16);
			_mm_stream_si128(dst, _mm_loadu_si128((const __m128i *)(const void *)tail));
		}
		return;
	}
#endif
	{
		uint8_t *p = (uint8_t *)(r + 1);

		*r = h;
		for (; m != NULL; m = m->next) {
			rte_memcpy(p, rte_pktmbuf_mtod(m, const void *), m->data_len);
			p += m->data_len;
		}
	}
}

/* ---- the wheel ---- */

static inline void
wheel_insert(struct dir *d, struct rec *r, uint32_t id)
{
	uint64_t b = r->tts >> d->gshift;
	struct bucket *bk;
	uint32_t prev, cur;

	if (b < d->base)
		b = d->base;		/* late already: due now */
	bk = &d->wheel[b & d->wmask];
	d->in_wheel++;
	r->next = NIL;
	if (bk->first == NIL) {
		bk->first = bk->last = id;
		return;
	}
	if (rec_id(d, bk->last)->tts <= r->tts) {
		rec_id(d, bk->last)->next = id;
		bk->last = id;
		return;
	}
	/* Before the last: after every record due no later (tfifo's ties). */
	prev = NIL;
	cur = bk->first;
	while (rec_id(d, cur)->tts <= r->tts) {
		prev = cur;
		cur = rec_id(d, cur)->next;
	}
	r->next = cur;
	if (prev == NIL)
		bk->first = id;
	else
		rec_id(d, prev)->next = id;
}

static inline bool
late_before(const struct late *a, const struct late *b)
{
	return a->tts < b->tts ||
	       (a->tts == b->tts && (int32_t)(a->seq - b->seq) < 0);
}

static inline void
late_push(struct dir *d, uint64_t tts, uint32_t id)
{
	struct late e = { .tts = tts, .id = id, .seq = d->seq };
	uint32_t i = d->nb_late++;

	while (i > 0) {
		uint32_t up = (i - 1) / 2;

		if (!late_before(&e, &d->late[up]))
			break;
		d->late[i] = d->late[up];
		i = up;
	}
	d->late[i] = e;
}

static inline void
late_pop(struct dir *d)
{
	struct late e = d->late[--d->nb_late];
	uint32_t i = 0, n = d->nb_late;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && late_before(&d->late[c + 1], &d->late[c]))
			c++;
		if (!late_before(&d->late[c], &e))
			break;
		d->late[i] = d->late[c];
		i = c;
	}
	if (n != 0)
		d->late[i] = e;
}

/* The oldest record not yet in the wheel, past pads and reordered ones
 * (which are on the head list), or NULL. */
static inline const struct rec *
fifo_peek(struct dir *d)
{
	while (d->fifo_recs != 0) {
		const struct rec *r = rec_at(d, d->fifo);

		if (r->flags & F_PAD) {
			d->fifo = 0;
			continue;
		}
		if (!(r->flags & F_HEAD))
			return r;
		d->fifo += rec_bytes(d, d->fifo, r);
		if (d->fifo == d->size)
			d->fifo = 0;
		d->fifo_recs--;
	}
	return NULL;
}

/* Records from the arrival order into the wheel while they fit in it. */
static inline void
migrate(struct dir *d)
{
	uint64_t end = (d->base + d->wmask + 1) << d->gshift;

	while (d->fifo_recs != 0) {
		struct rec *r = rec_at(d, d->fifo);
		uint64_t ahead = d->fifo + 1024;

		/* The ring is read once, in order, long after it was written. */
		rte_prefetch0(d->mem + (ahead < d->size ? ahead : ahead - d->size));
		if (r->flags & F_PAD) {
			d->fifo = 0;
			continue;
		}
		if (!(r->flags & F_HEAD)) {
			uint32_t id = (uint32_t)(d->fifo >> 4);

			if (r->tts >= end)
				break;
			if (r->tts < (d->base << d->gshift) &&
			    d->nb_late < d->max_late)
				late_push(d, r->tts, id);
			else
				wheel_insert(d, r, id);
			d->seq++;
		}
		d->fifo += rec_bytes(d, d->fifo, r);
		if (d->fifo == d->size)
			d->fifo = 0;
		d->fifo_recs--;
	}
}

/*
 * FIFO mode: when no frame can be due before one that arrived earlier (no
 * jitter; or rate, whose "last" reference makes due times grow; or
 * no-reorder), the ring's arrival order is the order they leave, and the
 * oldest record is the next due: no wheel, no sorting, one compare a frame.
 */
static inline unsigned int
due_fifo(struct dir *d, uint64_t now, struct rec **out, unsigned int k,
	 unsigned int max)
{
	while (k < max && d->fifo_recs != 0) {
		struct rec *r = rec_at(d, d->fifo);
		uint64_t ahead = d->fifo + 1024;

		if (r->flags & F_PAD) {
			d->fifo = 0;
			continue;
		}
		rte_prefetch0(d->mem + (ahead < d->size ? ahead : ahead - d->size));
		if (!(r->flags & F_HEAD)) {
			if (r->tts > now || !lr_netem_may_send(&d->q, r->tts, now))
				break;
			lr_netem_sent(&d->q, r->len, now);
			out[k++] = r;
		}
		d->fifo += rec_bytes(d, d->fifo, r);
		if (d->fifo == d->size)
			d->fifo = 0;
		d->fifo_recs--;
	}
	return k;
}

/* Up to @p max records due at @p now, in the order they leave. */
static inline unsigned int
due(struct dir *d, uint64_t now, struct rec **out, unsigned int max)
{
	unsigned int k = 0;

	while (k < max && d->hfirst != NIL) {
		struct rec *r = rec_id(d, d->hfirst);

		d->hfirst = r->next;
		out[k++] = r;
	}
	if (d->fifo_mode)
		return due_fifo(d, now, out, k, max);
	migrate(d);
	while (k < max) {
		struct bucket *bk = &d->wheel[d->base & d->wmask];

		/* Late ones first: due before anything in the wheel. */
		if (d->nb_late != 0) {
			struct rec *r = rec_id(d, d->late[0].id);

			if (!lr_netem_may_send(&d->q, r->tts, now))
				break;
			late_pop(d);
			lr_netem_sent(&d->q, r->len, now);
			out[k++] = r;
			continue;
		}
		if (bk->first != NIL) {
			struct rec *r = rec_id(d, bk->first);

			if (r->tts > now || !lr_netem_may_send(&d->q, r->tts, now))
				break;
			bk->first = r->next;
			if (bk->first == NIL)
				bk->last = NIL;
			else
				rte_prefetch0(rec_id(d, bk->first));
			d->in_wheel--;
			lr_netem_sent(&d->q, r->len, now);
			out[k++] = r;
			continue;
		}
		if (d->in_wheel == 0) {
			/* Nothing in the wheel: jump to now, or to the oldest
			 * record's bucket if that is earlier (the lcore fell
			 * behind: the overdue frames then go through the wheel
			 * in order, not one by one into the late heap). */
			uint64_t to = now >> d->gshift;
			const struct rec *h = fifo_peek(d);

			if (h != NULL && (h->tts >> d->gshift) < to)
				to = h->tts >> d->gshift;
			if (to <= d->base)
				break;
			d->base = to;
			migrate(d);
			if (d->in_wheel == 0 && d->nb_late == 0)
				break;
			continue;
		}
		if (((d->base + 1) << d->gshift) > now)
			break;
		d->base++;
		migrate(d);
	}
	return k;
}

/* ---- control path ---- */

static void
dir_free(struct dir *d)
{
	if (d->nb_spare != 0)
		rte_pktmbuf_free_bulk(d->spare, d->nb_spare);
	d->nb_spare = 0;
	if (d->nb_pend > d->pend_off)
		rte_pktmbuf_free_bulk(d->pend + d->pend_off,
				      d->nb_pend - d->pend_off);
	d->nb_pend = d->pend_off = 0;
	rte_mempool_free(d->pool);
	d->pool = NULL;
	rte_free(d->mem);
	rte_free(d->wheel);
	rte_free(d->late);
	rte_free(d->lateness);
	d->mem = NULL;
	d->wheel = NULL;
	d->late = NULL;
	d->lateness = NULL;
	lr_netem_conf_free(&d->nc);
}

static void
delay_free(struct lr_task *t)
{
	struct delay *dl = t->priv;

	if (dl == NULL)
		return;
	dir_free(&dl->d[0]);
	dir_free(&dl->d[1]);
	rte_free(dl);
	t->priv = NULL;
}

/* Said once per process for each direction and SPEC: a scenario makes a
 * box per trial (rfc2544: 47 of them), each with the same words. */
static bool
first_time(const char *what, const char *spec)
{
	static uint64_t seen[64];
	static unsigned int nb_seen;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	const char *p;
	unsigned int i;

	for (p = what; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	h = (h ^ 0xff) * 0x100000001b3ull;
	for (p = spec; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	for (i = 0; i < nb_seen; i++)
		if (seen[i] == h)
			return false;
	if (nb_seen < RTE_DIM(seen))
		seen[nb_seen++] = h;
	return true;
}

/*
 * A SPEC's limit that cannot hold what its delay keeps in flight drops the
 * rest (over_limit): said, with the share of the port's line rate of 64 B
 * frames one queue pair gets, and the delay the limit holds of it. Not for
 * a rate: there queuing up to the limit is the point, whatever the delay.
 * Not for the bursts alone (1 ms): a SPEC without delay is not warned.
 */
static void
limit_warning(const struct dir *d, const char *what, const char *spec,
	      double pps, double bps, unsigned int nq, int64_t dmax)
{
	double q_pps = nq > 1 ? pps * 5 / 4 / nq : pps;
	double need = q_pps * (double)dmax / 1e9;

	if (d->limit == 0) {
		if (first_time(what, spec))
			DLOG(WARNING, "%s: 'limit 0': every frame is dropped "
			     "(over_limit), as sch_netem drops them", what);
		return;
	}
	if (d->nc.rate_Bps != 0 || dmax <= 0 || (double)d->limit >= need ||
	    !first_time(what, spec))
		return;
	DLOG(WARNING, "%s: limit %u holds %.3f ms of 64 B frames at %.3g "
	     "Mpps (%s%.0f Gb/s line rate), less than the %.3f ms the SPEC "
	     "delays: frames over it are dropped (over_limit)", what,
	     d->limit, d->limit / q_pps * 1e3, q_pps / 1e6,
	     nq > 1 ? "a queue pair's share of " : "", bps / 1e9,
	     (double)dmax / 1e6);
}

static uint64_t
pow2_at_least(uint64_t v)
{
	return v <= 1 ? 1 : 1ull << (64 - __builtin_clzll(v - 1));
}

/*
 * Size and allocate a direction's ring and wheel: the ring holds the
 * bandwidth-delay product of the out port's speed (64 B frames at line rate
 * for the greatest delay, 80 B each), shared by the port's queue pairs with
 * a quarter to spare for RSS's imbalance, or what buffer= says; netem's
 * limit, where the SPEC gives none, is what that ring holds.
 */
static int
dir_setup(struct dir *d, const struct lr_task *t, const struct lr_delay_conf *c,
	  unsigned int nq, const char *what, const char *spec)
{
	const struct lr_port_info *out = lr_port_info(d->out_port);
	const struct lr_port_info *in = lr_port_info(d->in_port);
	double bps = (out->link_speed_mbps ? out->link_speed_mbps : 10000) * 1e6;
	double pps = bps / 8 / (LR_FRAME_MIN_BYTES + 20);
	int64_t dmin, dmax;
	uint64_t span, buckets, frames, bytes, rec_max;
	double secs;
	uint32_t frame_max = in->mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN;

	lr_netem_delay_bounds(&d->nc, &dmin, &dmax);
	/* A delay below 0 is due at the arrival (enqueue()). */
	if (dmax < 0)
		dmax = 0;
	if (dmin < 0)
		dmin = 0;
	if (dmin > dmax)
		dmin = dmax;
	/* The wheel spans the jitter (how much earlier than the frame
	 * before it a frame can be due) and WHEEL_AHEAD_NS more: frames
	 * enter it that long before they are due, so that after a stall of
	 * the lcore (this VM's CPUs stop for up to 0.5 ms) they are waiting
	 * in order, not sorted one by one into the late heap. */
	span = (uint64_t)(dmax - dmin) + WHEEL_AHEAD_NS;
	d->stream = dmin >= STREAM_MIN_NS;
	d->fifo_mode = d->nc.jitter_ns == 0 || d->nc.no_reorder ||
		       d->nc.rate_Bps != 0;
	if (d->fifo_mode)
		span = 0;	/* the wheel is not used */
	d->gshift = GRAIN_MIN_SHIFT;
	while ((span >> d->gshift) > (1ull << WHEEL_MAX_SHIFT) - 2)
		d->gshift++;
	buckets = pow2_at_least((span >> d->gshift) + 2);
	d->wmask = buckets - 1;
	d->wheel = rte_malloc_socket("lr_delay_wheel", buckets * sizeof(*d->wheel),
				     RTE_CACHE_LINE_SIZE, t->socket);
	if (d->wheel == NULL)
		return lr_err(ENOMEM, "delay %s: no memory for a wheel of %" PRIu64
			      " buckets", what, buckets);
	memset(d->wheel, 0xff, buckets * sizeof(*d->wheel));

	/* The ring: the BDP with 1 ms of bursts on top. A record takes at
	 * most 1.08 times the frame's bytes on the wire (65 B frames: 96 B
	 * of record for 89 B with preamble and gap), 64 B frames 0.95. */
	secs = (double)dmax / 1e9 + 1e-3;
	frames = (uint64_t)(pps * secs);
	bytes = (uint64_t)(bps / 8 * secs * 1.08);
	if (nq > 1) {
		frames = frames * 5 / 4 / nq;
		bytes = bytes * 5 / 4 / nq;
	}
	rec_max = REC_HDR + RTE_ALIGN_CEIL((uint64_t)frame_max, 16);
	d->limit = d->nc.limit_given ? d->nc.limit : (uint32_t)RTE_MIN(frames + 4096,
								  (uint64_t)UINT32_MAX);
	if (d->nc.limit_given)
		limit_warning(d, what, spec, pps, bps, nq, dmax);
	if (d->nc.rate_Bps != 0)
		/* A rate slower than the frames come queues them up to the
		 * limit, whatever the delay: room for the limit's frames. */
		bytes = (uint64_t)d->limit * rec_max;
	else if (d->nc.limit_given)
		bytes = RTE_MIN((uint64_t)d->limit * rec_max,
				RTE_MAX(bytes, (uint64_t)d->limit * (REC_HDR + 64)));
	d->bdp_bytes = bytes;
	if (c->buffer != 0)
		bytes = c->buffer;
	bytes = RTE_MAX(bytes, (uint64_t)STORE_MIN);
	bytes = RTE_ALIGN_CEIL(bytes, 64);
	if (bytes >> 4 >= NIL)
		return lr_err(EINVAL, "delay %s: %" PRIu64 " MB of storage: at most "
			      "64 GB a direction", what, bytes >> 20);
	d->size = bytes;
	d->mem = rte_malloc_socket("lr_delay_ring", bytes, RTE_CACHE_LINE_SIZE,
				   t->socket);
	if (d->mem == NULL)
		return lr_err(ENOMEM, "delay %s: no %" PRIu64 " MB for its frames "
			      "(%.1f ms at %.0f Gb/s, 64 B frames, over %u queue "
			      "pairs): reserve hugepages (tools/setup.sh), or give "
			      "--buffer BYTES or 'limit N' in the SPEC",
			      what, bytes >> 20, (double)dmax / 1e6, bps / 1e9, nq);
	/* Every page touched now: a first touch on the fast path is a page
	 * fault (without hugepages, 61 k of them for 250 MB), and each makes
	 * the frames behind it late. */
	memset(d->mem, 0, bytes);
	d->hfirst = d->hlast = NIL;
	d->base = NS_BASE >> d->gshift;
	/* A heap for every record the ring holds, up to 4 M (64 MB); past
	 * that a late record walks its bucket's list instead. */
	d->max_late = (uint32_t)RTE_MIN(RTE_MIN((uint64_t)d->limit, bytes / 32),
					1ull << 22);
	d->late = rte_malloc_socket("lr_delay_late_heap",
				    sizeof(*d->late) * RTE_MAX(d->max_late, 1u),
				    RTE_CACHE_LINE_SIZE, t->socket);
	if (d->late == NULL)
		return lr_err(ENOMEM, "delay %s: no memory for %u late records",
			      what, d->max_late);
	memset(d->late, 0, sizeof(*d->late) * RTE_MAX(d->max_late, 1u));

	d->lateness = rte_zmalloc_socket("lr_delay_late", sizeof(*d->lateness),
					 RTE_CACHE_LINE_SIZE, t->socket);
	if (d->lateness == NULL)
		return lr_err(ENOMEM, "delay %s: no memory", what);
	lr_hist_init(d->lateness);

	/* A finished delay box's pool of this shape once its mbufs are back,
	 * or a new one (lr_pool.h). */
	d->pool = lr_pool_get("lr_dl", POOL_MBUFS, 256,
			      (uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
						RTE_PKTMBUF_HEADROOM + frame_max),
			      t->socket);
	if (d->pool == NULL)
		return lr_err(ENOMEM, "delay %s: no memory for %u tx mbufs", what,
			      POOL_MBUFS);
	return 0;
}

static int
dir_init(struct dir *d, const struct lr_task *t, const struct lr_delay_conf *c,
	 const char *spec, uint16_t in, uint16_t out, unsigned int nq,
	 bool needed)
{
	const struct lr_port_info *pi = lr_port_info(in), *po = lr_port_info(out);
	char what[2 * RTE_ETH_NAME_MAX_LEN + 8], err[256];

	snprintf(what, sizeof(what), "%s -> %s", pi->name, po->name);
	if (lr_netem_parse(spec, &d->nc, err, sizeof(err)) != 0)
		return lr_err(EINVAL, "delay %s: %s", what, err);
	d->in_port = in;
	d->out_port = out;
	d->in_queue = d->out_queue = t->queue;
	d->late_ns = c->late_ns;
	d->late_share = c->late_share;
	if (t->queue >= pi->nb_rxq || t->queue >= po->nb_txq) {
		if (needed)
			return lr_err(EINVAL, "delay %s: queue pair %u needs rx "
				      "queue %u of %s and tx queue %u of %s",
				      what, t->queue, t->queue, pi->name,
				      t->queue, po->name);
		return 0;	/* a port that only receives (pcap tx) */
	}
	d->active = true;
	d->pass = lr_netem_conf_is_none(&d->nc);
	if (d->pass)
		return 0;
	if (dir_setup(d, t, c, nq, what, spec) != 0)
		return -ENOMEM;
	/* netem's decisions take the limit the ring was sized for. */
	d->nc.limit = d->limit;
	lr_netem_init(&d->q, &d->nc);
	return 0;
}

/* The peer's port id from its spec. */
static int
peer_id(const char *spec, uint16_t *id)
{
	if (lr_port_find(spec, id) != 0 || lr_port_info(*id) == NULL)
		return lr_err(EINVAL, "delay: peer '%s' is not a set-up port",
			      spec);
	return 0;
}

static int
delay_init(struct lr_task *t, const void *conf)
{
	const struct lr_delay_conf *c = conf;
	const struct lr_port_info *a = lr_port_info(t->port), *b;
	struct delay *dl;
	uint16_t peer;
	unsigned int nq;
	int ret;

	if (delay_conf_check(c) != 0 || peer_id(c->peer, &peer) != 0)
		return -EINVAL;
	if (peer == t->port)
		return lr_err(EINVAL, "delay: --peer is --port (%s): give the "
			      "other port", a->name);
	if (t->queue == LR_QUEUE_NONE)
		return lr_err(EINVAL, "delay: a task needs a queue pair");
	b = lr_port_info(peer);
	nq = RTE_MIN(a->nb_rxq, b->nb_rxq == 0 ? a->nb_rxq : b->nb_rxq);
	dl = rte_zmalloc_socket("lr_delay", sizeof(*dl), RTE_CACHE_LINE_SIZE,
				t->socket);
	if (dl == NULL)
		return lr_err(ENOMEM, "delay: no memory for a task");
	t->priv = dl;
	dl->tsc0 = rte_rdtsc();
	dl->stall_min_cycles = rte_get_tsc_hz() / 1000000 * STALL_US;
	dl->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
	ret = dir_init(&dl->d[0], t, c, c->netem, t->port, peer, RTE_MAX(nq, 1u),
		       true);
	if (ret == 0)
		ret = dir_init(&dl->d[1], t, c, c->netem_back, peer, t->port,
			       RTE_MAX(nq, 1u), c->netem_back[0] != '\0');
	if (ret != 0) {
		delay_free(t);
		return ret;
	}
	return 0;
}

/* Frames still held when the task stops are not sent: counted. */
static void
delay_finish(struct lr_task *t)
{
	struct delay *dl = t->priv;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct dir *d = &dl->d[i];
		uint16_t wait = d->nb_pend - d->pend_off;

		d->c.held_at_stop = d->c.held + wait;
		d->c.held = 0;
		if (wait != 0)
			rte_pktmbuf_free_bulk(d->pend + d->pend_off, wait);
		d->nb_pend = d->pend_off = 0;
		/* Done: what only the fast path used goes now, not at the
		 * process's end (a scenario makes a box a trial); the
		 * counters and the lateness stay for the reports. */
		if (d->nb_spare != 0)
			rte_pktmbuf_free_bulk(d->spare, d->nb_spare);
		d->nb_spare = 0;
		lr_pool_put(d->pool);
		d->pool = NULL;
		rte_free(d->mem);
		rte_free(d->wheel);
		rte_free(d->late);
		d->mem = NULL;
		d->wheel = NULL;
		d->late = NULL;
	}
}

/* The counters of a direction, and what they say of each other. */
static void
counts_json(json_t *o, const struct dir_counts *c, const struct lr_hist *late)
{
#define DELAY_JSON(name, key, what) \
	json_object_set_new(o, key, json_integer((json_int_t)c->name));
	DELAY_COUNTERS(DELAY_JSON)
#undef DELAY_JSON
	json_object_set_new(o, "lateness", late != NULL && late->count != 0 ?
			    lr_hist_json(late) : json_object());
}

/* Frames taken from the ring or the rx queue that the tx queue has not
 * taken yet. Read by the main lcore while the task runs: a snapshot. */
static uint64_t
tx_wait(const struct dir *d)
{
	uint16_t n = d->nb_pend, off = d->pend_off;

	return n > off ? (uint64_t)(n - off) : 0;
}

/* in + duplicated = out + lost + over_limit + no_room + held + waiting for
 * the tx queue + held at stop: every frame is somewhere. */
static bool
conserved(const struct dir_counts *c, uint64_t wait)
{
	return c->in + c->duplicated == c->out + c->lost + c->over_limit +
	       c->no_room + c->held + wait + c->held_at_stop;
}

/* Cycles a frame costs the lcore (its way in and its way out, the PMDs'
 * work included), and the frame rate one lcore would hold at that cost. */
static void
cost_json(json_t *o, uint64_t cycles, uint64_t frames)
{
	double cpf = frames ? (double)cycles / (double)frames : 0;

	json_object_set_new(o, "cycles_per_frame", json_real(cpf));
	json_object_set_new(o, "mpps_ceiling",
			    json_real(cpf > 0 ? (double)rte_get_tsc_hz() / cpf / 1e6 : 0));
}

static void
delay_report(const struct lr_task *t, json_t *o)
{
	const struct delay *dl = t->priv;
	unsigned int i;

	cost_json(o, dl->busy_cycles, dl->d[0].c.in + dl->d[1].c.in);
	json_object_set_new(o, "max_poll_gap_us",
			    json_real((double)dl->max_gap_cycles * 1e6 / (double)rte_get_tsc_hz()));
	json_object_set_new(o, "stalled_us",
			    json_real((double)dl->stall_cycles * 1e6 / (double)rte_get_tsc_hz()));
	for (i = 0; i < 2; i++) {
		const struct dir *d = &dl->d[i];
		json_t *j;
		char buf[LR_DELAY_SPEC_MAX];

		if (!d->active)
			continue;
		j = json_object();
		lr_netem_conf_format(&d->nc, buf, sizeof(buf));
		json_object_set_new(j, "netem", json_string(buf));
		json_object_set_new(j, "in_port", json_string(lr_port_info(d->in_port)->name));
		json_object_set_new(j, "out_port", json_string(lr_port_info(d->out_port)->name));
		if (!d->pass) {
			json_object_set_new(j, "limit", json_integer(d->limit));
			json_object_set_new(j, "storage_bytes", json_integer((json_int_t)d->size));
			json_object_set_new(j, "bdp_bytes", json_integer((json_int_t)d->bdp_bytes));
		}
		counts_json(j, &d->c, d->pass ? NULL : d->lateness);
		json_object_set_new(o, dir_name[i], j);
	}
}

static void
counts_add(struct dir_counts *s, const struct dir_counts *c)
{
#define DELAY_ADD(name, key, what) s->name += c->name;
	DELAY_COUNTERS(DELAY_ADD)
#undef DELAY_ADD
}

static void
delay_results(json_t *doc)
{
	struct lr_hist *late[2] = { NULL, NULL };
	struct dir_counts sum[2];
	uint64_t wait[2] = { 0, 0 }, cycles = 0;
	json_t *o = json_object();
	unsigned int it = 0, i, n = 0;
	bool running = false;
	struct lr_task *t;

	memset(sum, 0, sizeof(sum));
	for (i = 0; i < 2; i++) {
		late[i] = malloc(sizeof(*late[i]));
		if (late[i] != NULL)
			lr_hist_init(late[i]);
	}
	while ((t = lr_role_next(&lr_delay_role, &it)) != NULL) {
		const struct delay *dl = t->priv;

		n++;
		running |= lr_task_state(t) == LR_TASK_RUNNING;
		cycles += dl->busy_cycles;
		for (i = 0; i < 2; i++) {
			if (!dl->d[i].active)
				continue;
			counts_add(&sum[i], &dl->d[i].c);
			wait[i] += tx_wait(&dl->d[i]);
			if (late[i] != NULL && !dl->d[i].pass)
				lr_hist_merge(late[i], dl->d[i].lateness);
		}
	}
	if (n == 0) {
		json_decref(o);
		free(late[0]);
		free(late[1]);
		return;
	}
	for (i = 0; i < 2; i++) {
		json_t *j = json_object();

		counts_json(j, &sum[i], late[i]);
		/* While the lcores count, a read sees frames between two
		 * counters: the sum holds at rest, and is checked then. */
		json_object_set_new(j, "conserved", running ? json_null() :
				    json_boolean(conserved(&sum[i], wait[i])));
		json_object_set_new(o, dir_name[i], j);
		free(late[i]);
	}
	cost_json(o, cycles, sum[0].in + sum[1].in);
	json_object_set_new(doc, "delay", o);
}

/* One direction's counters as the summary line shows them: every one the
 * conservation check (conserved()) adds up, "held" with what waits for the
 * tx queue, and late. */
static int
dir_words(char *buf, size_t len, const struct dir_counts *c, uint64_t wait)
{
	return snprintf(buf, len, "in %" PRIu64 " duplicated %" PRIu64
			" out %" PRIu64 " lost %" PRIu64 " over-limit %" PRIu64
			" no-room %" PRIu64 " held %" PRIu64 " held-at-stop %"
			PRIu64 " late %" PRIu64, c->in, c->duplicated, c->out,
			c->lost, c->over_limit, c->no_room, c->held + wait,
			c->held_at_stop, c->late);
}

static void
delay_live(char *buf, size_t len)
{
	struct dir_counts s[2];
	uint64_t wait[2] = { 0, 0 };
	unsigned int it = 0, i;
	struct lr_task *t;
	bool any = false, back = false;
	int k;

	memset(s, 0, sizeof(s));
	buf[0] = '\0';
	while ((t = lr_role_next(&lr_delay_role, &it)) != NULL) {
		const struct delay *dl = t->priv;

		any = true;
		back |= dl->d[1].active;
		for (i = 0; i < 2; i++) {
			counts_add(&s[i], &dl->d[i].c);
			wait[i] += tx_wait(&dl->d[i]);
		}
	}
	if (!any)
		return;
	k = dir_words(buf, len, &s[0], wait[0]);
	if (back && k > 0 && (size_t)k < len) {
		k += snprintf(buf + k, len - (size_t)k, "; back ");
		if (k > 0 && (size_t)k < len)
			dir_words(buf + k, len - (size_t)k, &s[1], wait[1]);
	}
}

/*
 * Late: more of a direction's frames left later than --late after their
 * due time than --late-share allows. The box did not emulate the path it
 * was asked for (its lcore stalled, or could not keep up): a result
 * measured through it is the machine's, not the SPEC's.
 */
static enum lr_verdict
delay_verdict(const struct lr_task *t, char *why, size_t len)
{
	const struct delay *dl = t->priv;
	unsigned int i;

	if (dl == NULL)
		return LR_VERDICT_OK;
	for (i = 0; i < 2; i++) {
		const struct dir *d = &dl->d[i];
		uint64_t n, late;

		if (!d->active || d->pass || d->lateness == NULL)
			continue;
		n = d->lateness->count;
		late = d->c.late;
		if (n == 0 || (double)late <= d->late_share * (double)n)
			continue;
		snprintf(why, len, "delay %s -> %s queue %u: late: %.3g %% of %"
			 PRIu64 " frames left more than %u ns after due (p99 "
			 "%.3f ms late) > %.3g %% (--late-share)",
			 lr_port_info(d->in_port)->name,
			 lr_port_info(d->out_port)->name, d->in_queue,
			 100.0 * (double)late / (double)n, n, d->late_ns,
			 lr_hist_quantile(d->lateness, 0.99) / 1e6,
			 d->late_share * 100);
		return LR_VERDICT_LATE;
	}
	return LR_VERDICT_OK;
}

/* Every frame that came in is accounted for, or the run fails. */
static int
delay_check(void)
{
	unsigned int it = 0, i;
	struct lr_task *t;

	while ((t = lr_role_next(&lr_delay_role, &it)) != NULL) {
		const struct delay *dl = t->priv;

		for (i = 0; i < 2; i++) {
			const struct dir_counts *c = &dl->d[i].c;

			if (dl->d[i].active && !conserved(c, tx_wait(&dl->d[i])))
				return lr_err(EIO, "delay task %u %s: %" PRIu64
					      " in + %" PRIu64 " duplicated != %"
					      PRIu64 " out + %" PRIu64 " lost + %"
					      PRIu64 " over limit + %" PRIu64
					      " no room + %" PRIu64 " held",
					      t->id, dir_name[i], c->in,
					      c->duplicated, c->out, c->lost,
					      c->over_limit, c->no_room,
					      c->held + c->held_at_stop +
					      tx_wait(&dl->d[i]));
		}
	}
	return 0;
}

/*
 * --role delay --port A --peer B: B is set up as A was (if it is not yet),
 * and a task serves each queue pair, both directions, lcores in turn.
 */
static int
delay_plan(uint16_t port, const void *conf, const void *with_conf,
	   const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_delay_conf *c = conf;
	const struct lr_port_conf *pc = lr_port_conf_of(port);
	const struct lr_port_info *a = lr_port_info(port), *b;
	struct lr_delay_conf qc = *c;
	uint16_t peer;
	unsigned int q, nq;

	RTE_SET_USED(with_conf);
	if (delay_conf_check(c) != 0)
		return -EINVAL;
	if (lr_port_find(c->peer, &peer) != 0 || lr_port_info(peer) == NULL) {
		if (pc == NULL || lr_port_find_for(c->peer, pc, &peer) != 0 ||
		    lr_port_setup(peer, pc) != 0)
			return -EINVAL;
	}
	b = lr_port_info(peer);
	snprintf(qc.peer, sizeof(qc.peer), "%u", peer);
	nq = a->nb_rxq;
	if (b->nb_rxq != 0)
		nq = RTE_MIN(nq, b->nb_rxq);
	for (q = 0; q < nq; q++)
		if (lr_task_create(&lr_delay_role, lcores[q % n], port,
				   (uint16_t)q, duration_s, &qc) == NULL)
			return -EINVAL;
	return (int)nq;
}

/* ---- the fast path: a burst each way ---- */

static inline uint64_t
now_ns(const struct delay *dl, uint64_t tsc)
{
	return NS_BASE + (uint64_t)((double)(tsc - dl->tsc0) * dl->ns_per_tsc);
}

/* The bytes of what the port took: a frame it did not take yet may be
 * freed at the stop, never sent. */
static inline void
count_tx(struct rte_mbuf **m, uint16_t n, struct lr_task_stats *st)
{
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < n; i++)
		bytes += m[i]->pkt_len;
	st->tx_pkts += n;
	st->tx_bytes += bytes;
}

/* Send what the queue did not take before. @return true when all went. */
static inline bool
flush_pend(struct dir *d, struct lr_task_stats *st)
{
	uint16_t n;

	if (d->nb_pend == d->pend_off)
		return true;
	n = rte_eth_tx_burst(d->out_port, d->out_queue, d->pend + d->pend_off,
			     d->nb_pend - d->pend_off);
	count_tx(d->pend + d->pend_off, n, st);
	d->pend_off += n;
	d->c.out += n;
	if (d->pend_off < d->nb_pend)
		return false;
	d->nb_pend = d->pend_off = 0;
	return true;
}

static inline void
tx(struct dir *d, struct rte_mbuf **m, uint16_t k, struct lr_task_stats *st)
{
	uint16_t n = rte_eth_tx_burst(d->out_port, d->out_queue, m, k);

	d->c.out += n;
	count_tx(m, n, st);
	if (n < k) {
		d->c.tx_full++;
		st->tx_retry++;
		memcpy(d->pend, m + n, sizeof(*m) * (k - n));
		d->nb_pend = k - n;
		d->pend_off = 0;
	}
}

/* A direction with no impairment: a wire. */
static inline void
pass(struct dir *d, struct lr_task_stats *st)
{
	struct rte_mbuf *m[LR_BURST];
	uint16_t n, i;

	if (!flush_pend(d, st))
		return;
	n = rte_eth_rx_burst(d->in_port, d->in_queue, m, LR_BURST);
	if (n == 0)
		return;
	d->c.in += n;
	st->rx_pkts += n;
	for (i = 0; i < n; i++)
		st->rx_bytes += m[i]->pkt_len;
	tx(d, m, n, st);
}

static inline void
enqueue(struct dir *d, const struct delay *dl, struct lr_task_stats *st)
{
	struct rte_mbuf *m[LR_BURST];
	struct lr_netem_copy cp[2];
	uint16_t n, i;
	unsigned int k, j;
	uint64_t now;

	n = rte_eth_rx_burst(d->in_port, d->in_queue, m, LR_BURST);
	if (n == 0)
		return;
	/* The burst's arrival: after the PMD's work, which is not delay. */
	now = now_ns(dl, rte_rdtsc());
	d->c.in += n;
	st->rx_pkts += n;
	for (i = 0; i < n; i++) {
		uint32_t len = m[i]->pkt_len;

		st->rx_bytes += len;
		k = lr_netem_enqueue(&d->q, len, now, (uint32_t)d->c.held, cp);
		d->c.duplicated += k - 1;
		for (j = 0; j < k; j++) {
			struct rec *r;
			uint32_t id;

			if (cp[j].fate == LR_NETEM_LOST) {
				d->c.lost++;
				continue;
			}
			if (cp[j].fate == LR_NETEM_OVER_LIMIT) {
				d->c.over_limit++;
				continue;
			}
			r = rec_new(d, len);
			if (unlikely(r == NULL)) {
				d->c.no_room++;
				continue;
			}
			/* A delay below 0 (a table or a jitter beyond the
			 * delay) is due at once: sch_netem's tfifo sends a
			 * frame due in the past at the next dequeue, not
			 * late. */
			rec_write(r, cp[j].tts < now ? now : cp[j].tts, len,
				  cp[j].fate == LR_NETEM_HEAD ? F_HEAD : 0, m[i],
				  d->stream);
			if (cp[j].corrupt && len != 0) {
				((uint8_t *)(r + 1))[cp[j].corrupt_byte % len] ^=
					(uint8_t)(1u << (cp[j].corrupt_bit & 7));
				d->c.corrupted++;
			}
			d->c.held++;
			if (cp[j].fate == LR_NETEM_HEAD) {
				d->c.reordered++;
				id = (uint32_t)(((uint8_t *)r - d->mem) >> 4);
				if (d->hfirst == NIL)
					d->hfirst = id;
				else
					rec_id(d, d->hlast)->next = id;
				d->hlast = id;
			}
		}
	}
#ifdef RTE_ARCH_X86
	_mm_sfence();
#endif
	rte_pktmbuf_free_bulk(m, n);
}

static inline void
dequeue(struct dir *d, uint64_t now, struct lr_task_stats *st)
{
	struct rec *r[LR_BURST];
	struct rte_mbuf *m[LR_BURST];
	unsigned int k, i;

	if (!flush_pend(d, st) || d->c.held == 0)
		return;
	if (d->nb_spare < LR_BURST) {
		if (rte_pktmbuf_alloc_bulk(d->pool, d->spare + d->nb_spare,
					   LR_BURST - d->nb_spare) != 0) {
			st->alloc_fail++;
			if (d->nb_spare == 0)
				return;
		} else {
			d->nb_spare = LR_BURST;
		}
	}
	k = due(d, now, r, d->nb_spare);
	if (k == 0)
		return;
	for (i = 0; i < k; i++) {
		struct rte_mbuf *mb = d->spare[--d->nb_spare];
		uint64_t late = now - r[i]->tts;

		if (i + 1 < k) {
			rte_prefetch0(r[i + 1]);
			rte_prefetch0((uint8_t *)r[i + 1] + 64);
		}
		m[i] = mb;
		mb->data_len = r[i]->len;
		mb->pkt_len = r[i]->len;
		rte_memcpy(rte_pktmbuf_mtod(mb, void *), r[i] + 1, r[i]->len);
		if (r[i]->tts <= now) {
			lr_hist_add(d->lateness, late);
			if (late > d->late_ns)
				d->c.late++;
		}
		/* The order is the tfifo's, or a bug: counted, tests want 0. */
		if (!(r[i]->flags & F_HEAD)) {
			d->c.misordered += r[i]->tts < d->last_tts;
			d->last_tts = r[i]->tts;
		}
		r[i]->flags |= F_FREE;
	}
	d->c.held -= k;
	if (d->c.held == 0)
		lr_netem_queue_empty(&d->q);
	tail_advance(d);
	tx(d, m, (uint16_t)k, st);
}

static int
delay_poll(struct lr_task *t, uint64_t now_tsc)
{
	struct delay *dl = t->priv;
	uint64_t moved = t->st.rx_pkts + t->st.tx_pkts;
	uint64_t t0 = rte_rdtsc();	/* now_tsc is the lcore's pass, not ours */
	unsigned int i;
	uint64_t now;

	RTE_SET_USED(now_tsc);
	if (unlikely(t0 - dl->last_poll_tsc > dl->stall_min_cycles) &&
	    dl->last_poll_tsc != 0) {
		dl->stall_cycles += t0 - dl->last_poll_tsc;
		if (t0 - dl->last_poll_tsc > dl->max_gap_cycles)
			dl->max_gap_cycles = t0 - dl->last_poll_tsc;
	}
	dl->last_poll_tsc = t0;
	for (i = 0; i < 2; i++) {
		struct dir *d = &dl->d[i];

		if (!d->active)
			continue;
		if (d->pass) {
			pass(d, &t->st);
			continue;
		}
		if (d->nb_pend == d->pend_off)
			enqueue(d, dl, &t->st);
	}
	now = now_ns(dl, rte_rdtsc());
	for (i = 0; i < 2; i++)
		if (dl->d[i].active && !dl->d[i].pass)
			dequeue(&dl->d[i], now, &t->st);
	/* Cycles of the polls that moved frames: what a frame costs. */
	if (t->st.rx_pkts + t->st.tx_pkts != moved)
		dl->busy_cycles += rte_rdtsc() - t0;
	/* A capture played through ends the task once it has all left. */
	if (unlikely(t->capture) && dl->d[0].c.held == 0 &&
	    dl->d[0].nb_pend == dl->d[0].pend_off && dl->d[1].c.held == 0 &&
	    dl->d[1].nb_pend == dl->d[1].pend_off)
		return lr_task_capture_end(t);
	return 0;
}

const struct lr_role lr_delay_role = {
	.name = "delay",
	.opts = delay_opts,
	.uses_rx = true,
	.conf_bytes = sizeof(struct lr_delay_conf),
	.conf_init = delay_conf_init,
	.conf_set = delay_conf_set,
	.conf_check = delay_conf_check,
	.init = delay_init,
	.poll = delay_poll,
	.finish = delay_finish,
	.report = delay_report,
	.free = delay_free,
	.results = delay_results,
	.live = delay_live,
	.check = delay_check,
	.verdict = delay_verdict,
	.plan = delay_plan,
};
