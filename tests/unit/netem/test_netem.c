/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/netem against the kernel's PRNG self-test vectors, tc's units and
 * rules, and the closed-form rates of netem's models.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "lr_common.h"
#include "lr_netem.h"

/* ---- PRNG ---- */

/* random32.c's self-test seeding (prandom_seed_early without hw seed),
 * then prandom_warmup()'s ten draws. */
static void
seed_early(struct lr_netem_prng *s, uint32_t seed)
{
#define LCG(x) ((uint32_t)(x) * 69069U)
#define MIN(x, m) ((x) < (m) ? (x) + (m) : (x))
	s->s1 = MIN(LCG(seed), 2U);
	s->s2 = MIN(LCG(s->s1), 8U);
	s->s3 = MIN(LCG(s->s2), 16U);
	s->s4 = MIN(LCG(s->s3), 128U);
#undef MIN
#undef LCG
	for (int k = 0; k < 10; k++)
		lr_netem_prng_u32(s);
}

static void
test_prng_vectors(void **state)
{
	static const uint32_t t1[][2] = {
		{ 1U, 3484351685U }, { 2U, 2623130059U },
		{ 3U, 3125133893U }, { 4U, 984847254U },
	};
	/* a sample of random32.c's test2 (taus113 from GSL) */
	static const uint32_t t2[][3] = {
		{ 931557656U, 959U, 2975593782U },
		{ 1339693295U, 876U, 3887776532U },
		{ 1545556285U, 961U, 1615538833U },
		{ 601730776U, 723U, 1776162651U },
		{ 1027516047U, 687U, 511983079U },
		{ 1967883163U, 508U, 10734624U },
		{ 1516232129U, 557U, 3173877U },
		{ 70616361U, 829U, 22483098U },
		{ 1535432887U, 998U, 42610943U },
		{ 407983964U, 921U, 728767059U },
	};
	struct lr_netem_prng s;
	size_t k;
	uint32_t j;

	(void)state;
	for (k = 0; k < sizeof(t1) / sizeof(t1[0]); k++) {
		seed_early(&s, t1[k][0]);
		assert_int_equal(lr_netem_prng_u32(&s), t1[k][1]);
	}
	for (k = 0; k < sizeof(t2) / sizeof(t2[0]); k++) {
		seed_early(&s, t2[k][0]);
		for (j = 0; j < t2[k][1] - 1; j++)
			lr_netem_prng_u32(&s);
		assert_int_equal(lr_netem_prng_u32(&s), t2[k][2]);
	}
}

static void
test_prng_seed_state(void **state)
{
	struct lr_netem_prng s;

	(void)state;
	/* i = (seed >> 32) ^ (seed << 10) ^ seed, then the minimums */
	lr_netem_prng_seed(&s, 0);
	assert_int_equal(s.s1, 2);
	assert_int_equal(s.s2, 8);
	assert_int_equal(s.s3, 16);
	assert_int_equal(s.s4, 128);
	lr_netem_prng_seed(&s, 1);	/* i = 1 ^ 1024 = 1025 */
	assert_int_equal(s.s1, 1025);
	assert_int_equal(s.s4, 1025);
	lr_netem_prng_seed(&s, 0x100000000ULL);	/* i = 1 ^ 0 ^ 0 = 1 */
	assert_int_equal(s.s1, 3);
	assert_int_equal(s.s2, 9);
	assert_int_equal(s.s3, 17);
	assert_int_equal(s.s4, 129);
	lr_netem_prng_seed(&s, 0x12345678ULL);
	assert_int_equal(s.s1, (uint32_t)(0x12345678ULL ^ (0x12345678ULL << 10)));
}

/* ---- parser ---- */

static struct lr_netem_conf
parse_ok(const char *spec)
{
	struct lr_netem_conf c;
	char err[256];
	int rc = lr_netem_parse(spec, &c, err, sizeof(err));

	if (rc != 0)
		fail_msg("'%s': %s", spec, err);
	return c;
}

static uint32_t
pct(double p)
{
	return (uint32_t)rint(p / 100. * UINT32_MAX);
}

static void
test_parse_units(void **state)
{
	struct lr_netem_conf c;

	(void)state;
	c = parse_ok("delay 184ms 8us");
	assert_int_equal(c.latency_ns, 184000000);
	assert_int_equal(c.jitter_ns, 8000);
	assert_int_equal(c.limit, 1000);
	assert_false(c.limit_given);
	c = parse_ok("delay 1.5s 2500ns 25%");
	assert_int_equal(c.latency_ns, 1500000000);
	assert_int_equal(c.jitter_ns, 2500);
	assert_int_equal(c.delay_corr, pct(25));
	c = parse_ok("delay 10");	/* get_time64: no unit is ns */
	assert_int_equal(c.latency_ns, 10);
	c = parse_ok("delay 3SEC 1Usecs");
	assert_int_equal(c.latency_ns, 3000000000LL);
	assert_int_equal(c.jitter_ns, 1000);
	c = parse_ok("delay 5s 3s");	/* jitter capped at INT_MAX ns */
	assert_int_equal(c.jitter_ns, INT32_MAX);
	c = parse_ok("loss 0.1%");
	assert_int_equal(c.loss, pct(0.1));
	assert_int_equal(c.loss_model, LR_NETEM_LOSS_RANDOM);
	c = parse_ok("loss random 50 25");	/* no % sign: still percent */
	assert_int_equal(c.loss, 2147483648U);	/* rint(.5 * (2^32 - 1)) */
	assert_int_equal(c.loss_corr, pct(25));
	c = parse_ok("drop 100%");
	assert_int_equal(c.loss, UINT32_MAX);
	c = parse_ok("rate 10mbit");
	assert_int_equal(c.rate_Bps, 1250000);
	c = parse_ok("rate 1Gbit 20 64 -4");
	assert_int_equal(c.rate_Bps, 125000000);
	assert_int_equal(c.packet_overhead, 20);
	assert_int_equal(c.cell_size, 64);
	assert_int_equal(c.cell_overhead, -4);
	c = parse_ok("rate 1000");	/* bit/s */
	assert_int_equal(c.rate_Bps, 125);
	c = parse_ok("rate 2KBps -8");
	assert_int_equal(c.rate_Bps, 2000);
	assert_int_equal(c.packet_overhead, -8);
	c = parse_ok("rate 10mbps");	/* strcasecmp: MBps, bytes */
	assert_int_equal(c.rate_Bps, 10000000);
	c = parse_ok("rate 100Gbit");	/* above 2^32: TCA_NETEM_RATE64 */
	assert_int_equal(c.rate_Bps, 12500000000ULL);
	c = parse_ok("limit 1k");	/* tc's get_size, even for packets */
	assert_int_equal(c.limit, 1024);
	assert_true(c.limit_given);
	c = parse_ok("l 77 s 18446744073709551615");	/* prefixes */
	assert_int_equal(c.limit, 77);
	assert_true(c.seed_given);
	assert_int_equal(c.seed, UINT64_MAX);
	c = parse_ok("slot 1ms 2ms packets 10 bytes 2k");
	assert_true(c.slot);
	assert_int_equal(c.slot_min_ns, 1000000);
	assert_int_equal(c.slot_max_ns, 2000000);
	assert_int_equal(c.slot_max_packets, 10);
	assert_int_equal(c.slot_max_bytes, 2048);
	c = parse_ok("sl 800us");	/* max = min, budgets INT_MAX */
	assert_int_equal(c.slot_max_ns, 800000);
	assert_int_equal(c.slot_max_packets, INT32_MAX);
	assert_int_equal(c.slot_max_bytes, INT32_MAX);
	c = parse_ok("slot distribution normal 1ms 100us");
	assert_non_null(c.slot_dist);
	assert_int_equal(c.slot_dist_delay_ns, 1000000);
	assert_int_equal(c.slot_dist_jitter_ns, 100000);
	lr_netem_conf_free(&c);
	c = parse_ok("delay 10ms no-reorder jitter-ar1");
	assert_true(c.no_reorder);
	assert_true(c.ar1);
}

static void
test_parse_defaults(void **state)
{
	struct lr_netem_conf c;

	(void)state;
	c = parse_ok("");
	assert_true(lr_netem_conf_is_none(&c));
	assert_int_equal(c.limit, 1000);
	c = parse_ok("  none ");
	assert_true(lr_netem_conf_is_none(&c));
	c = parse_ok("delay 1ms");
	assert_false(lr_netem_conf_is_none(&c));
	/* reorder without gap: gap 1 */
	c = parse_ok("delay 10ms reorder 25% 50%");
	assert_int_equal(c.gap, 1);
	assert_int_equal(c.reorder, pct(25));
	assert_int_equal(c.reorder_corr, pct(50));
	c = parse_ok("delay 10ms reorder 25% gap 5");
	assert_int_equal(c.gap, 5);
	/* loss state p13: p31 = 1 - p13, p32 = 0, p23 = 1, p14 = 0 */
	c = parse_ok("loss state 10%");
	assert_int_equal(c.loss_model, LR_NETEM_LOSS_4STATE);
	assert_int_equal(c.a1, pct(10));
	assert_int_equal(c.a2, pct(90));
	assert_int_equal(c.a3, 0);
	assert_int_equal(c.a5, UINT32_MAX);
	assert_int_equal(c.a4, 0);
	c = parse_ok("loss state 1% 2% 3% 4% 5%");
	assert_int_equal(c.a1, pct(1));	/* p13 */
	assert_int_equal(c.a2, pct(2));	/* p31 */
	assert_int_equal(c.a3, pct(3));	/* p32 */
	assert_int_equal(c.a5, pct(4));	/* p23 */
	assert_int_equal(c.a4, pct(5));	/* p14 */
	/* gemodel p: r = 1 - p, h = 0 (1-h = 100 %), 1-k = 0 */
	c = parse_ok("loss gemodel 2%");
	assert_int_equal(c.loss_model, LR_NETEM_LOSS_GEMODEL);
	assert_int_equal(c.a1, pct(2));
	assert_int_equal(c.a2, pct(98));
	assert_int_equal(c.a3, 0);
	assert_int_equal(c.a4, 0);
	c = parse_ok("loss gemodel 2% 30% 90% 1%");
	assert_int_equal(c.a2, pct(30));
	assert_int_equal(c.a3, UINT32_MAX - pct(90));	/* h */
	assert_int_equal(c.a4, pct(1));
	/* tc sends the duplicate's correlation only with another one */
	c = parse_ok("duplicate 5% 50%");
	assert_int_equal(c.duplicate, pct(5));
	assert_int_equal(c.dup_corr, 0);
	c = parse_ok("duplicate 5% 50% loss 1% 10%");
	assert_int_equal(c.dup_corr, pct(50));
	/* a non-digit word ends the optional numbers */
	c = parse_ok("corrupt 1% limit 5");
	assert_int_equal(c.corrupt, pct(1));
	assert_int_equal(c.corrupt_corr, 0);
	assert_int_equal(c.limit, 5);
}

static void
check_err(const char *spec, const char *want)
{
	struct lr_netem_conf c;
	char err[256];
	int rc = lr_netem_parse(spec, &c, err, sizeof(err));

	if (rc != -EINVAL)
		fail_msg("'%s' parsed (rc %d)", spec, rc);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': '%s' does not say '%s'", spec, err, want);
}

static void
test_parse_errors(void **state)
{
	(void)state;
	check_err("delay 10xs", "netem: 'delay 10xs': bad time '10xs' (word 2)");
	check_err("delay", "'delay' needs an argument (word 1)");
	check_err("delay 1ms frobnicate", "what is 'frobnicate'? (word 3)");
	check_err("loss 1% loss 2%", "duplicate loss argument (word 3)");
	check_err("loss foo", "unknown loss parameter 'foo' (word 2)");
	check_err("loss 101%", "bad loss percent '101%' (word 2)");
	check_err("loss 5x", "bad loss percent '5x' (word 2)");
	check_err("loss state 5% 1%x", "bad loss p31 '1%x' (word 4)");
	check_err("loss gemodel 5% 1% 2% 200", "bad loss gemodel 1-k '200' "
		  "(word 6)");
	check_err("reorder 10% limit 5", "reordering not possible without "
		  "specifying some delay (word 1)");
	check_err("delay 1ms gap 5", "gap specified without reorder "
		  "probability (word 3)");
	check_err("slot 1ms packets -2", "negative slot limit (word 1)");
	check_err("distribution normal delay 1ms", "distribution specified but "
		  "no latency and jitter values (word 2)");
	check_err("delay 1ms 1ms distribution nosuchtable",
		  "': no distribution data for nosuchtable");
	check_err("delay 1ms 1ms distribution nosuchtable", "(word 5)");
	check_err("delay 1ms 1ms distribution /no/such/file", "(word 5)");
	check_err("slot 2ms 1ms", "bad slot max_delay '1ms' (word 3)");
	check_err("slot distribution normal 1ms 0ms", "non-positive slot "
		  "jitter '0ms' (word 5)");
	check_err("slot foo", "unknown slot parameter 'foo' (word 2)");
	check_err("slot 1ms packets x", "bad slot packets (word 4)");
	check_err("rate 50%", "needs a device: '50%' (word 2)");
	check_err("rate 10mbits", "bad rate '10mbits' (word 2)");
	check_err("limit -1", "bad limit '-1' (word 2)");
	check_err("limit 5000000000", "bad limit");
	check_err("gap x", "bad gap 'x' (word 2)");
	check_err("seed -", "bad seed '-' (word 2)");
	check_err("delay 1ms ecn", "ecn is not supported (no ECN marking) (word 3)");
	check_err("delay -1ms", "negative latency '-1ms' (word 2)");
	check_err("duplicate", "'duplicate' needs an argument (word 1)");
}

static void
test_format_round_trip(void **state)
{
	static const char *const specs[] = {
		"delay 184ms 8us distribution normal loss 0.1%",
		"delay 10ms 1ms 25% reorder 10% gap 3 duplicate 1% corrupt 2% 5%",
		"loss state 1% 2% 3% 4% 5% limit 100 seed 7",
		"loss gemodel 2% 30% 90% 1% rate 10mbit 20 64 -4",
		"slot 1ms 2ms packets 10 bytes 2048 no-reorder",
	};
	struct lr_netem_conf a, b;
	char buf[512];
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		a = parse_ok(specs[k]);
		lr_netem_conf_format(&a, buf, sizeof(buf));
		b = parse_ok(buf);
		assert_int_equal(a.latency_ns, b.latency_ns);
		assert_int_equal(a.jitter_ns, b.jitter_ns);
		assert_int_equal(a.loss, b.loss);
		assert_int_equal(a.a1, b.a1);
		assert_int_equal(a.a3, b.a3);
		assert_int_equal(a.a4, b.a4);
		assert_int_equal(a.a5, b.a5);
		assert_int_equal(a.gap, b.gap);
		assert_int_equal(a.rate_Bps, b.rate_Bps);
		assert_int_equal(a.cell_overhead, b.cell_overhead);
		assert_int_equal(a.slot_max_bytes, b.slot_max_bytes);
		assert_int_equal(a.limit, b.limit);
		assert_int_equal(a.no_reorder, b.no_reorder);
		lr_netem_conf_free(&a);
		lr_netem_conf_free(&b);
	}
	a = parse_ok("");
	lr_netem_conf_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "none");
}

/* ---- the per-frame decisions ---- */

/* Delays of @p n frames at 1 ms intervals, the queue drained between. */
static void
delays(const char *spec, int64_t *d, size_t n)
{
	struct lr_netem_conf c = parse_ok(spec);
	struct lr_netem q;
	struct lr_netem_copy out[2];
	uint64_t now = 1000000000000ULL;
	size_t k;

	lr_netem_init(&q, &c);
	for (k = 0; k < n; k++, now += 1000000) {
		assert_int_equal(lr_netem_enqueue(&q, 100, now, 0, out), 1);
		assert_int_equal(out[0].fate, LR_NETEM_QUEUED);
		d[k] = (int64_t)(out[0].tts - now);
	}
	lr_netem_conf_free(&c);
}

static void
moments(const int64_t *d, size_t n, double *mean, double *sd)
{
	double s = 0, s2 = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		s += (double)d[k];
		s2 += (double)d[k] * (double)d[k];
	}
	*mean = s / (double)n;
	*sd = sqrt(s2 / (double)n - *mean * *mean);
}

static double
lag1(const int64_t *d, size_t n)
{
	double m, sd, acc = 0;
	size_t k;

	moments(d, n, &m, &sd);
	for (k = 1; k < n; k++)
		acc += ((double)d[k] - m) * ((double)d[k - 1] - m);
	return acc / (double)(n - 1) / (sd * sd);
}

#define NDRAW 200000

static void
test_tabledist(void **state)
{
	static int64_t d[NDRAW];
	struct lr_netem_conf c;
	int64_t lo, hi;
	double m, sd;
	size_t k;

	(void)state;
	/* normal.dist: mean 0, sd 1 scaled by 8192 */
	delays("delay 10ms 1ms distribution normal seed 11", d, NDRAW);
	moments(d, NDRAW, &m, &sd);
	assert_true(fabs(m - 10e6) < 0.02e6);
	assert_true(fabs(sd / 1e6 - 1) < 0.03);
	c = parse_ok("delay 10ms 1ms distribution normal");
	lr_netem_delay_bounds(&c, &lo, &hi);
	for (k = 0; k < NDRAW; k++)
		assert_true(d[k] >= lo && d[k] <= hi);
	assert_true(lo < 7000000 && hi > 13000000);
	lr_netem_conf_free(&c);
	/* pareto.dist: one-sided, heavy right tail, mean about mu */
	delays("delay 10ms 1ms distribution pareto seed 12", d, NDRAW);
	moments(d, NDRAW, &m, &sd);
	assert_true(fabs(m - 10e6) < 0.1e6);
	c = parse_ok("delay 10ms 1ms distribution pareto");
	lr_netem_delay_bounds(&c, &lo, &hi);
	for (k = 0; k < NDRAW; k++)
		assert_true(d[k] >= lo && d[k] <= hi);
	assert_true(hi - 10000000 > 3 * (10000000 - lo));
	lr_netem_conf_free(&c);
	/* uniform: [mu - sigma, mu + sigma - 1], sd sigma / sqrt(3) */
	delays("delay 10ms 1ms seed 13", d, NDRAW);
	moments(d, NDRAW, &m, &sd);
	assert_true(fabs(sd / (1e6 / sqrt(3)) - 1) < 0.02);
	for (k = 0; k < NDRAW; k++)
		assert_true(d[k] >= 9000000 && d[k] <= 10999999);
	/* netem's correlated u32 is taken modulo 2 sigma (or the table's
	 * size): the wrap undoes most of the correlation, as in the kernel */
	delays("delay 10ms 1ms 90% seed 13", d, NDRAW);
	moments(d, NDRAW, &m, &sd);
	assert_true(fabs(sd / (1e6 / sqrt(3)) - 1) < 0.05);
	assert_true(fabs(lag1(d, NDRAW)) < 0.05);
	/* no jitter: no draw, the latency itself */
	delays("delay 7ms seed 1", d, 10);
	for (k = 0; k < 10; k++)
		assert_int_equal(d[k], 7000000);
}

static void
test_ar1(void **state)
{
	static int64_t d[NDRAW];
	double m, sd, r;

	(void)state;
	delays("delay 10ms 1ms 90% distribution normal jitter-ar1 seed 5", d,
	       NDRAW);
	moments(d, NDRAW, &m, &sd);
	r = lag1(d, NDRAW);
	/* the marginal kept (netem's own would have sd ~0.2 ms) */
	assert_true(fabs(sd / 1e6 - 1) < 0.05);
	assert_true(fabs(m - 10e6) < 0.05e6);
	assert_true(r > 0.85 && r < 0.93);
	delays("delay 10ms 1ms distribution normal jitter-ar1 seed 5", d,
	       NDRAW);
	assert_true(fabs(lag1(d, NDRAW)) < 0.02);
}

/* Binomial bound: |k - n p| < 5 sqrt(n p (1 - p)). */
static void
assert_binomial(uint64_t k, uint64_t n, double p)
{
	double mu = (double)n * p, s = sqrt(mu * (1 - p));

	if (fabs((double)k - mu) >= 5 * s)
		fail_msg("%llu of %llu, expected %.0f +- %.0f",
			 (unsigned long long)k, (unsigned long long)n, mu, 5 * s);
}

#define NRATE 1000000

static void
test_loss_dup_rates(void **state)
{
	struct lr_netem_conf c = parse_ok("loss 1% duplicate 2% corrupt 3% "
					  "seed 99");
	struct lr_netem q;
	struct lr_netem_copy out[2];
	uint64_t lost = 0, dup = 0, corrupt = 0, copies = 0;
	unsigned int n, k, i;

	(void)state;
	lr_netem_init(&q, &c);
	for (i = 0; i < NRATE; i++) {
		n = lr_netem_enqueue(&q, 64, 1000 + i, 0, out);
		if (n == 1 && out[0].fate == LR_NETEM_LOST)
			lost++;
		if (n == 2)
			dup++;
		for (k = 0; k < n; k++) {
			if (out[k].fate == LR_NETEM_QUEUED)
				copies++;
			if (out[k].corrupt) {
				corrupt++;
				assert_true(out[k].corrupt_byte < 64);
				assert_true(out[k].corrupt_bit < 8);
			}
		}
	}
	/* lost: a loss without a duplicate; a duplicate: one without loss */
	assert_binomial(lost, NRATE, 0.01 * 0.98);
	assert_binomial(dup, NRATE, 0.02 * 0.99);
	assert_binomial(corrupt, copies, 0.03);
	/* each copy is one frame out: in = out + lost - duplicated,
	 * duplicates that the loss of their own pass took aside */
	assert_true(copies + lost >= NRATE);
}

/* Mean length of runs of lost frames over @p n frames. */
static double
burst_mean(const char *spec, unsigned int n, double *rate)
{
	struct lr_netem_conf c = parse_ok(spec);
	struct lr_netem q;
	struct lr_netem_copy out[2];
	uint64_t runs = 0, lost = 0;
	bool prev = false, l;
	unsigned int i;

	lr_netem_init(&q, &c);
	for (i = 0; i < n; i++) {
		lr_netem_enqueue(&q, 64, 1000 + i, 0, out);
		l = out[0].fate == LR_NETEM_LOST;
		lost += l;
		if (l && !prev)
			runs++;
		prev = l;
	}
	*rate = (double)lost / n;
	return (double)lost / (double)runs;
}

static void
test_loss_models(void **state)
{
	double b, r;

	(void)state;
	/* 4-state with p32 = 0, p14 = 0: bursts geometric, mean 1 / p31;
	 * loss rate p13 / (p13 + p31) */
	b = burst_mean("loss state 5% 30% seed 3", NRATE, &r);
	assert_true(fabs(b / (1 / 0.30) - 1) < 0.03);
	assert_true(fabs(r / (0.05 / 0.35) - 1) < 0.03);
	/* 4-state with isolated losses p14 in the gap period */
	b = burst_mean("loss state 0% 100% 0% 100% 2% seed 3", NRATE, &r);
	assert_true(fabs(b - 1.0) < 0.01);
	assert_true(fabs(r / (0.02 / 1.02) - 1) < 0.05);
	/* correlated random loss: the weighted mean of the last value and
	 * a fresh one keeps the mean and lengthens the bursts */
	b = burst_mean("loss 50% 90% seed 8", NRATE, &r);
	assert_true(fabs(r - 0.5) < 0.02);
	assert_true(b > 4);
	b = burst_mean("loss 50% seed 8", NRATE, &r);
	assert_true(fabs(b - 2) < 0.05);
	/* Gilbert (1-h = 100 %, 1-k = 0): a frame is lost when the chain
	 * is bad as it arrives: bursts mean 1 / r, rate p / (p + r) */
	b = burst_mean("loss gemodel 1% 10% seed 4", NRATE, &r);
	assert_true(fabs(b / 10.0 - 1) < 0.05);
	assert_true(fabs(r / (0.01 / 0.11) - 1) < 0.05);
	/* Gilbert-Elliott: loss 1-h in bad, 1-k in good */
	b = burst_mean("loss gemodel 1% 10% 50% 0.5% seed 4", NRATE, &r);
	assert_true(fabs(r / ((0.01 * 0.5 + 0.10 * 0.005) / 0.11) - 1) < 0.05);
}

static void
test_enqueue_order(void **state)
{
	struct lr_netem_conf c;
	struct lr_netem q;
	struct lr_netem_copy out[2];
	unsigned int i;

	(void)state;
	/* duplicate 100 %: the clone first, both queued */
	c = parse_ok("delay 1ms duplicate 100% corrupt 100% seed 1");
	lr_netem_init(&q, &c);
	assert_int_equal(lr_netem_enqueue(&q, 60, 5000, 0, out), 2);
	assert_int_equal(out[0].fate, LR_NETEM_QUEUED);
	assert_int_equal(out[1].fate, LR_NETEM_QUEUED);
	assert_int_equal(out[0].tts, 1005000);
	assert_true(out[0].corrupt && out[1].corrupt);
	/* over the limit: both dropped, the clone's own pass not run */
	c.limit = 3;
	assert_int_equal(lr_netem_enqueue(&q, 60, 5000, 3, out), 2);
	assert_int_equal(out[0].fate, LR_NETEM_OVER_LIMIT);
	assert_int_equal(out[1].fate, LR_NETEM_OVER_LIMIT);
	/* loss 100 % with duplicate 100 %: count 2 - 1, the original goes */
	c = parse_ok("delay 1ms duplicate 100% loss 100% seed 1");
	lr_netem_init(&q, &c);
	assert_int_equal(lr_netem_enqueue(&q, 60, 0, 0, out), 1);
	assert_int_equal(out[0].fate, LR_NETEM_QUEUED);
	/* reorder 100 % gap 3: every third frame to the head, due now */
	c = parse_ok("delay 10ms reorder 100% gap 3 seed 1");
	lr_netem_init(&q, &c);
	for (i = 1; i <= 9; i++) {
		assert_int_equal(lr_netem_enqueue(&q, 60, i * 100, 0, out), 1);
		if (i % 3 == 0) {
			assert_int_equal(out[0].fate, LR_NETEM_HEAD);
			assert_int_equal(out[0].tts, i * 100);
		} else {
			assert_int_equal(out[0].fate, LR_NETEM_QUEUED);
			assert_int_equal(out[0].tts, i * 100 + 10000000);
		}
	}
	/* the draw order with a seed: loss's draw is the first */
	c = parse_ok("loss 50% seed 42");
	{
		struct lr_netem_prng p;
		uint32_t r;

		lr_netem_prng_seed(&p, 42);
		lr_netem_init(&q, &c);
		for (i = 0; i < 100; i++) {
			r = lr_netem_prng_u32(&p);
			lr_netem_enqueue(&q, 60, i, 0, out);
			assert_int_equal(out[0].fate == LR_NETEM_LOST,
					 c.loss >= r);
		}
	}
}

static void
test_rate(void **state)
{
	struct lr_netem_conf c;
	struct lr_netem q;
	struct lr_netem_copy out[2];

	(void)state;
	/* 8 Mbit/s: 1000 B in 1 ms, each after the last in the queue */
	c = parse_ok("rate 8mbit");
	lr_netem_init(&q, &c);
	lr_netem_enqueue(&q, 1000, 0, 0, out);
	assert_int_equal(out[0].tts, 1000000);
	lr_netem_enqueue(&q, 1000, 0, 1, out);
	assert_int_equal(out[0].tts, 2000000);
	lr_netem_enqueue(&q, 500, 100000, 2, out);
	assert_int_equal(out[0].tts, 2500000);
	/* queue empty: the reference is gone */
	lr_netem_queue_empty(&q);
	lr_netem_enqueue(&q, 1000, 10000000, 0, out);
	assert_int_equal(out[0].tts, 11000000);
	/* delay and rate: the time already waited behind "last" counts */
	c = parse_ok("delay 5ms rate 8mbit");
	lr_netem_init(&q, &c);
	lr_netem_enqueue(&q, 1000, 0, 0, out);
	assert_int_equal(out[0].tts, 6000000);
	lr_netem_enqueue(&q, 1000, 2000000, 1, out);
	/* delay 5 ms - (6 - 2) ms = 1 ms after last, + 1 ms */
	assert_int_equal(out[0].tts, 8000000);
	/* cells: 100 + 0 B in 53 B cells of 58 B on the wire: 2 cells,
	 * 116 B at 1 MB/s */
	c = parse_ok("rate 8mbit 0 53 5");
	lr_netem_init(&q, &c);
	lr_netem_enqueue(&q, 100, 0, 0, out);
	assert_int_equal(out[0].tts, 116000);
	/* 6.18 enqueues the duplicate first: it is the original's "last" */
	c = parse_ok("delay 1ms rate 8mbit duplicate 100%");
	lr_netem_init(&q, &c);
	assert_int_equal(lr_netem_enqueue(&q, 1000, 0, 0, out), 2);
	assert_int_equal(out[0].tts, 2000000);
	assert_int_equal(out[1].tts, 3000000);
	c = parse_ok("rate 8mbit -4");
	lr_netem_init(&q, &c);
	lr_netem_enqueue(&q, 104, 0, 0, out);
	assert_int_equal(out[0].tts, 100000);
}

static void
test_slots(void **state)
{
	struct lr_netem_conf c = parse_ok("slot 1ms 1ms packets 2");
	struct lr_netem q;

	(void)state;
	lr_netem_init(&q, &c);
	assert_true(lr_netem_may_send(&q, 0, 0));
	lr_netem_sent(&q, 64, 0);
	assert_true(lr_netem_may_send(&q, 0, 0));
	lr_netem_sent(&q, 64, 0);	/* budget spent: next slot at 1 ms */
	assert_false(lr_netem_may_send(&q, 0, 0));
	assert_int_equal(q.slot_next, 1000000);
	assert_false(lr_netem_may_send(&q, 0, 999999));
	assert_true(lr_netem_may_send(&q, 0, 1000000));
	/* a frame due after the slot opened starts a new slot then */
	lr_netem_sent(&q, 64, 1000000);
	assert_true(lr_netem_may_send(&q, 5000000, 5000000) == false);
	assert_int_equal(q.slot_next, 6000000);
	/* bytes: 100 B a slot */
	c = parse_ok("slot 2ms bytes 100");
	lr_netem_init(&q, &c);
	assert_true(lr_netem_may_send(&q, 0, 0));
	lr_netem_sent(&q, 60, 0);
	assert_true(lr_netem_may_send(&q, 0, 0));
	lr_netem_sent(&q, 60, 0);
	assert_false(lr_netem_may_send(&q, 0, 0));
	/* without slots: due or not */
	c = parse_ok("delay 1ms");
	lr_netem_init(&q, &c);
	assert_false(lr_netem_may_send(&q, 10, 9));
	assert_true(lr_netem_may_send(&q, 10, 10));
}

/* Extremes saturate instead of overflowing (signed overflow is UB; a
 * wrapped due time would send the frame at once): the longest delay the
 * parser takes with the slowest rate, and the due time's own sum. */
static void
test_extremes_saturate(void **state)
{
	struct lr_netem_conf c;
	struct lr_netem q;
	struct lr_netem_copy out[2];
	char err[256];

	(void)state;
	assert_int_not_equal(lr_netem_parse("delay 9000000000s", &c, err,
					    sizeof(err)), 0);
	c = parse_ok("delay 4000000000s rate 8bit");
	lr_netem_init(&q, &c);
	assert_int_equal(lr_netem_enqueue(&q, 1500, 1000, 0, out), 1);
	assert_true(out[0].tts >= 4000000000ULL * 1000000000ULL);
	/* the next one waits behind it: later still, or saturated */
	assert_int_equal(lr_netem_enqueue(&q, 1500, 2000, 0, out), 1);
	assert_true(out[0].tts >= 4000000000ULL * 1000000000ULL);
	c = parse_ok("delay 4000000000s");
	lr_netem_init(&q, &c);
	assert_int_equal(lr_netem_enqueue(&q, 64, UINT64_MAX - 10, 0, out), 1);
	assert_true(out[0].tts == UINT64_MAX);
}

static void
test_no_reorder(void **state)
{
	struct lr_netem_conf c;
	struct lr_netem q;
	struct lr_netem_copy out[2];
	uint64_t prev = 0;
	unsigned int i, back = 0;

	(void)state;
	/* jitter 5 ms at 10 us apart: netem reorders, no-reorder does not */
	for (int mode = 0; mode < 2; mode++) {
		c = parse_ok(mode ? "delay 10ms 5ms no-reorder seed 2" :
			     "delay 10ms 5ms seed 2");
		lr_netem_init(&q, &c);
		prev = 0;
		back = 0;
		for (i = 0; i < 20000; i++) {
			lr_netem_enqueue(&q, 64, 1000000000ULL + i * 10000ULL,
					 0, out);
			if (out[0].tts < prev)
				back++;
			if (out[0].tts > prev)
				prev = out[0].tts;
		}
		if (mode)
			assert_int_equal(back, 0);
		else
			assert_true(back > 1000);
	}
}

/* ---- tables ---- */

/* A SPEC of any length: its error keeps the reason and the word whole
 * (a SPEC over ~230 bytes used to cut them off), short enough for a
 * caller's words in front of it. */
static void
test_parse_errors_long(void **state)
{
	char spec[600], want[64], err[256], path[400];
	struct lr_netem_conf c;
	size_t at = 0;
	int k;

	(void)state;
	for (k = 0; k < 40; k++)
		at += (size_t)snprintf(spec + at, sizeof(spec) - at,
				       "delay 1ms ");
	snprintf(spec + at, sizeof(spec) - at, "delay 10xs");
	snprintf(want, sizeof(want), "bad time '10xs' (word %d)", 2 * 40 + 2);
	check_err(spec, want);
	check_err(spec, "netem: '...");
	check_err(spec, "delay 1ms delay 10xs': bad time");
	assert_int_equal(lr_netem_parse(spec, &c, err, sizeof(err)), -EINVAL);
	assert_true(strlen(err) <= 200);
	/* The word at fault early in a long SPEC. */
	snprintf(spec, sizeof(spec), "delay 10xs");
	for (k = 0; k < 40; k++)
		strcat(spec, " delay 1ms");
	check_err(spec, "netem: 'delay 10xs delay 1ms");
	check_err(spec, "bad time '10xs' (word 2)");
	/* A long word in the reason keeps its two ends and the reason. */
	memset(path, 'a', sizeof(path));
	memcpy(path, "/no/such/", 9);
	memcpy(path + sizeof(path) - 9, "/end.dist", 9);
	path[sizeof(path) - 1] = '\0';
	snprintf(spec, sizeof(spec), "delay 1ms 1ms distribution %s", path);
	check_err(spec, "(word 5)");
	check_err(spec, "No such file or directory");
	check_err(spec, "aaa/end.dis");
	assert_int_equal(lr_netem_parse(spec, &c, err, sizeof(err)), -EINVAL);
	assert_true(strlen(err) <= 200);
}

/* "limit 0": sch_netem drops a frame when qlen >= limit, so every one;
 * it used to be taken for no impairment and pass everything. */
static void
test_limit_zero(void **state)
{
	struct lr_netem_conf c = parse_ok("limit 0");
	struct lr_netem_copy cp[2];
	struct lr_netem q;
	char buf[64];

	(void)state;
	assert_false(lr_netem_conf_is_none(&c));
	lr_netem_init(&q, &c);
	assert_int_equal(lr_netem_enqueue(&q, 64, 1000, 0, cp), 1);
	assert_int_equal(cp[0].fate, LR_NETEM_OVER_LIMIT);
	lr_netem_conf_format(&c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "limit 0"));
	c = parse_ok("limit 5");
	assert_true(lr_netem_conf_is_none(&c));
}

/* A table file is read within bounds: /dev/zero (one endless line) used
 * to grow tc's getline() buffer without end; a big file is refused. */
static void
test_dist_bounded(void **state)
{
	char dir[] = "/tmp/lr_netem_XXXXXX", path[128];
	struct rlimit rl = { 512u << 20, 512u << 20 };
	struct lr_netem_dist *d;
	int status, k;
	pid_t pid;
	FILE *f;

	(void)state;
	/* In a child with 512 MB of address space: an unbounded read fails
	 * there (or dies), a bounded one says why. AddressSanitizer reserves
	 * terabytes of shadow address space, so no RLIMIT_AS lets it start:
	 * there the bound is checked by the file cases below only. */
#if defined(__SANITIZE_ADDRESS__)
	rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
#endif
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setrlimit(RLIMIT_AS, &rl);
		d = lr_netem_dist_load("/dev/zero");
		_exit(d == NULL && strstr(lr_errmsg(), "not a distribution "
					  "table") != NULL ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_non_null(mkdtemp(dir));
	/* 2 MB of values, one a line: over the bound, refused by it. */
	snprintf(path, sizeof(path), "%s/big.dist", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (k = 0; k < 300000; k++)
		fprintf(f, "%d\n", k % 1000);
	fclose(f);
	assert_null(lr_netem_dist_load(path));
	assert_non_null(strstr(lr_errmsg(), "bytes: not a distribution table"));
	/* A line of 5000 bytes. */
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "1 2 3\n");
	for (k = 0; k < 2500; k++)
		fputs(" 1", f);
	fputs("\n", f);
	fclose(f);
	assert_null(lr_netem_dist_load(path));
	assert_non_null(strstr(lr_errmsg(), "line 2 longer than"));
	/* A NUL ends a line's values, as for tc. */
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite("7 8\0 9\n10\n", 1, 11, f);
	fclose(f);
	d = lr_netem_dist_load(path);
	assert_non_null(d);
	assert_int_equal(d->size, 3);
	assert_int_equal(d->table[2], 10);
	lr_netem_dist_free(d);
	unlink(path);
	rmdir(dir);
}

/* lr_netem_dist_at() is table[rnd % size] for every size a table may
 * have and rnd at the edges and in between. */
static void
test_dist_at_is_the_remainder(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 3, 4, 5, 7, 1000, 4095, 4096,
					  4097, 12289, LR_NETEM_DIST_MAX - 1,
					  LR_NETEM_DIST_MAX };
	struct lr_netem_dist d;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int i, k;

	(void)state;
	d.table = calloc(LR_NETEM_DIST_MAX, sizeof(d.table[0]));
	assert_non_null(d.table);
	for (k = 0; k < LR_NETEM_DIST_MAX; k++)
		d.table[k] = (int16_t)k;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		d.size = sizes[i];
		d.size_m = UINT64_MAX / d.size + 1;
		for (k = 0; k < 200000; k++) {
			uint32_t rnd;

			if (k < 4)
				rnd = (uint32_t[]){ 0, 1, UINT32_MAX, UINT32_MAX - 1 }[k];
			else if (k < 8)
				rnd = d.size * (k - 3) - 1;
			else {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				rnd = (uint32_t)x;
			}
			assert_int_equal(lr_netem_dist_at(&d, rnd),
					 (int16_t)(rnd % d.size));
		}
	}
	free(d.table);
}

static void
test_dist_load(void **state)
{
	struct lr_netem_dist *d;
	uint32_t k;
	char dir[] = "/tmp/lr_netem_XXXXXX", path[128];
	FILE *f;

	(void)state;
	d = lr_netem_dist_load("normal");
	assert_non_null(d);
	assert_int_equal(d->size, 4096);
	assert_string_equal(d->name, "normal");
	for (k = 0; k < 100000; k++)	/* the loader sets what _at() needs */
		assert_int_equal(lr_netem_dist_at(d, k * 2654435761u),
				 d->table[(k * 2654435761u) % d->size]);
	lr_netem_dist_free(d);
	assert_null(lr_netem_dist_load("no_such_table_here"));
	/* $TC_LIB_DIR first; '#' lines and several values a line */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tiny.dist", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# comment\n1 -2 0x10\n\n40000\n");
	fclose(f);
	setenv("TC_LIB_DIR", dir, 1);
	d = lr_netem_dist_load("tiny");
	unsetenv("TC_LIB_DIR");
	assert_non_null(d);
	assert_int_equal(d->size, 4);
	assert_int_equal(d->table[0], 1);
	assert_int_equal(d->table[1], -2);
	assert_int_equal(d->table[2], 16);
	assert_int_equal(d->table[3], (int16_t)40000);	/* kept as s16 */
	lr_netem_dist_free(d);
	d = lr_netem_dist_load(path);
	assert_non_null(d);
	lr_netem_dist_free(d);
	unlink(path);
	rmdir(dir);
}

static void
test_maketable(void **state)
{
	static double x[100000];
	struct lr_netem_prng p;
	struct lr_netem_dist *d, *normal;
	char path[] = "/tmp/lr_netem_mt_XXXXXX", spec[256];
	struct lr_netem_conf c;
	double mu, sigma, u1, u2;
	int fd, k, worst = 0;

	(void)state;
	lr_netem_prng_seed(&p, 1234);
	for (k = 0; k < 100000; k++) {
		u1 = ((double)lr_netem_prng_u32(&p) + 1) / 4294967296.0;
		u2 = (double)lr_netem_prng_u32(&p) / 4294967296.0;
		x[k] = 50e3 + 2e3 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lr_netem_maketable(x, 100000, path, &mu, &sigma), 0);
	assert_true(fabs(mu - 50e3) < 30);
	assert_true(fabs(sigma / 2e3 - 1) < 0.02);
	d = lr_netem_dist_load(path);
	assert_non_null(d);
	assert_int_equal(d->size, 4096);
	for (k = 1; k < 4096; k++)
		assert_true(d->table[k] >= d->table[k - 1]);
	/* the inverse normal CDF, like iproute2's own normal.dist */
	normal = lr_netem_dist_load("normal");
	assert_non_null(normal);
	for (k = 200; k < 3896; k++) {
		int e = abs(d->table[k] - normal->table[k]);

		if (e > worst)
			worst = e;
	}
	assert_true(worst < 300);	/* 0.04 sigma */
	lr_netem_dist_free(normal);
	lr_netem_dist_free(d);
	/* and the loop closes: emulate it */
	snprintf(spec, sizeof(spec), "delay %.0fns %.0fns distribution %s",
		 mu, sigma, path);
	c = parse_ok(spec);
	assert_non_null(c.delay_dist);
	lr_netem_conf_free(&c);
	unlink(path);
	assert_true(lr_netem_maketable(x, 1, path, &mu, &sigma) < 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prng_vectors),
		cmocka_unit_test(test_prng_seed_state),
		cmocka_unit_test(test_parse_units),
		cmocka_unit_test(test_parse_defaults),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_tabledist),
		cmocka_unit_test(test_ar1),
		cmocka_unit_test(test_loss_dup_rates),
		cmocka_unit_test(test_loss_models),
		cmocka_unit_test(test_enqueue_order),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_no_reorder),
		cmocka_unit_test(test_extremes_saturate),
		cmocka_unit_test(test_parse_errors_long),
		cmocka_unit_test(test_limit_zero),
		cmocka_unit_test(test_dist_bounded),
		cmocka_unit_test(test_dist_at_is_the_remainder),
		cmocka_unit_test(test_dist_load),
		cmocka_unit_test(test_maketable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
