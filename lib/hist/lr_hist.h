/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A log-linear histogram of nanosecond values (HdrHistogram's layout with
 * 2^LR_HIST_SUB_BITS sub-buckets per power of two): values below 64 ns are
 * exact, larger ones fall in buckets 1/64 of their power of two wide, so a
 * quantile is within 0.8 % of the true value. Min, max and the sum are exact.
 *
 * Threading: one histogram per lcore, written by it alone; the main lcore
 * merges them with lr_hist_merge() for reports (a racy read of counters that
 * only grow is fine for a running report, exact once the lcores are done).
 */
#ifndef LR_HIST_H
#define LR_HIST_H

#include <stdint.h>

#include <rte_common.h>

#define LR_HIST_SUB_BITS 6
#define LR_HIST_SUB (1u << LR_HIST_SUB_BITS)
#define LR_HIST_BUCKETS (LR_HIST_SUB + (64 - LR_HIST_SUB_BITS) * LR_HIST_SUB)

struct lr_hist {
	uint64_t count;
	uint64_t sum;		/**< ns, for the mean */
	uint64_t min;		/**< UINT64_MAX while empty */
	uint64_t max;
	uint64_t b[LR_HIST_BUCKETS];
};

/** Empty it. */
void lr_hist_init(struct lr_hist *h);

/*
 * The layout itself, for any 2^@p sub_bits sub-buckets per power of two
 * and values from 2^@p max_bits on in the last bucket (64: none so big):
 * struct lr_hist is the layout of 6 and 64; rx's per-flow latency, 2.1 KB
 * a flow, that of 3 and 34 (lr_rx.h). Constant arguments make the same
 * code as a layout of its own.
 */

/** The number of buckets of a layout. */
#define LR_HIST_NB(sub_bits, max_bits) \
	((1u << (sub_bits)) + ((max_bits) - (sub_bits)) * (1u << (sub_bits)))

/** The bucket of value @p v in a layout. */
static inline unsigned int
lr_hist_bucket_of(uint64_t v, unsigned int sub_bits, unsigned int max_bits)
{
	unsigned int e, sub = 1u << sub_bits;

	if (v < sub)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);	/* >= sub_bits */
	if (e >= max_bits)
		return LR_HIST_NB(sub_bits, max_bits) - 1;
	return sub + (e - sub_bits) * sub +
	       (unsigned int)((v >> (e - sub_bits)) & (sub - 1));
}

/** The lowest value of bucket @p i of a layout, and its width. */
uint64_t lr_hist_bucket_low_of(unsigned int i, unsigned int sub_bits,
			       uint64_t *width);

/**
 * The value at quantile @p q (0..1) of @p count values in buckets @p b (@p
 * nb of a layout of @p sub_bits), from @p min to @p max: the middle of the
 * bucket that holds it, kept within [min, max]. 0 when empty.
 */
uint64_t lr_hist_quantile_of(const uint64_t *b, unsigned int nb,
			     unsigned int sub_bits, uint64_t count,
			     uint64_t min, uint64_t max, double q);

/** The bucket of value @p v. */
static inline unsigned int
lr_hist_bucket(uint64_t v)
{
	return lr_hist_bucket_of(v, LR_HIST_SUB_BITS, 64);
}

/** Add @p n (>= 1) times the value @p v: a run of equal values (the
 *  frames of one burst under a constant delay) for the cost of one. */
static inline void
lr_hist_add_n(struct lr_hist *h, uint64_t v, uint64_t n)
{
	h->b[lr_hist_bucket(v)] += n;
	h->count += n;
	h->sum += v * n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/** Add one value (fast path). */
static inline void
lr_hist_add(struct lr_hist *h, uint64_t v)
{
	lr_hist_add_n(h, v, 1);
}

/** The lowest value of bucket @p i, and its width. */
uint64_t lr_hist_bucket_low(unsigned int i, uint64_t *width);

/** Add @p src into @p dst. */
void lr_hist_merge(struct lr_hist *dst, const struct lr_hist *src);

/**
 * The value at quantile @p q (0..1): the middle of the bucket that holds
 * it, kept within [min, max]. 0 when empty.
 */
uint64_t lr_hist_quantile(const struct lr_hist *h, double q);

/** Mean, 0 when empty. */
double lr_hist_mean(const struct lr_hist *h);

struct json_t;

/** Its non-empty buckets, ascending, as [low_ns, width_ns, count] (a new
 *  jansson array): the bucket holds low .. low + width - 1. */
struct json_t *lr_hist_buckets_json(const struct lr_hist *h);

/** Its summary for the result document: count, min_ns, mean_ns, p50_ns,
 *  p90_ns, p99_ns, p999_ns, max_ns, and the whole histogram as "buckets"
 *  (lr_hist_buckets_json()) (a new jansson object). */
struct json_t *lr_hist_json(const struct lr_hist *h);

#endif
