/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The delay box's storage (lib/delay/delay_store.h) on its own: the ring of
 * records, the timing wheel, the late heap, the FIFO tail and the head
 * list, driven as delay.c's enqueue() and prepare() drive them, on memory
 * from malloc (no EAL, no port). Every frame carries its tag and length in
 * its bytes, so a record read back is checked whole: nothing overwritten,
 * nothing read from the wrong place.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delay_store.h"

/* The box's first time (NS_BASE): a multiple of 256, so the wheel's
 * buckets below start at T0 + 256 * n. */
#define T0 1000000000000ull
#define MAXF 2048u
#define TAKE_MAX 64u

static struct lr_netem_conf nc;
static struct lr_netem q;	/* no slots: due() goes by due times alone */

/* A direction as delay.c keeps one around its store. */
struct box {
	struct store s;
	uint64_t high;		/* storage_high_bytes, raised by rec_new() */
	uint64_t no_room;	/* records refused, counted as enqueue() does */
	bool stream;		/* rec_write() around the caches */
};

static void
box_open(struct box *b, uint64_t size, uint64_t span, uint32_t max_late,
	 bool fifo_mode)
{
	uint64_t buckets;

	memset(b, 0, sizeof(*b));
	b->s.fifo_mode = fifo_mode;
	b->s.size = size;
	b->s.max_late = max_late;
	buckets = store_shape(&b->s, span);
	b->s.mem = aligned_alloc(64, size);
	b->s.wheel = malloc(buckets * sizeof(*b->s.wheel));
	b->s.late = malloc(sizeof(*b->s.late) * RTE_MAX(max_late, 1u));
	assert_non_null(b->s.mem);
	assert_non_null(b->s.wheel);
	assert_non_null(b->s.late);
	store_init(&b->s, T0);
}

static void
box_close(struct box *b)
{
	free(b->s.mem);
	free(b->s.wheel);
	free(b->s.late);
}

static uint8_t
pat(uint32_t tag, uint32_t i)
{
	return (uint8_t)(tag * 151u + i * 7u + 1u);
}

/* A frame's bytes: its tag (4 B), its length (2 B), then a pattern of
 * both. */
static void
fill(uint8_t *p, uint32_t tag, uint32_t len)
{
	uint32_t i;

	memcpy(p, &tag, 4);
	p[4] = (uint8_t)len;
	p[5] = (uint8_t)(len >> 8);
	for (i = 6; i < len; i++)
		p[i] = pat(tag, i);
}

/* @return the tag of the frame @p r holds, its length and every byte
 * checked. */
static uint32_t
rec_check(const struct rec *r)
{
	const uint8_t *p = (const uint8_t *)(r + 1);
	uint32_t tag, i;

	assert_true(r->len >= 6);
	memcpy(&tag, p, 4);
	assert_int_equal(r->len, p[4] | (uint32_t)p[5] << 8);
	for (i = 6; i < r->len; i++)
		if (p[i] != pat(tag, i))
			fail_msg("frame %u: byte %u is %u, not %u", tag, i, p[i],
				 pat(tag, i));
	return tag;
}

/* An mbuf of one segment around @p buf: the frame ends its buffer
 * (@p ends: no tailroom, rec_write()'s copy of the last bytes) or not. */
static void
mbuf_on(struct rte_mbuf *m, uint8_t *buf, uint32_t len, bool ends)
{
	memset(m, 0, sizeof(*m));
	m->buf_addr = buf;
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->buf_len = (uint16_t)(ends ? RTE_PKTMBUF_HEADROOM + len :
				RTE_PKTMBUF_HEADROOM + MAXF + 16);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->nb_segs = 1;
}

/* A frame into the store as enqueue() puts one: a record written and, if
 * reordered, on the head list; or refused and counted. */
static struct rec *
put(struct box *b, uint32_t tag, uint32_t len, uint64_t tts, uint16_t flags)
{
	static uint8_t buf[RTE_PKTMBUF_HEADROOM + MAXF + 16];
	struct rte_mbuf m;
	struct rec *r;

	assert_true(len >= 6 && len <= MAXF);
	mbuf_on(&m, buf, len, tag % 3 == 0);
	fill(buf + RTE_PKTMBUF_HEADROOM, tag, len);
	r = rec_new(&b->s, len, &b->high);
	if (r == NULL) {
		b->no_room++;
		return NULL;
	}
	rec_write(r, tts, len, flags, &m, b->stream);
	if (flags & F_HEAD)
		head_push(&b->s, r);
	return r;
}

/* What prepare() does with due()'s records: each read (checked whole) and
 * marked sent, then the tail moved. @return how many; their tags in
 * @p tags. */
static unsigned int
take(struct box *b, uint64_t now, unsigned int max, uint32_t *tags)
{
	struct rec *r[TAKE_MAX];
	unsigned int k, i;

	assert_true(max <= TAKE_MAX);
	k = due(&b->s, &q, now, r, max);
	for (i = 0; i < k; i++) {
		tags[i] = rec_check(r[i]);
		rec_sent(&b->s, r[i]);
	}
	tail_move(&b->s);
	return k;
}

static uint32_t
id_of(const struct box *b, const struct rec *r)
{
	return (uint32_t)(((const uint8_t *)r - b->s.mem) >> 4);
}

static void
expect_tags(const uint32_t *got, unsigned int k, const uint32_t *want,
	    unsigned int n)
{
	unsigned int i;

	assert_int_equal(k, n);
	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("frame %u out: tag %u, want %u", i, got[i], want[i]);
}

/* ---- the ring ---- */

/* FIFO mode: records leave in arrival order when due, each at the first
 * look at or after its due time, and the tail frees exactly their bytes. */
static void
test_fifo_due_order(void **state)
{
	static const uint32_t lens[] = { 60, 64, 65, 128, 200, 333, 64, 1000 };
	static const uint32_t first[] = { 0, 1, 2, 3 }, rest[] = { 4, 5, 6, 7 };
	uint32_t tags[TAKE_MAX];
	struct box b;
	unsigned int i;

	(void)state;
	box_open(&b, 4096, 0, 1, true);
	for (i = 0; i < RTE_DIM(lens); i++)
		assert_non_null(put(&b, i, lens[i], T0 + 1000 * (i + 1), 0));
	/* 80 + 80 + 96 + 144 + 224 + 352 + 80 + 1024 */
	assert_int_equal(b.s.used, 2080);
	assert_int_equal(b.s.head, 2080);
	assert_int_equal(b.s.fifo_recs, 8);
	assert_int_equal(b.high, 2080);
	assert_int_equal(take(&b, T0 + 999, TAKE_MAX, tags), 0);
	expect_tags(tags, take(&b, T0 + 4500, TAKE_MAX, tags), first, 4);
	assert_int_equal(b.s.tail, 400);
	assert_int_equal(b.s.used, 1680);
	assert_int_equal(take(&b, T0 + 4999, TAKE_MAX, tags), 0);
	expect_tags(tags, take(&b, T0 + 8000, TAKE_MAX, tags), rest, 4);
	assert_int_equal(b.s.used, 0);
	assert_int_equal(b.s.tail, 2080);
	assert_int_equal(b.s.fifo_recs, 0);
	assert_int_equal(b.high, 2080);
	box_close(&b);
}

/* A record that would cross the ring's end leaves a pad there and starts
 * at 0; it is read back whole, and the tail passes the pad. Then the ring
 * is full (head meets tail): the next record is refused. */
static void
test_ring_wrap_pad(void **state)
{
	static const uint32_t two[] = { 0, 1 }, rest[] = { 2, 3, 4, 5 };
	uint32_t tags[TAKE_MAX];
	uint8_t before[1024];
	unsigned int mode, i;
	struct box b;
	struct rec *r;

	(void)state;
	for (mode = 0; mode < 4; mode++) {
		box_open(&b, 1024, 3584, 8, mode & 1);
		b.stream = mode & 2;
		for (i = 0; i < 4; i++)	/* 224 B each */
			assert_non_null(put(&b, i, 200, T0 + 1000 * (i + 1), 0));
		assert_int_equal(b.s.head, 896);
		expect_tags(tags, take(&b, T0 + 2000, TAKE_MAX, tags), two, 2);
		assert_int_equal(b.s.tail, 448);
		assert_int_equal(b.s.used, 448);
		/* 576 B free, but 128 at the end and 448 at the start: 464 B
		 * fit neither (and no pad goes in for it). */
		memcpy(before, b.s.mem, 1024);
		assert_null(put(&b, 9, 448, T0 + 5000, 0));
		assert_int_equal(b.no_room, 1);
		assert_memory_equal(before, b.s.mem, 1024);
		r = put(&b, 4, 200, T0 + 5000, 0);
		assert_ptr_equal(r, b.s.mem);
		assert_int_equal(rec_at(&b.s, 896)->flags, F_PAD);
		assert_int_equal(b.s.used, 448 + 128 + 224);
		assert_int_equal(b.s.head, 224);
		assert_int_equal(b.high, 896);
		/* Exactly the room up to the tail. */
		assert_ptr_equal(put(&b, 5, 208, T0 + 6000, 0), b.s.mem + 224);
		assert_int_equal(b.s.head, 448);
		assert_int_equal(b.s.used, 1024);
		assert_int_equal(b.high, 1024);
		assert_null(put(&b, 6, 6, T0 + 7000, 0));
		assert_int_equal(b.no_room, 2);
		expect_tags(tags, take(&b, T0 + 10000, TAKE_MAX, tags), rest, 4);
		/* FIFO mode: head, fifo and tail meet on a ring that was
		 * full, and all of it is free (tail_to_fifo()). */
		assert_int_equal(b.s.used, 0);
		assert_int_equal(b.s.tail, 448);
		assert_non_null(put(&b, 7, 200, T0 + 11000, 0));
		expect_tags(tags, take(&b, T0 + 11000, TAKE_MAX, tags),
			    (const uint32_t[]){ 7 }, 1);
		assert_int_equal(b.s.used, 0);
		box_close(&b);
	}
}

/* A record that ends exactly at the ring's end takes no pad: the next
 * goes to 0 once there is room. */
static void
test_ring_wrap_at_end(void **state)
{
	static const uint32_t all[] = { 0, 1, 2, 3, 4 };
	uint32_t tags[TAKE_MAX];
	unsigned int mode, i;
	struct box b;
	struct rec *r;

	(void)state;
	for (mode = 0; mode < 4; mode++) {
		box_open(&b, 1024, 3584, 8, mode & 1);
		b.stream = mode & 2;
		for (i = 0; i < 4; i++)
			assert_non_null(put(&b, i, 200, T0 + 1000 * (i + 1), 0));
		r = put(&b, 4, 112, T0 + 5000, 0);	/* 128 B: to the end */
		assert_ptr_equal(r, b.s.mem + 896);
		assert_int_equal(r->flags, 0);
		assert_int_equal(b.s.head, 0);
		assert_int_equal(b.s.used, 1024);
		assert_null(put(&b, 5, 6, T0 + 6000, 0));
		assert_int_equal(b.no_room, 1);
		expect_tags(tags, take(&b, T0 + 5000, TAKE_MAX, tags), all, 5);
		assert_int_equal(b.s.used, 0);
		assert_int_equal(b.s.tail, 0);
		assert_ptr_equal(put(&b, 6, 6, T0 + 6000, 0), b.s.mem);
		box_close(&b);
	}
}

/* A full ring refuses a record (counted) and writes nothing: not the
 * record, not a pad at the end; what it holds is read back whole. */
static void
test_ring_full(void **state)
{
	static const uint32_t first[] = { 0 }, rest[] = { 1, 2, 3, 5, 8 };
	uint32_t tags[TAKE_MAX];
	uint8_t *before = malloc(1024);
	unsigned int mode, i;
	struct box b;

	(void)state;
	assert_non_null(before);
	for (mode = 0; mode < 4; mode++) {
		box_open(&b, 1024, 3584, 8, mode & 1);
		b.stream = mode & 2;
		for (i = 0; i < 4; i++)
			assert_non_null(put(&b, i, 200, T0 + 1000 * (i + 1), 0));
		/* 224 B past the end, 128 B left before it: no pad. */
		memcpy(before, b.s.mem, 1024);
		assert_null(put(&b, 4, 200, T0 + 4500, 0));
		assert_int_equal(b.no_room, 1);
		assert_memory_equal(before, b.s.mem, 1024);
		assert_int_equal(b.s.used, 896);
		assert_int_equal(b.s.head, 896);
		assert_int_equal(b.s.fifo_recs, 4);
		/* What fits does: the last 128 B. */
		assert_non_null(put(&b, 5, 100, T0 + 5000, 0));
		assert_int_equal(b.s.head, 0);
		assert_int_equal(b.s.used, 1024);
		memcpy(before, b.s.mem, 1024);
		assert_null(put(&b, 6, 6, T0 + 5000, 0));
		assert_int_equal(b.no_room, 2);
		assert_memory_equal(before, b.s.mem, 1024);
		/* 224 B free at the start: 320 B do not fit, 224 B do. */
		expect_tags(tags, take(&b, T0 + 1000, TAKE_MAX, tags), first, 1);
		assert_int_equal(b.s.used, 800);
		assert_null(put(&b, 7, 300, T0 + 6000, 0));
		assert_int_equal(b.no_room, 3);
		assert_int_equal(b.s.used, 800);
		assert_ptr_equal(put(&b, 8, 200, T0 + 6000, 0), b.s.mem);
		assert_int_equal(b.s.used, 1024);
		/* The wheel took those due within its span (the first 4 us). */
		assert_int_equal(b.s.fifo_recs, mode & 1 ? 5 : 2);
		expect_tags(tags, take(&b, T0 + 6000, TAKE_MAX, tags), rest, 5);
		assert_int_equal(b.s.used, 0);
		assert_int_equal(b.high, 1024);
		box_close(&b);
	}
	free(before);
}

/* Both of rec_write()'s ways on x86 (around the caches, with a 16 B
 * over-read or a copy of the last bytes), and chained mbufs: the header
 * and the bytes as given, the rest of the last 16 B zero where copied. */
static void
test_rec_write(void **state)
{
	static uint8_t buf[RTE_PKTMBUF_HEADROOM + MAXF + 16];
	static uint8_t buf2[RTE_PKTMBUF_HEADROOM + 64];
	uint8_t *mem = aligned_alloc(64, 4096), frame[100];
	struct rte_mbuf m, m2;
	unsigned int stream, ends;
	struct rec *r = (struct rec *)(void *)mem;
	uint32_t i;

	(void)state;
	assert_non_null(mem);
	for (stream = 0; stream < 2; stream++)
		for (ends = 0; ends < 2; ends++) {
			memset(mem, 0xee, 4096);
			mbuf_on(&m, buf, 77, ends);
			fill(buf + RTE_PKTMBUF_HEADROOM, 9, 77);
			memset(buf + RTE_PKTMBUF_HEADROOM + 77, 0xaa, 16);
			rec_write(r, T0 + 12345, 77, F_HEAD, &m, stream);
			assert_int_equal(r->tts, T0 + 12345);
			assert_int_equal(r->next, NIL);
			assert_int_equal(r->len, 77);
			assert_int_equal(r->flags, F_HEAD);
			assert_int_equal(rec_check(r), 9);
			/* Past the record's 16 B units: untouched. */
			assert_int_equal(mem[REC_HDR + 80], 0xee);
			if (stream && ends)
				for (i = 77; i < 80; i++)
					assert_int_equal(mem[REC_HDR + i], 0);
		}
	/* Two segments: 40 + 37 B, copied in order, also when streaming. */
	fill(frame, 10, 77);
	for (stream = 0; stream < 2; stream++) {
		memset(mem, 0xee, 4096);
		mbuf_on(&m, buf, 40, false);
		mbuf_on(&m2, buf2, 37, true);
		memcpy(buf + RTE_PKTMBUF_HEADROOM, frame, 40);
		memcpy(buf2 + RTE_PKTMBUF_HEADROOM, frame + 40, 37);
		m.next = &m2;
		m.nb_segs = 2;
		m.pkt_len = 77;
		rec_write(r, T0 + 1, 77, 0, &m, stream);
		assert_int_equal(r->tts, T0 + 1);
		assert_int_equal(r->next, NIL);
		assert_int_equal(r->flags, 0);
		assert_int_equal(rec_check(r), 10);
	}
	free(mem);
}

/* ---- the wheel ---- */

/* The wheel's grain and size from the span of due times it must hold. */
static void
test_wheel_shape(void **state)
{
	struct store s;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_shape(&s, 0), 2);
	assert_int_equal(s.gshift, 8);
	assert_int_equal(s.wmask, 1);
	assert_int_equal(store_shape(&s, 3839), 16);
	assert_int_equal(store_shape(&s, 3840), 32);
	assert_int_equal(store_shape(&s, 72000), 512);
	assert_int_equal(s.gshift, 8);
	/* 10 s: 2^12 ns a bucket keeps it within 4 M buckets. */
	assert_int_equal(store_shape(&s, 10000000000ull), 1u << 22);
	assert_int_equal(s.gshift, 12);
	assert_int_equal(s.wmask, (1u << 22) - 1);
}

/* Records of one bucket kept sorted (ties in arrival order), the next
 * bucket after; each leaves at the first look at or after its due time. */
static void
test_wheel_sorted_buckets(void **state)
{
	/* arrival order: A B C D E, due 100 50 100 300 10 */
	static const uint64_t at[] = { 100, 50, 100, 300, 10 };
	static const uint32_t four[] = { 4, 1, 0, 2 }, last[] = { 3 };
	uint32_t tags[TAKE_MAX], id[5];
	struct box b;
	unsigned int i;

	(void)state;
	box_open(&b, 4096, 3584, 8, false);
	for (i = 0; i < 5; i++)
		id[i] = id_of(&b, put(&b, i, 64, T0 + at[i], 0));
	assert_int_equal(take(&b, T0 + 9, TAKE_MAX, tags), 0);
	assert_int_equal(b.s.in_wheel, 5);
	assert_int_equal(b.s.fifo_recs, 0);
	assert_int_equal(b.s.base & b.s.wmask, 0);
	assert_int_equal(b.s.wheel[0].first, id[4]);
	assert_int_equal(b.s.wheel[0].last, id[2]);
	assert_int_equal(b.s.wheel[1].first, id[3]);
	assert_int_equal(b.s.wheel[1].last, id[3]);
	expect_tags(tags, take(&b, T0 + 100, TAKE_MAX, tags), four, 4);
	assert_int_equal(b.s.wheel[0].first, NIL);
	assert_int_equal(b.s.wheel[0].last, NIL);
	assert_int_equal(take(&b, T0 + 299, TAKE_MAX, tags), 0);
	expect_tags(tags, take(&b, T0 + 300, TAKE_MAX, tags), last, 1);
	assert_int_equal(b.s.in_wheel, 0);
	assert_int_equal(b.s.used, 0);
	box_close(&b);
}

/*
 * Due times past the wheel's horizon (16 buckets of 256 ns) wait in the
 * ring and enter as the wheel gets to them; due times across 30 buckets,
 * the wheel going round twice, each record out at the first look at or
 * after its due time.
 */
static void
test_wheel_horizon(void **state)
{
	enum { N = 64 };
	uint64_t tts[N], left[N], now, end;
	uint32_t tags[TAKE_MAX], order[N];
	unsigned int i, j, k, n = 0, prefix;
	struct box b;

	(void)state;
	box_open(&b, 65536, 3584, 8, false);
	assert_int_equal(b.s.wmask, 15);
	/* One record a millisecond out: it waits in the ring until then. */
	assert_non_null(put(&b, 1000, 64, T0 + 1000000, 0));
	assert_int_equal(take(&b, T0, TAKE_MAX, tags), 0);
	assert_int_equal(b.s.in_wheel, 0);
	assert_int_equal(b.s.fifo_recs, 1);
	assert_int_equal(take(&b, T0 + 999999, TAKE_MAX, tags), 0);
	assert_int_equal(b.s.base, (T0 + 999999) >> 8);
	assert_int_equal(b.s.in_wheel, 1);
	assert_int_equal(b.s.fifo_recs, 0);
	assert_int_equal(take(&b, T0 + 1000000, TAKE_MAX, tags), 1);
	assert_int_equal(tags[0], 1000);

	/* 97 ns apart and up to 600 ns of jitter, 5 us on. */
	for (i = 0; i < N; i++) {
		tts[i] = T0 + 1005000 + 97 * i + ((i * 37) % 11) * 60;
		assert_non_null(put(&b, i, 64 + i, tts[i], 0));
		left[i] = 0;
	}
	for (now = T0 + 1000000; n < N; now += 50) {
		k = take(&b, now, TAKE_MAX, tags);
		for (j = 0; j < k; j++) {
			assert_true(tags[j] < N && left[tags[j]] == 0);
			left[tags[j]] = now;
			order[n++] = tags[j];
		}
		if (now == T0 + 1005000) {
			/* In the wheel: the records of the arrival order
			 * up to the first due past it, less those gone. */
			end = (b.s.base + 16) << 8;
			for (prefix = 0; prefix < N && tts[prefix] < end; prefix++)
				;
			assert_true(prefix < N);
			assert_int_equal(b.s.in_wheel, prefix - n);
			assert_int_equal(b.s.fifo_recs, N - prefix);
		}
	}
	for (i = 0; i < N; i++) {
		uint64_t first_look = T0 + 1000000 +
			(tts[i] - (T0 + 1000000) + 49) / 50 * 50;

		assert_int_equal(left[i], first_look);
		if (i > 0 && (tts[order[i]] < tts[order[i - 1]] ||
			      (tts[order[i]] == tts[order[i - 1]] &&
			       order[i] < order[i - 1])))
			fail_msg("out of order: %u after %u", order[i], order[i - 1]);
	}
	assert_int_equal(b.s.used, 0);
	box_close(&b);
}

/* ---- the late heap ---- */

/*
 * The lcore stopped 100 us: the wheel was empty, the base jumps to the
 * oldest record's bucket, and what is due before it enters the late heap;
 * the heap leaves first, by due time (ties in arrival order), then the
 * wheel.
 */
static void
test_late_after_stall(void **state)
{
	/* arrival order: A B C D E F */
	static const uint64_t at[] = { 5000, 3000, 4000, 5000, 2000, 3000 };
	static const uint32_t rest[] = { 1, 5, 2, 0, 3 };
	uint32_t tags[TAKE_MAX];
	uint64_t b0;
	struct box b;
	unsigned int i;

	(void)state;
	box_open(&b, 4096, 3584, 8, false);
	b0 = b.s.base;
	assert_int_equal(b0, T0 >> 8);
	for (i = 0; i < 6; i++)
		assert_non_null(put(&b, i, 60, T0 + at[i], 0));
	assert_int_equal(take(&b, T0 + 100000, 1, tags), 1);
	assert_int_equal(tags[0], 4);
	assert_int_equal(b.s.base, b0 + 19);	/* 5000 ns: bucket 19 */
	assert_int_equal(b.s.nb_late, 3);	/* B, C, F (E left) */
	assert_int_equal(b.s.in_wheel, 2);	/* A, D */
	assert_int_equal(b.s.seq, 6);
	expect_tags(tags, take(&b, T0 + 100000, TAKE_MAX, tags), rest, 5);
	assert_int_equal(b.s.nb_late, 0);
	assert_int_equal(b.s.in_wheel, 0);
	assert_int_equal(b.s.used, 0);
	box_close(&b);
}

static uint64_t
rnd(uint64_t *x)
{
	/* xorshift64*: seeded, the same run everywhere */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

struct ref {
	uint64_t tts;
	uint32_t idx;		/* arrival */
};

static int
ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->tts != y->tts)
		return x->tts < y->tts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The heap against a sorted reference: random due times with many ties,
 * pushes and pops mixed, the arrival counter wrapping past 2^32 on the
 * way (ties keep arrival order across it).
 */
static void
test_late_heap_random(void **state)
{
	enum { MAX = 4096, OPS = 40000 };
	struct ref *ref = malloc(sizeof(*ref) * MAX);
	uint32_t n = 0, idx = 0, pops = 0, i, lo, hi;
	uint64_t x = 36;
	struct box b;

	(void)state;
	assert_non_null(ref);
	box_open(&b, 4096, 3584, MAX, false);
	b.s.seq = UINT32_MAX - 5000;
	for (i = 0; i < OPS + MAX; i++) {
		bool push = i < OPS && n < MAX && (n == 0 || rnd(&x) % 8 < 5);

		if (push) {
			struct ref e = { T0 + rnd(&x) % 700, idx };

			/* insert after every entry before it */
			for (lo = 0, hi = n; lo < hi; ) {
				uint32_t mid = (lo + hi) / 2;

				if (ref_cmp(&ref[mid], &e) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			memmove(ref + lo + 1, ref + lo, sizeof(*ref) * (n - lo));
			ref[lo] = e;
			n++;
			late_push(&b.s, e.tts, idx++);
			b.s.seq++;	/* as migrate() counts */
		} else if (n != 0) {
			if (b.s.late[0].id != ref[0].idx || b.s.late[0].tts != ref[0].tts)
				fail_msg("pop %u: %u due %" PRIu64 ", want %u due %" PRIu64,
					 pops, b.s.late[0].id, b.s.late[0].tts,
					 ref[0].idx, ref[0].tts);
			late_pop(&b.s);
			memmove(ref, ref + 1, sizeof(*ref) * --n);
			pops++;
		}
		assert_int_equal(b.s.nb_late, n);
	}
	assert_int_equal(n, 0);
	assert_int_equal(pops, idx);
	assert_true(idx > 5001);	/* the counter wrapped */
	assert_int_equal(b.s.seq, (uint32_t)(UINT32_MAX - 5000 + idx));
	box_close(&b);
	free(ref);
}

/* ---- the head list and the FIFO tail ---- */

/* A reordered frame leaves before those queued, the head list in arrival
 * order and never in the wheel; its bytes go when the tail gets there. */
static void
test_head_list_reorder(void **state)
{
	uint32_t tags[TAKE_MAX], id[5];
	struct box b;

	(void)state;
	box_open(&b, 4096, 3584, 8, false);
	id[0] = id_of(&b, put(&b, 0, 60, T0 + 1000, 0));	/* 80 B each */
	id[1] = id_of(&b, put(&b, 1, 60, T0 + 2000, 0));
	id[2] = id_of(&b, put(&b, 2, 60, T0 + 10, F_HEAD));
	id[3] = id_of(&b, put(&b, 3, 60, T0 + 1500, 0));
	id[4] = id_of(&b, put(&b, 4, 60, T0 + 20, F_HEAD));
	assert_int_equal(b.s.hfirst, id[2]);
	assert_int_equal(b.s.hlast, id[4]);
	assert_int_equal(rec_id(&b.s, id[2])->next, id[4]);
	/* Room for one: the first reordered; the other waits its turn. */
	assert_int_equal(take(&b, T0 + 20, 1, tags), 1);
	assert_int_equal(tags[0], 2);
	assert_int_equal(b.s.hfirst, id[4]);
	assert_int_equal(b.s.used, 400);	/* behind A, not sent */
	assert_int_equal(take(&b, T0 + 20, TAKE_MAX, tags), 1);
	assert_int_equal(tags[0], 4);
	assert_int_equal(b.s.hfirst, NIL);
	assert_int_equal(b.s.in_wheel, 3);
	assert_int_equal(take(&b, T0 + 1000, TAKE_MAX, tags), 1);
	assert_int_equal(tags[0], 0);
	assert_int_equal(b.s.tail, 80);		/* B holds the rest */
	assert_int_equal(b.s.used, 320);
	assert_int_equal(take(&b, T0 + 1500, TAKE_MAX, tags), 1);
	assert_int_equal(tags[0], 3);
	assert_int_equal(b.s.used, 320);
	assert_int_equal(take(&b, T0 + 2000, TAKE_MAX, tags), 1);
	assert_int_equal(tags[0], 1);
	assert_int_equal(b.s.used, 0);
	assert_int_equal(b.s.tail, 400);
	box_close(&b);
}

/*
 * FIFO mode: the tail follows the read offset, but stops at the first
 * reordered frame still on the head list: here the read offset passes it
 * (due_fifo() skips reordered records) while it waits. From the ring's
 * start, and across its end (a pad between).
 */
static void
test_fifo_tail_head_list(void **state)
{
	uint32_t tags[TAKE_MAX];
	struct rec *r[TAKE_MAX];
	uint64_t off[5], start;
	unsigned int pass, i, k;
	struct box b;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		box_open(&b, 1024, 0, 1, true);
		b.stream = pass;
		/* Start at 800: ten records of 80 B in and out. */
		for (i = 0; pass == 1 && i < 10; i++)
			assert_non_null(put(&b, 100 + i, 64, T0, 0));
		if (pass == 1)
			assert_int_equal(take(&b, T0, TAKE_MAX, tags), 10);
		start = b.s.tail;
		assert_int_equal(start, pass == 1 ? 800 : 0);
		assert_int_equal(b.s.used, 0);
		/* Q1 H1 Q2 H2 Q3, 80 B each */
		off[0] = (uint8_t *)put(&b, 0, 60, T0 + 1000, 0) - b.s.mem;
		off[1] = (uint8_t *)put(&b, 1, 60, T0 + 1000, F_HEAD) - b.s.mem;
		off[2] = (uint8_t *)put(&b, 2, 60, T0 + 2000, 0) - b.s.mem;
		off[3] = (uint8_t *)put(&b, 3, 60, T0 + 2000, F_HEAD) - b.s.mem;
		off[4] = (uint8_t *)put(&b, 4, 60, T0 + 3000, 0) - b.s.mem;
		assert_int_equal(off[2], pass == 1 ? 0 : 160);	/* a pad at 960 */
		assert_int_equal(b.s.used, pass == 1 ? 464 : 400);
		/* Room for one: H1 leaves first, the tail stays on Q1. */
		assert_int_equal(take(&b, T0 + 2000, 1, tags), 1);
		assert_int_equal(tags[0], 1);
		assert_int_equal(b.s.tail, start);
		/* The read offset past Q1, H1, Q2 and H2 (on the list). */
		k = due_fifo(&b.s, &q, T0 + 2000, r, 0, TAKE_MAX);
		assert_int_equal(k, 2);
		assert_int_equal(rec_check(r[0]), 0);
		assert_int_equal(rec_check(r[1]), 2);
		rec_sent(&b.s, r[0]);
		rec_sent(&b.s, r[1]);
		assert_int_equal(b.s.fifo, off[4]);
		assert_int_equal(b.s.fifo_recs, 1);
		tail_move(&b.s);
		assert_int_equal(b.s.tail, off[3]);
		assert_int_equal(b.s.used, 160);	/* H2 and Q3 */
		assert_int_equal(rec_check(rec_at(&b.s, off[3])), 3);
		assert_int_equal(take(&b, T0 + 2000, TAKE_MAX, tags), 1);
		assert_int_equal(tags[0], 3);
		assert_int_equal(b.s.tail, off[4]);
		assert_int_equal(b.s.used, 80);
		assert_int_equal(take(&b, T0 + 3000, TAKE_MAX, tags), 1);
		assert_int_equal(tags[0], 4);
		assert_int_equal(b.s.used, 0);
		assert_int_equal(b.s.tail, b.s.head);
		box_close(&b);
	}
}

/* ---- all of it, as the box runs ---- */

struct sim {
	uint64_t seed;
	bool fifo_mode;
	uint64_t jitter;	/* ns: due = arrival + 10 us + [0, jitter] */
};

/*
 * Frames arrive (gaps, idle times longer than the wheel), 1 in 32
 * reordered; the lcore looks at random times with room for a few frames,
 * and stalls now and then (frames come due meanwhile and arrive late).
 * The ring is small enough to fill. What leaves must be the reference
 * sorted by due time, ties in arrival order; never early; none left due
 * when a look had room to spare; the reordered in arrival order; each
 * frame once, whole; the store empty at the end.
 */
static void
run_sim(const struct sim *p)
{
	enum { N = 6000 };
	struct ref *ref = malloc(sizeof(*ref) * N);
	uint64_t *arr = malloc(sizeof(uint64_t) * N), *tts = malloc(sizeof(uint64_t) * N);
	uint32_t *len = malloc(sizeof(uint32_t) * N);
	uint8_t *fate = calloc(N, 1);	/* 1 head, 2 refused, 4 out */
	uint32_t *heads = malloc(sizeof(uint32_t) * N);
	uint32_t tags[TAKE_MAX], next = 0, pos = 0, heads_out = 0, head_next = 0;
	uint64_t now = T0, t = T0, x = p->seed, high = 0, wraps = 0, late_seen = 0;
	uint32_t nref = 0, i, k, max, prev_head;
	struct box b;

	assert_true(ref && arr && tts && len && fate && heads);
	box_open(&b, 40960, p->jitter + 1024, N, p->fifo_mode);
	b.stream = p->seed & 1;
	for (i = 0; i < N; i++) {
		uint64_t r = rnd(&x) % 1000;

		t += r < 10 ? 20000 + rnd(&x) % 20000 : r < 250 ? 0 : rnd(&x) % 200;
		arr[i] = t;
		tts[i] = t + 10000 + (p->jitter ? rnd(&x) % (p->jitter + 1) : 0);
		tts[i] -= tts[i] % 50;	/* ties */
		len[i] = 6 + (uint32_t)(rnd(&x) % 300);
		if (rnd(&x) % 32 == 0)
			fate[i] = 1;
	}
	while (pos < nref || next < N || heads_out < head_next ||
	       b.s.used != 0) {
		uint64_t r = rnd(&x) % 1000;

		if (now > T0 + 10000000000ull)
			fail_msg("seed %" PRIu64 ": %u of %u frames out, %" PRIu64
				 " B held after 10 s", p->seed, pos, nref, b.s.used);

		now += r < 3 ? 30000 + rnd(&x) % 50000 : 50 + rnd(&x) % 350;
		for (; next < N && arr[next] <= now; next++) {
			prev_head = (uint32_t)b.s.head;
			if (put(&b, next, len[next], fate[next] ? arr[next] : tts[next],
				fate[next] ? F_HEAD : 0) == NULL) {
				fate[next] |= 2;
				continue;
			}
			wraps += b.s.head < prev_head;
			high = RTE_MAX(high, b.s.used);
			if (!(fate[next] & 1)) {
				/* sorted in as it comes: all before it are
				 * known (later arrivals are due later) */
				struct ref e = { tts[next], next };
				uint32_t at = nref;

				while (at > pos && ref_cmp(&ref[at - 1], &e) > 0)
					at--;
				memmove(ref + at + 1, ref + at, sizeof(*ref) * (nref - at));
				ref[at] = e;
				nref++;
			} else {
				heads[head_next++] = next;
			}
		}
		max = 1 + (uint32_t)(rnd(&x) % 8);
		k = take(&b, now, max, tags);
		for (i = 0; i < k; i++) {
			uint32_t g = tags[i];

			assert_true(g < N && !(fate[g] & 6));
			fate[g] |= 4;
			if (fate[g] & 1) {
				/* reordered: in the order they came */
				assert_true(heads_out < head_next);
				assert_int_equal(g, heads[heads_out]);
				heads_out++;
				continue;
			}
			if (g != ref[pos].idx)
				fail_msg("seed %" PRIu64 ": frame %u (due %" PRIu64
					 ") out where %u (due %" PRIu64 ") was next",
					 p->seed, g, tts[g], ref[pos].idx, ref[pos].tts);
			assert_true(tts[g] <= now);
			pos++;
		}
		late_seen += b.s.nb_late;
		if (k < max) {
			/* room to spare: nothing due by now stays */
			assert_int_equal(b.s.hfirst, NIL);
			if (pos < nref && ref[pos].tts <= now)
				fail_msg("seed %" PRIu64 ": frame %u due %" PRIu64
					 " held at %" PRIu64, p->seed, ref[pos].idx,
					 ref[pos].tts, now);
		}
	}
	for (i = 0; i < N; i++)
		assert_true((fate[i] & 2) ? !(fate[i] & 4) : (fate[i] & 4));
	assert_int_equal(b.high, high);
	assert_int_equal(b.s.used, 0);
	assert_int_equal(b.s.fifo_recs, 0);
	assert_int_equal(b.s.in_wheel, 0);
	assert_int_equal(b.s.nb_late, 0);
	assert_int_equal(b.s.hfirst, NIL);
	assert_int_equal(b.s.tail, b.s.head);
	/* What the run was for happened: wraps, a full ring, late records. */
	print_message("seed %" PRIu64 ": %u sorted, %u reordered, %" PRIu64
		      " refused, %" PRIu64 " wraps, late seen %" PRIu64 "\n",
		      p->seed, nref, heads_out, b.no_room, wraps, late_seen);
	assert_true(wraps > 10);
	assert_true(b.no_room > 0 && b.no_room < N / 4);
	assert_true(heads_out > 50);
	if (!p->fifo_mode)
		assert_true(late_seen > 0);
	box_close(&b);
	free(ref);
	free(arr);
	free(tts);
	free(len);
	free(fate);
	free(heads);
}

static void
test_sim_wheel(void **state)
{
	static const struct sim s[] = {
		{ 1, false, 3000 }, { 2, false, 3000 }, { 36, false, 20000 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(s); i++)
		run_sim(&s[i]);
}

static void
test_sim_fifo(void **state)
{
	static const struct sim s[] = { { 3, true, 0 }, { 4, true, 0 } };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(s); i++)
		run_sim(&s[i]);
}

static int
setup(void **state)
{
	char err[256];

	(void)state;
	if (lr_netem_parse("delay 10us", &nc, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	lr_netem_init(&q, &nc);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	lr_netem_conf_free(&nc);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_due_order),
		cmocka_unit_test(test_ring_wrap_pad),
		cmocka_unit_test(test_ring_wrap_at_end),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_rec_write),
		cmocka_unit_test(test_wheel_shape),
		cmocka_unit_test(test_wheel_sorted_buckets),
		cmocka_unit_test(test_wheel_horizon),
		cmocka_unit_test(test_late_after_stall),
		cmocka_unit_test(test_late_heap_random),
		cmocka_unit_test(test_head_list_reorder),
		cmocka_unit_test(test_fifo_tail_head_list),
		cmocka_unit_test(test_sim_wheel),
		cmocka_unit_test(test_sim_fifo),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
