/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <jansson.h>

#include "lr_hist.h"

void
lr_hist_init(struct lr_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t
lr_hist_bucket_low_of(unsigned int i, unsigned int sub_bits, uint64_t *width)
{
	unsigned int k, sub = 1u << sub_bits;

	if (i < sub) {
		*width = 1;
		return i;
	}
	k = i / sub - 1;	/* the power of two above sub_bits */
	*width = 1ull << k;
	return (uint64_t)(sub + i % sub) << k;
}

uint64_t
lr_hist_bucket_low(unsigned int i, uint64_t *width)
{
	return lr_hist_bucket_low_of(i, LR_HIST_SUB_BITS, width);
}

void
lr_hist_merge(struct lr_hist *dst, const struct lr_hist *src)
{
	uint64_t n = 0, c;
	unsigned int i;

	/* The count is what the buckets hold: @p src may be a running
	 * task's, whose count a read may find ahead of its buckets, and
	 * the quantiles walk the buckets up to a rank of the count. */
	for (i = 0; i < LR_HIST_BUCKETS; i++) {
		c = src->b[i];
		dst->b[i] += c;
		n += c;
	}
	dst->count += n;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t
lr_hist_quantile_of(const uint64_t *b, unsigned int nb, unsigned int sub_bits,
		    uint64_t count, uint64_t min, uint64_t max, double q)
{
	uint64_t rank, seen = 0, low, width, v;
	unsigned int i;

	if (count == 0)
		return 0;
	if (q <= 0)
		return min;
	if (q >= 1)
		return max;
	/* The smallest value with at least q of all values at or below it. */
	rank = (uint64_t)(q * (double)count);
	if ((double)rank < q * (double)count || rank == 0)
		rank++;
	for (i = 0; i < nb; i++) {
		seen += b[i];
		if (seen >= rank)
			break;
	}
	if (i == nb)
		return max;
	low = lr_hist_bucket_low_of(i, sub_bits, &width);
	v = low + width / 2;
	return RTE_MAX(min, RTE_MIN(v, max));
}

uint64_t
lr_hist_quantile(const struct lr_hist *h, double q)
{
	return lr_hist_quantile_of(h->b, LR_HIST_BUCKETS, LR_HIST_SUB_BITS,
				   h->count, h->min, h->max, q);
}

double
lr_hist_mean(const struct lr_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

static void
set_ns(json_t *o, const char *k, uint64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)v));
}

json_t *
lr_hist_buckets_json(const struct lr_hist *h)
{
	json_t *a = json_array();
	uint64_t low, width;
	unsigned int i;

	for (i = 0; i < LR_HIST_BUCKETS; i++) {
		if (h->b[i] == 0)
			continue;
		low = lr_hist_bucket_low(i, &width);
		json_array_append_new(a, json_pack("[I,I,I]", (json_int_t)low,
						   (json_int_t)width,
						   (json_int_t)h->b[i]));
	}
	return a;
}

json_t *
lr_hist_json(const struct lr_hist *h)
{
	json_t *o = json_object();

	set_ns(o, "count", h->count);
	set_ns(o, "min_ns", h->count ? h->min : 0);
	json_object_set_new(o, "mean_ns", json_real(lr_hist_mean(h)));
	set_ns(o, "p50_ns", lr_hist_quantile(h, 0.5));
	set_ns(o, "p90_ns", lr_hist_quantile(h, 0.9));
	set_ns(o, "p99_ns", lr_hist_quantile(h, 0.99));
	set_ns(o, "p999_ns", lr_hist_quantile(h, 0.999));
	set_ns(o, "max_ns", h->max);
	json_object_set_new(o, "buckets", lr_hist_buckets_json(h));
	return o;
}
