/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A direction's storage, inside lib/delay only: the ring of records, the
 * timing wheel, the late heap, the head list of reordered frames, and the
 * order they leave in (due()). Header only and static inline: delay.c's
 * poll compiles it as it did when it was that file's own, and
 * tests/unit/delay/test_store.c runs the same code on memory of its own
 * (no EAL, no port, no pool). delay_setup.c sizes and allocates it.
 *
 * The ring. What a direction holds is one ring of bytes, in arrival order:
 * a 16 B record header (due time, wheel link, length, flags) and the frame
 * rounded up to 16 B. A record that would cross the ring's end leaves a
 * pad record there and starts again at 0. A record is freed where it is
 * sent; the ring's tail moves over freed records and pads, so a frame that
 * leaves before older ones (jitter) holds its bytes until they leave too.
 *
 * Order. Frames leave in the order of their due time (the kernel's tfifo:
 * ties in arrival order). Where due times never go back (no jitter; rate;
 * no-reorder) that is the ring's own order (FIFO mode, due_fifo()). Else a
 * timing wheel of 2^k buckets of G ns spans the jitter (the greatest delay
 * less the least, lr_netem_delay_bounds) and 64 us more, each bucket a list
 * kept sorted. A record enters the wheel from the ring's arrival order once
 * its due time falls inside the wheel; since no frame is due earlier than
 * the least delay after the arrival of the frames before it, waiting for
 * the oldest to fit loses no order. The wheel holds a few milliseconds of
 * frames, not the 184 ms of the path; a frame that enters it already late
 * (the lcore stopped longer than that) waits in a heap by due time.
 * Reordered frames (netem's reorder: due now) go on the head list and
 * leave before all others.
 */
#ifndef LR_DELAY_STORE_H
#define LR_DELAY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>
#ifdef RTE_ARCH_X86
#include <emmintrin.h>
#endif

#include "lr_netem.h"

#define REC_HDR 16u
#define NIL UINT32_MAX
#define F_FREE 1u		/* sent: the tail may pass it */
#define F_PAD 2u		/* filler to the ring's end */
#define F_HEAD 4u		/* reordered: on the head list, not the wheel */

#define GRAIN_MIN_SHIFT 8	/* buckets of 256 ns at least: a few frames each */
#define WHEEL_MAX_SHIFT 22	/* 4 M buckets at most (32 MiB) */
/* The most a direction can store: record ids are 16 B units below NIL. */
#define STORE_MAX ((((uint64_t)NIL - 1) << 4) & ~63ull)

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

/*
 * A direction's storage (dir.store). Laid out as these fields were in
 * struct dir before they had a header of their own (fifo_mode in what was
 * padding), so that the fast path's loads did not move. A record's id is
 * its offset in 16 B units.
 */
struct store {
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
	bool fifo_mode;		/* due times never go back: due_fifo() */
};

/* ---- setup (control path) ---- */

static inline uint64_t
pow2_at_least(uint64_t v)
{
	return v <= 1 ? 1 : 1ull << (64 - __builtin_clzll(v - 1));
}

/* The wheel for due times up to @p span ns apart in it: the grain (gshift,
 * 256 ns or more, for at most 4 M buckets) and wmask. @return the buckets
 * to allocate. */
static inline uint64_t
store_shape(struct store *s, uint64_t span)
{
	uint64_t buckets;

	s->gshift = GRAIN_MIN_SHIFT;
	while ((span >> s->gshift) > (1ull << WHEEL_MAX_SHIFT) - 2)
		s->gshift++;
	buckets = pow2_at_least((span >> s->gshift) + 2);
	s->wmask = buckets - 1;
	return buckets;
}

/*
 * An empty store on what the caller allocated: mem of size bytes (a
 * multiple of 64, at most STORE_MAX), wheel of the buckets store_shape()
 * gave, late of max(max_late, 1) entries. Every page touched now: a first
 * touch on the fast path is a page fault (without hugepages, 61 k of them
 * for 250 MB), and each makes the frames behind it late. Times start at
 * @p t0 ns.
 */
static inline void
store_init(struct store *s, uint64_t t0)
{
	memset(s->mem, 0, s->size);
	memset(s->wheel, 0xff, (s->wmask + 1) * sizeof(*s->wheel));
	memset(s->late, 0, sizeof(*s->late) * RTE_MAX(s->max_late, 1u));
	s->used = s->head = s->tail = s->fifo = s->fifo_recs = 0;
	s->in_wheel = 0;
	s->nb_late = s->seq = 0;
	s->hfirst = s->hlast = NIL;
	s->base = t0 >> s->gshift;
}

/* ---- the ring ---- */

static inline struct rec *
rec_at(const struct store *s, uint64_t off)
{
	return (struct rec *)(s->mem + off);
}

static inline struct rec *
rec_id(const struct store *s, uint32_t id)
{
	return (struct rec *)(s->mem + ((uint64_t)id << 4));
}

static inline uint64_t
rec_bytes(const struct store *s, uint64_t off, const struct rec *r)
{
	if (r->flags & F_PAD)
		return s->size - off;
	return REC_HDR + RTE_ALIGN_CEIL((uint64_t)r->len, 16);
}

/* Room for a record of @p len bytes: the record (its header not written
 * yet: rec_write()), or NULL (the caller counts it; nothing moved).
 * @p high: the most bytes in use, raised. */
static inline struct rec *
rec_new(struct store *s, uint32_t len, uint64_t *high)
{
	uint64_t need = REC_HDR + RTE_ALIGN_CEIL((uint64_t)len, 16);
	uint64_t to_end = s->size - s->head;
	struct rec *r;

	if (unlikely(need > to_end)) {
		if (s->used + to_end + need > s->size)
			return NULL;
		r = rec_at(s, s->head);
		r->flags = F_PAD;
		r->len = 0;
		s->used += to_end;
		s->head = 0;
	} else if (s->used + need > s->size) {
		return NULL;
	}
	r = rec_at(s, s->head);
	s->used += need;
	s->head += need;
	if (s->head == s->size)
		s->head = 0;
	s->fifo_recs++;
	if (unlikely(s->used > *high))
		*high = s->used;
	return r;
}

/* Move the tail over what was sent. */
static inline void
tail_advance(struct store *s)
{
	while (s->used != 0) {
		struct rec *r = rec_at(s, s->tail);
		uint64_t b;

		if (!(r->flags & (F_FREE | F_PAD)))
			break;
		b = rec_bytes(s, s->tail, r);
		s->used -= b;
		s->tail += b;
		if (s->tail == s->size)
			s->tail = 0;
	}
}

/* Bytes from the tail to @p off, going forward around the ring. */
static inline uint64_t
from_tail(const struct store *s, uint64_t off)
{
	return off >= s->tail ? off - s->tail : off + s->size - s->tail;
}

/*
 * FIFO mode (due_fifo()): what lies before the fifo offset has left, but
 * for reordered frames still on the head list, which is in ring order: the
 * tail moves to the first of the two, and no record is marked F_FREE (a
 * store into each record read: the line, written around the caches and
 * read once, then went back to memory dirty).
 */
static inline void
tail_to_fifo(struct store *s)
{
	uint64_t to = s->fifo, gone;

	if (s->hfirst != NIL && from_tail(s, (uint64_t)s->hfirst << 4) <
				from_tail(s, to))
		to = (uint64_t)s->hfirst << 4;
	gone = from_tail(s, to);
	/* All left of a full ring: head, fifo and tail meet again. */
	if (gone == 0 && s->used == s->size && s->fifo_recs == 0 &&
	    s->hfirst == NIL)
		gone = s->size;
	s->used -= gone;
	s->tail = to;
}

/* @p r was copied out: its bytes may go once the tail gets to it (FIFO
 * mode marks nothing: tail_to_fifo()). */
static inline void
rec_sent(const struct store *s, struct rec *r)
{
	if (!s->fifo_mode)
		r->flags |= F_FREE;
}

/* The tail over what left, after rec_sent() of each record due() gave. */
static inline void
tail_move(struct store *s)
{
	if (s->fifo_mode)
		tail_to_fifo(s);
	else
		tail_advance(s);
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
#ifdef RTE_ARCH_X86
	RTE_BUILD_BUG_ON(offsetof(struct rec, next) != 8 ||
			 offsetof(struct rec, len) != 12 ||
			 offsetof(struct rec, flags) != 14);
	if (likely(m->next == NULL) && stream) {
		const uint8_t *src = rte_pktmbuf_mtod(m, const uint8_t *);
		__m128i *dst = (__m128i *)(void *)r;
		uint32_t i, whole = len / 16, all = (len + 15) / 16;
		uint8_t tail[16];

		/* The header made in a register: a 16-byte load of the
		 * struct just written field by field misses store forwarding
		 * (perf: 30 % of enqueue's samples on the store after it). */
		_mm_stream_si128(dst++, _mm_set_epi64x((long long)((uint64_t)NIL |
			((uint64_t)(uint16_t)len << 32) | ((uint64_t)flags << 48)),
			(long long)tts));
		/* The last 16 bytes are read past the frame's end where the
		 * buffer goes on (the bytes are never sent): one loop; else
		 * (a frame that ends its buffer) through a copy. */
		if (likely(rte_pktmbuf_tailroom(m) >= all * 16 - len)) {
			for (i = 0; i < all; i++)
				_mm_stream_si128(dst + i, _mm_loadu_si128(
					(const __m128i *)(const void *)(src + 16 * i)));
			return;
		}
		for (i = 0; i < whole; i++)
			_mm_stream_si128(dst++, _mm_loadu_si128(
				(const __m128i *)(const void *)(src + 16 * i)));
		if (len % 16 != 0) {
			memset(tail, 0, sizeof(tail));
			memcpy(tail, src + 16 * whole, len % 16);
			_mm_stream_si128(dst, _mm_loadu_si128((const __m128i *)(const void *)tail));
		}
		return;
	}
#endif
	{
		uint8_t *p = (uint8_t *)(r + 1);

		r->tts = tts;
		r->next = NIL;
		r->len = (uint16_t)len;
		r->flags = flags;
		for (; m != NULL; m = m->next) {
			rte_memcpy(p, rte_pktmbuf_mtod(m, const void *), m->data_len);
			p += m->data_len;
		}
	}
}

/* ---- the head list ---- */

/* A reordered frame (written with F_HEAD): it leaves before all others,
 * in the order they came. */
static inline void
head_push(struct store *s, const struct rec *r)
{
	uint32_t id = (uint32_t)(((const uint8_t *)r - s->mem) >> 4);

	if (s->hfirst == NIL)
		s->hfirst = id;
	else
		rec_id(s, s->hlast)->next = id;
	s->hlast = id;
}

/* ---- the wheel ---- */

#define WHEEL_PREFETCH 8

static inline void
wheel_insert(struct store *s, struct rec *r, uint32_t id)
{
	uint64_t b = r->tts >> s->gshift;
	struct bucket *bk;
	uint32_t prev, cur;

	if (b < s->base)
		b = s->base;		/* late already: due now */
	bk = &s->wheel[b & s->wmask];
	s->in_wheel++;
	r->next = NIL;
	if (bk->first == NIL) {
		bk->first = bk->last = id;
		return;
	}
	if (rec_id(s, bk->last)->tts <= r->tts) {
		rec_id(s, bk->last)->next = id;
		bk->last = id;
		return;
	}
	/* Before the last: after every record due no later (tfifo's ties). */
	prev = NIL;
	cur = bk->first;
	while (rec_id(s, cur)->tts <= r->tts) {
		prev = cur;
		cur = rec_id(s, cur)->next;
	}
	r->next = cur;
	if (prev == NIL)
		bk->first = id;
	else
		rec_id(s, prev)->next = id;
}

/* ---- the late heap ---- */

static inline bool
late_before(const struct late *a, const struct late *b)
{
	return a->tts < b->tts ||
	       (a->tts == b->tts && (int32_t)(a->seq - b->seq) < 0);
}

static inline void
late_push(struct store *s, uint64_t tts, uint32_t id)
{
	struct late e = { .tts = tts, .id = id, .seq = s->seq };
	uint32_t i = s->nb_late++;

	while (i > 0) {
		uint32_t up = (i - 1) / 2;

		if (!late_before(&e, &s->late[up]))
			break;
		s->late[i] = s->late[up];
		i = up;
	}
	s->late[i] = e;
}

static inline void
late_pop(struct store *s)
{
	struct late e = s->late[--s->nb_late];
	uint32_t i = 0, n = s->nb_late;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && late_before(&s->late[c + 1], &s->late[c]))
			c++;
		if (!late_before(&s->late[c], &e))
			break;
		s->late[i] = s->late[c];
		i = c;
	}
	if (n != 0)
		s->late[i] = e;
}

/* ---- from the ring into the wheel, and out ---- */

/* The oldest record not yet in the wheel, past pads and reordered ones
 * (which are on the head list), or NULL. */
static inline const struct rec *
fifo_peek(struct store *s)
{
	while (s->fifo_recs != 0) {
		const struct rec *r = rec_at(s, s->fifo);

		if (r->flags & F_PAD) {
			s->fifo = 0;
			continue;
		}
		if (!(r->flags & F_HEAD))
			return r;
		s->fifo += rec_bytes(s, s->fifo, r);
		if (s->fifo == s->size)
			s->fifo = 0;
		s->fifo_recs--;
	}
	return NULL;
}

/* Records from the arrival order into the wheel while they fit in it. */
static inline void
migrate(struct store *s)
{
	uint64_t end = (s->base + s->wmask + 1) << s->gshift;

	while (s->fifo_recs != 0) {
		struct rec *r = rec_at(s, s->fifo);
		uint64_t ahead = s->fifo + 1024;

		/* The ring is read once, in order, long after it was written. */
		rte_prefetch0(s->mem + (ahead < s->size ? ahead : ahead - s->size));
		if (r->flags & F_PAD) {
			s->fifo = 0;
			continue;
		}
		if (!(r->flags & F_HEAD)) {
			uint32_t id = (uint32_t)(s->fifo >> 4);

			if (r->tts >= end)
				break;
			if (r->tts < (s->base << s->gshift) &&
			    s->nb_late < s->max_late)
				late_push(s, r->tts, id);
			else
				wheel_insert(s, r, id);
			s->seq++;
		}
		s->fifo += rec_bytes(s, s->fifo, r);
		if (s->fifo == s->size)
			s->fifo = 0;
		s->fifo_recs--;
	}
}

/*
 * FIFO mode: when no frame can be due before one that arrived earlier (no
 * jitter; or rate, whose "last" reference makes due times grow; or
 * no-reorder), the ring's arrival order is the order they leave, and the
 * oldest record is the next due: no wheel, no sorting, one compare a frame.
 */
static inline unsigned int
due_fifo(struct store *s, struct lr_netem *q, uint64_t now, struct rec **out,
	 unsigned int k, unsigned int max)
{
	/* In registers: stored to *s a frame, the compiler read them back
	 * after each (perf: the loop's top sample). */
	uint64_t fifo = s->fifo, recs = s->fifo_recs;

	while (k < max && recs != 0) {
		struct rec *r = rec_at(s, fifo);
		uint64_t ahead = fifo + 1024;
		uint16_t flags = r->flags;

		if (flags & F_PAD) {
			fifo = 0;
			continue;
		}
		rte_prefetch0(s->mem + (ahead < s->size ? ahead : ahead - s->size));
		if (!(flags & F_HEAD)) {
			if (r->tts > now || !lr_netem_may_send(q, r->tts, now))
				break;
			lr_netem_sent(q, r->len, now);
			out[k++] = r;
		}
		fifo += REC_HDR + RTE_ALIGN_CEIL((uint64_t)r->len, 16);
		if (fifo == s->size)
			fifo = 0;
		recs--;
	}
	s->fifo = fifo;
	s->fifo_recs = recs;
	return k;
}

/* Up to @p max records due at @p now, in the order they leave; @p q, the
 * direction's netem, says whether its slots let them. */
static inline unsigned int
due(struct store *s, struct lr_netem *q, uint64_t now, struct rec **out,
    unsigned int max)
{
	unsigned int k = 0;

	while (k < max && s->hfirst != NIL) {
		struct rec *r = rec_id(s, s->hfirst);

		s->hfirst = r->next;
		out[k++] = r;
	}
	if (s->fifo_mode)
		return due_fifo(s, q, now, out, k, max);
	migrate(s);
	while (k < max) {
		struct bucket *bk = &s->wheel[s->base & s->wmask];

		/* Late ones first: due before anything in the wheel. */
		if (s->nb_late != 0) {
			struct rec *r = rec_id(s, s->late[0].id);

			if (!lr_netem_may_send(q, r->tts, now))
				break;
			late_pop(s);
			lr_netem_sent(q, r->len, now);
			out[k++] = r;
			continue;
		}
		if (bk->first != NIL) {
			struct rec *r = rec_id(s, bk->first);

			if (r->tts > now || !lr_netem_may_send(q, r->tts, now))
				break;
			bk->first = r->next;
			if (bk->first == NIL)
				bk->last = NIL;
			else
				rte_prefetch0(rec_id(s, bk->first));
			s->in_wheel--;
			lr_netem_sent(q, r->len, now);
			out[k++] = r;
			continue;
		}
		if (s->in_wheel == 0) {
			/* Nothing in the wheel: jump to now, or to the oldest
			 * record's bucket if that is earlier (the lcore fell
			 * behind: the overdue frames then go through the wheel
			 * in order, not one by one into the late heap). */
			uint64_t to = now >> s->gshift;
			const struct rec *h = fifo_peek(s);

			if (h != NULL && (h->tts >> s->gshift) < to)
				to = h->tts >> s->gshift;
			if (to <= s->base)
				break;
			s->base = to;
			migrate(s);
			if (s->in_wheel == 0 && s->nb_late == 0)
				break;
			continue;
		}
		if (((s->base + 1) << s->gshift) > now)
			break;
		s->base++;
		migrate(s);
		/* A bucket holds a frame or two (256 ns at 10 GbE): the
		 * first record of one WHEEL_PREFETCH buckets on, for when
		 * the base gets there (a lcore catching up walks buckets
		 * faster than a miss to memory). */
		{
			uint32_t ahead = s->wheel[(s->base + WHEEL_PREFETCH) & s->wmask].first;

			if (ahead != NIL)
				rte_prefetch0(rec_id(s, ahead));
		}
	}
	return k;
}

#endif
