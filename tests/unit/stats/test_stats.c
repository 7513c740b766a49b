/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lr_engine.h"
#include "lr_gen.h"
#include "lr_hist.h"
#include "lr_port.h"
#include "lr_stats.h"
#include "../lr_test.h"

static uint16_t wire[2];

static json_int_t
geti(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	assert_non_null(v);
	return json_integer_value(v);
}

static void
results_sum_tasks(void **state)
{
	struct lr_gen_conf c;
	struct lr_stats_totals t;
	struct lr_task *a, *b;
	unsigned int w;
	json_t *doc, *tasks, *again;
	char path[64];

	(void)state;
	assert_true(lr_engine_workers(&w, 1) >= 1);
	lr_gen_conf_init(&c);
	c.count = 3000;
	a = lr_task_create(&lr_gen_role, w, wire[0], 0, 0, &c);
	c.count = 2000;
	c.sizes[0] = 128;
	b = lr_task_create(&lr_gen_role, w, wire[1], 0, 0, &c);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(lr_engine_start(), 2);
	assert_int_equal(lr_engine_wait(10), 0);
	lr_engine_stop();

	lr_stats_totals(&t);
	assert_int_equal(t.tx_pkts, 5000);
	assert_int_equal(t.tx_bytes, 3000 * 60 + 2000 * 124);
	assert_int_equal(t.drops, 0);

	doc = lr_stats_results();
	tasks = json_object_get(doc, "tasks");
	assert_int_equal(json_array_size(tasks), 2);
	assert_int_equal(geti(json_array_get(tasks, 1), "tx_packets"), 2000);
	assert_int_equal(json_array_size(json_object_get(doc, "ports")), 2);
	assert_int_equal(geti(json_object_get(doc, "totals"), "tx_packets"), 5000);
	/* The ring ports count what the tasks sent. */
	assert_int_equal(geti(json_array_get(json_object_get(doc, "ports"), 0),
			      "opackets"), 3000);

	snprintf(path, sizeof(path), "/tmp/lr_ut_stats_%d.json", (int)getpid());
	assert_int_equal(lr_stats_write_json(path), 0);
	again = json_load_file(path, 0, NULL);
	unlink(path);
	assert_non_null(again);
	assert_int_equal(geti(json_object_get(again, "totals"), "tx_bytes"),
			 3000 * 60 + 2000 * 124);
	json_decref(again);
	json_decref(doc);
	assert_true(lr_stats_write_json("/nonexistent/dir/x.json") < 0);
}

/*
 * A paced gen that cannot keep its rate (1000 Mpps asked of a wire whose
 * speed is said to be 1000G): the live words flag it SHORT while it runs,
 * and the result document gives the task and the run the verdict "short".
 */
static void
results_flag_short(void **state)
{
	struct lr_port_conf pc;
	struct lr_gen_conf c;
	struct lr_task *t;
	uint16_t fast[2];
	unsigned int w;
	json_t *doc, *task;
	char live[128];

	(void)state;
	assert_true(lr_engine_workers(&w, 1) >= 1);
	lr_port_conf_init(&pc);
	assert_int_equal(lr_port_conf_set(&pc, "speed", "1000G"), 0);
	assert_int_equal(lr_port_wire("usf", 1, SOCKET_ID_ANY, fast), 0);
	assert_int_equal(lr_port_setup(fast[0], &pc), 0);
	assert_int_equal(lr_port_setup(fast[1], &pc), 0);
	lr_gen_conf_init(&c);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "rate", "1000Mpps"), 0);
	t = lr_task_create(&lr_gen_role, w, fast[0], 0, 0.3, &c);
	assert_non_null(t);
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_engine_sleep(0.1), 0);
	lr_gen_role.report->live(live, sizeof(live));
	if (strstr(live, "offered") == NULL || strstr(live, "SHORT") == NULL)
		fail_msg("live words '%s'", live);
	assert_int_equal(lr_engine_wait(10), 0);
	lr_engine_stop();

	doc = lr_stats_results();
	assert_string_equal(json_string_value(json_object_get(doc, "verdict")),
			    "short");
	task = json_array_get(json_object_get(doc, "tasks"), t->id);
	assert_string_equal(json_string_value(json_object_get(task, "verdict")),
			    "short");
	assert_true(json_is_true(json_object_get(task, "short")));
	assert_true(json_real_value(json_object_get(task, "offered")) < 0.5);
	assert_non_null(strstr(json_string_value(json_object_get(task,
			       "verdict_why")), "rate short"));
	json_decref(doc);
}

/*
 * The live line's drops over the second: a total that went back (a port's
 * counters that could not be read this time, tasks that went away) is no
 * drop. It printed the difference as unsigned, about 1.8e19.
 */
static void
live_drops_never_negative(void **state)
{
	struct lr_gen_conf c;
	struct lr_task *t;
	unsigned int w;
	char line[512];
	size_t n;
	FILE *f;

	(void)state;
	assert_true(lr_engine_workers(&w, 1) >= 1);
	lr_gen_conf_init(&c);
	t = lr_task_create(&lr_gen_role, w, wire[0], 0, 0, &c);
	assert_non_null(t);
	f = tmpfile();
	assert_non_null(f);
	t->st.drops = 100;
	lr_stats_live(true, f);
	lr_stats_tick();		/* the baseline */
	usleep(1100 * 1000);
	t->st.drops = 40;
	lr_stats_tick();		/* a line: 60 fewer than a second ago */
	lr_stats_live(false, stdout);
	rewind(f);
	n = fread(line, 1, sizeof(line) - 1, f);
	line[n] = '\0';
	fclose(f);
	if (strstr(line, "local drops 0 ") == NULL &&
	    strstr(line, "local drops 0\n") == NULL)
		fail_msg("live line: '%s'", line);
}

static int
setup(void **state)
{
	(void)state;
	if (lr_test_eal_init("stats") != 0)
		return -1;
	lr_stats_init();
	lr_stats_live(false, NULL);
	if (lr_test_wire("us", wire) != 0)
		return -1;
	return 0;
}


static void
hist_exact_and_bounded(void **state)
{
	static struct lr_hist h, a, b;
	uint64_t v, low, w;
	unsigned int i;

	(void)state;
	lr_hist_init(&h);
	assert_int_equal(lr_hist_quantile(&h, 0.5), 0);
	/* Below 64 ns every value has its own bucket. */
	for (v = 1; v <= 50; v++)
		lr_hist_add(&h, v);
	assert_int_equal(lr_hist_quantile(&h, 0.5), 25);
	assert_int_equal(lr_hist_quantile(&h, 0.99), 50);
	assert_int_equal(lr_hist_quantile(&h, 0), 1);
	assert_true(lr_hist_mean(&h) == 25.5);

	/* Buckets tile the values: each value is inside its bucket, the
	 * bucket is at most 1/64 of its low end wide. */
	for (v = 1; v < (1ull << 40); v = v * 3 + 1) {
		i = lr_hist_bucket(v);
		low = lr_hist_bucket_low(i, &w);
		assert_true(low <= v && v < low + w);
		assert_true(w == 1 || w * 64 <= low);
	}
	assert_true(lr_hist_bucket(UINT64_MAX) < LR_HIST_BUCKETS);

	/* 1..100000 ns: quantiles within 1 % of the truth; merging two
	 * halves gives the same as one. */
	lr_hist_init(&h);
	lr_hist_init(&a);
	lr_hist_init(&b);
	for (v = 1; v <= 100000; v++) {
		lr_hist_add(&h, v);
		lr_hist_add(v % 2 ? &a : &b, v);
	}
	lr_hist_merge(&a, &b);
	assert_memory_equal(&a, &h, sizeof(h));
	/* A run added at once is the run added one by one. */
	lr_hist_init(&a);
	lr_hist_init(&b);
	for (v = 1; v <= 100000; v += 997) {
		uint64_t k;

		lr_hist_add_n(&a, v, 1 + v % 7);
		for (k = 0; k <= v % 7; k++)
			lr_hist_add(&b, v);
	}
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(labs((long)lr_hist_quantile(&h, 0.5) - 50000) <= 500);
	assert_true(labs((long)lr_hist_quantile(&h, 0.99) - 99000) <= 990);
	assert_true(labs((long)lr_hist_quantile(&h, 0.999) - 99900) <= 999);
	assert_int_equal(lr_hist_quantile(&h, 1), 100000);
	assert_int_equal(h.min, 1);

	/* A running task's histogram read with its count ahead of its
	 * buckets (added after the read of them): the merge counts what the
	 * buckets hold, so p99.9 stays p99.9, not the maximum. */
	lr_hist_init(&a);
	b = h;
	b.count += 1000;
	lr_hist_merge(&a, &b);
	assert_true(a.count == h.count);
	assert_true(labs((long)lr_hist_quantile(&a, 0.999) - 99900) <= 999);
}

/* The exported buckets: ascending, non-empty, each value of the input in
 * the bucket that claims it, counts summing to the count. */
static void
hist_buckets_export(void **state)
{
	static struct lr_hist h;
	static const uint64_t vals[] = { 0, 7, 63, 64, 65, 1000, 1000, 12345,
					 1ull << 33, 999999937 };
	json_t *o, *a, *e;
	json_int_t sum = 0, prev = -1;
	size_t i, j;

	(void)state;
	lr_hist_init(&h);
	for (i = 0; i < RTE_DIM(vals); i++)
		lr_hist_add(&h, vals[i]);
	o = lr_hist_json(&h);
	a = json_object_get(o, "buckets");
	assert_non_null(a);
	assert_int_equal(json_array_size(a), RTE_DIM(vals) - 1); /* 1000 twice */
	json_array_foreach(a, i, e) {
		json_int_t low = json_integer_value(json_array_get(e, 0));
		json_int_t w = json_integer_value(json_array_get(e, 1));
		json_int_t n = json_integer_value(json_array_get(e, 2));
		json_int_t in = 0;

		assert_true(low > prev && w >= 1 && n >= 1);
		prev = low;
		sum += n;
		for (j = 0; j < RTE_DIM(vals); j++)
			in += (json_int_t)vals[j] >= low &&
			      (json_int_t)vals[j] < low + w;
		assert_int_equal(in, n);
	}
	assert_int_equal(sum, RTE_DIM(vals));
	json_decref(o);
}

/* Any layout of lr_hist: buckets tile the values without gap, each value
 * falls in its bucket, a capped layout's last takes everything above; 6/64
 * is struct lr_hist's; a quantile of a layout is lr_hist_quantile's. */
static void
hist_layouts(void **state)
{
	static const unsigned int layouts[][2] = { { 3, 34 }, { 6, 64 } };
	uint64_t low, w, next_low = 0, v;
	unsigned int l, i, nb;
	struct lr_hist h;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		unsigned int sb = layouts[l][0], mb = layouts[l][1];

		nb = LR_HIST_NB(sb, mb);
		next_low = 0;
		for (i = 0; i < nb; i++) {
			low = lr_hist_bucket_low_of(i, sb, &w);
			assert_true(low == next_low);
			assert_int_equal(lr_hist_bucket_of(low, sb, mb), i);
			assert_int_equal(lr_hist_bucket_of(low + w - 1, sb, mb), i);
			next_low = low + w;
			if (sb == LR_HIST_SUB_BITS) {
				uint64_t w2;

				assert_true(lr_hist_bucket_low(i, &w2) == low &&
					    w2 == w);
				assert_int_equal(lr_hist_bucket(low), i);
			}
		}
		if (mb < 64) {
			assert_true(next_low == 1ull << mb);
			assert_int_equal(lr_hist_bucket_of(UINT64_MAX, sb, mb),
					 nb - 1);
		}
	}
	assert_int_equal(LR_HIST_NB(LR_HIST_SUB_BITS, 64), LR_HIST_BUCKETS);
	lr_hist_init(&h);
	for (v = 1; v < 100000; v = v * 3 + 1)
		lr_hist_add(&h, v);
	assert_true(lr_hist_quantile_of(h.b, LR_HIST_BUCKETS, LR_HIST_SUB_BITS,
					h.count, h.min, h.max, 0.9) ==
		    lr_hist_quantile(&h, 0.9));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(results_sum_tasks),
		cmocka_unit_test(results_flag_short),
		cmocka_unit_test(live_drops_never_negative),
		cmocka_unit_test(hist_exact_and_bounded),
		cmocka_unit_test(hist_layouts),
		cmocka_unit_test(hist_buckets_export),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
