/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_errno.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lr_change.h"
#include "lr_common.h"
#include "lr_engine.h"
#include "lr_port.h"
#include "../lr_test.h"

/* A role at the library boundary: counts its polls as packets. */
struct tick_conf {
	uint64_t limit;		/* done after this many polls, 0: never */
	uint64_t step;		/* packets per poll */
};

static int finished;

static int
tick_init(struct lr_task *t, const void *conf)
{
	static struct tick_conf confs[16];
	static unsigned int n;

	confs[n % 16] = *(const struct tick_conf *)conf;
	t->priv = &confs[n++ % 16];
	return 0;
}

static int
tick_poll(struct lr_task *t, uint64_t now)
{
	const struct tick_conf *c = t->priv;

	(void)now;
	t->st.rx_pkts += c->step;
	return c->limit != 0 && t->st.rx_pkts >= c->limit;
}

static void
tick_finish(struct lr_task *t)
{
	(void)t;
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELAXED);
}

static const struct lr_opt tick_opts[] = { { 0 } };
static unsigned int placed;

/* A plan's placement that makes no task of its own kind. */
static int
tick_place(uint16_t p, const void *conf, const void *with_conf,
	   const unsigned int *lcores, unsigned int n, double duration_s)
{
	(void)p; (void)conf; (void)with_conf; (void)lcores; (void)n;
	(void)duration_s;
	placed++;
	return 1;
}

static const struct lr_task_kind tick_task = {
	.uses_rx = true,
	.init = tick_init, .poll = tick_poll, .finish = tick_finish,
};

static const struct lr_role tick_role = {
	.name = "tick", .opts = tick_opts, .task = &tick_task,
	.conf_bytes = sizeof(struct tick_conf),
};

static uint16_t port;
static unsigned int worker;

static void
rejects_bad_placement(void **state)
{
	struct tick_conf c = { .limit = 1, .step = 1 };

	(void)state;
	assert_null(lr_task_create(&tick_role, rte_get_main_lcore(), port, 0, 0, &c));
	assert_int_equal(rte_errno, EINVAL);
	assert_non_null(strstr(lr_errmsg(), "not a worker"));
	assert_null(lr_task_create(&tick_role, worker, port, 5, 0, &c));
	assert_non_null(strstr(lr_errmsg(), "no rx queue 5"));
	assert_null(lr_task_create(&tick_role, worker, 77, 0, 0, &c));
	assert_non_null(strstr(lr_errmsg(), "not set up"));
	/* A role that is a plan over other roles' tasks has no task. */
	static const struct lr_role plan_only = { .name = "plan_only",
						  .opts = tick_opts };
	assert_null(lr_task_create(&plan_only, worker, port, 0, 0, &c));
	assert_non_null(strstr(lr_errmsg(), "a plan, not a task"));
}

static void
runs_to_limit(void **state)
{
	struct tick_conf c = { .limit = 1000, .step = 1 };
	struct lr_task *t;
	json_t *o;

	(void)state;
	finished = 0;
	t = lr_task_create(&tick_role, worker, port, 0, 0, &c);
	assert_non_null(t);
	assert_int_equal(lr_task_state(t), LR_TASK_CREATED);
	assert_int_equal(lr_task_wait(t, 1, 0), -EINVAL);	/* not started */
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(t, 5, 0), 0);
	assert_int_equal(lr_task_state(t), LR_TASK_DONE);
	assert_int_equal(t->st.rx_pkts, 1000);
	assert_int_equal(finished, 1);
	assert_true(t->st.end_tsc >= t->st.start_tsc);
	o = lr_task_report(t);
	assert_string_equal(json_string_value(json_object_get(o, "role")), "tick");
	assert_int_equal(json_integer_value(json_object_get(o, "rx_packets")), 1000);
	json_decref(o);
	lr_engine_stop();
}

static void
queue_held_once(void **state)
{
	struct tick_conf c = { .limit = 0, .step = 0 };
	struct lr_task *a, *b;

	(void)state;
	a = lr_task_create(&tick_role, worker, port, 0, 0, &c);
	assert_non_null(a);
	b = lr_task_create(&tick_role, worker, port, 0, 0, &c);
	assert_null(b);
	assert_int_equal(rte_errno, EBUSY);
	assert_non_null(strstr(lr_errmsg(), "held by task"));
	/* Never started, stopped: done at once, and the queue is free. */
	lr_task_stop(a);
	assert_int_equal(lr_task_state(a), LR_TASK_DONE);
	b = lr_task_create(&tick_role, worker, port, 0, 0, &c);
	assert_non_null(b);
	lr_task_stop(b);
}

static void
duration_stop_and_idle(void **state)
{
	struct tick_conf forever = { .limit = 0, .step = 1 };
	struct tick_conf silent = { .limit = 0, .step = 0 };
	struct lr_task *t, *u, *busy;

	(void)state;
	t = lr_task_create(&tick_role, worker, port, 0, 0.05, &forever);
	u = lr_task_create(&tick_role, worker, port, 1, 0, &silent);
	assert_non_null(t);
	assert_non_null(u);
	assert_int_equal(lr_engine_start(), 2);
	/* The lcore runs: it takes no new task. */
	busy = lr_task_create(&tick_role, worker, port, 2, 0, &silent);
	assert_null(busy);
	assert_int_equal(rte_errno, EBUSY);
	assert_int_equal(lr_task_wait(t, 5, 0), 0);	/* by its duration */
	assert_true(t->st.rx_pkts > 0);
	assert_int_equal(lr_task_wait(u, 5, 0.02), 1);	/* idle */
	assert_int_equal(lr_task_wait(u, 0.02, 0), -ETIMEDOUT);
	lr_task_stop(u);
	assert_int_equal(lr_task_wait(u, 5, 0), 0);
	assert_int_equal(lr_engine_wait(1), 0);
	lr_engine_stop();
}

static void
registry(void **state)
{
	(void)state;
	static const struct lr_role no_table = { .name = "no_table",
						 .task = &tick_task };
	/* Neither tasks of its own nor a plan that places others': a
	 * report alone does no work. */
	static const struct lr_report says_only = { .live = NULL };
	static const struct lr_role no_work = { .name = "no_work",
						.opts = tick_opts,
						.report = &says_only };
	static const struct lr_task_kind no_poll_kind = {
		.uses_rx = true, .init = tick_init
	};
	static const struct lr_role no_poll = { .name = "no_poll",
						.opts = tick_opts,
						.task = &no_poll_kind };
	static const struct lr_plan places = { .place = tick_place };
	static const struct lr_role plan_over = { .name = "plan_over",
						  .opts = tick_opts,
						  .plan = &places };

	assert_null(lr_role_find("tick"));
	/* A role's options are its table: one without is refused. */
	assert_int_equal(lr_role_register(&no_table), -EINVAL);
	assert_null(lr_role_find("no_table"));
	assert_int_equal(lr_role_register(&no_work), -EINVAL);
	assert_int_equal(lr_role_register(&no_poll), -EINVAL);
	assert_int_equal(lr_role_register(&tick_role), 0);
	assert_int_equal(lr_role_register(&plan_over), 0);
	assert_ptr_equal(lr_role_find("tick"), &tick_role);
	assert_ptr_equal(lr_role_at(0), &tick_role);
	assert_ptr_equal(lr_role_at(1), &plan_over);
	assert_null(lr_role_at(2));
	/* A plan over other roles' tasks places them through its hook. */
	assert_int_equal(lr_role_plan(&plan_over, port, NULL, NULL, &worker, 1,
				      0), 1);
	assert_int_equal(placed, 1);
	/* The placement of a role without a plan of its own: a task per
	 * queue. */
	assert_int_equal(lr_role_plan(&tick_role, port, &(struct tick_conf){
				.limit = 1, .step = 1 }, NULL, &worker, 1, 0),
			 (int)lr_port_info(port)->nb_rxq);
}

static int
setup(void **state)
{
	struct lr_port_conf c;
	unsigned int w[4];

	(void)state;
	if (lr_test_eal_init("engine") != 0)
		return -1;
	lr_port_conf_init(&c);
	c.nb_rxq = c.nb_txq = 4;
	if (lr_port_find("net_null0", &port) != 0 || lr_port_setup(port, &c) != 0)
		return -1;
	if (lr_engine_workers(w, 4) < 1)
		return -1;
	worker = w[0];
	return 0;
}

/* Live changes (lr_change.h): a block of a made-up role, its records. */
struct blk {
	struct lr_change ch;
	int id;
};

static int blk_frees, blk_live;

static json_t *
blk_record(void *arg, const struct lr_change *ch, const struct lr_change *from,
	   enum lr_change_fate fate, const char *why)
{
	(void)arg;
	assert_true((fate == LR_CHANGE_TAKEN) == (why == NULL));
	return json_pack("{si si si}", "id", ((const struct blk *)ch)->id,
			 "from", from ? ((const struct blk *)from)->id : 0,
			 "fate", (int)fate);
}

static void
blk_free(void *arg, struct lr_change *ch)
{
	(void)arg;
	blk_frees++;
	blk_live--;
	free(ch);
}

static const struct lr_change_ops blk_ops = { blk_record, blk_free };

static struct blk *
blk_new(int id)
{
	struct blk *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	b->id = id;
	blk_live++;
	return b;
}

/* The worker's side: takes what is published, if anything. */
static int
worker_take(struct lr_changes *c)
{
	struct blk *b = (struct blk *)lr_change_peek(c);

	if (b == NULL)
		return 0;
	lr_change_taken(c, &b->ch, rte_rdtsc());
	return b->id;
}

/* The record listed at @p i: its id, from and fate. */
static void
listed(json_t *a, size_t i, int id, int from, int fate)
{
	json_t *r = json_array_get(a, i);

	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), id);
	assert_int_equal(json_integer_value(json_object_get(r, "from")), from);
	assert_int_equal(json_integer_value(json_object_get(r, "fate")), fate);
}

static void
changes_freed_and_bounded(void **state)
{
	struct lr_task t;
	struct lr_changes c;
	uint64_t poll = 0;
	json_t *a, *n;
	int i;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.state = LR_TASK_RUNNING;
	blk_frees = blk_live = 0;
	assert_int_equal(lr_changes_init(&c, &blk_ops, NULL, &t, &poll), 0);
	/* Taken in turn: the block in force is kept for the next's "from". */
	assert_int_equal(lr_changes_publish(&c, &blk_new(1)->ch), 0);
	assert_int_equal(worker_take(&c), 1);
	assert_int_equal(worker_take(&c), 0);
	assert_int_equal(lr_changes_publish(&c, &blk_new(2)->ch), 0);
	assert_int_equal(blk_frees, 0);		/* 1 is in force */
	assert_int_equal(worker_take(&c), 2);
	lr_changes_reap(&c);
	assert_int_equal(blk_frees, 1);		/* 1: 2 took over */
	/* Replaced untaken: kept until the worker polls past the replacement. */
	assert_int_equal(lr_changes_publish(&c, &blk_new(3)->ch), 0);
	assert_int_equal(lr_changes_publish(&c, &blk_new(4)->ch), 0);
	lr_changes_reap(&c);
	assert_int_equal(blk_frees, 1);		/* 3 may be read still */
	poll = rte_rdtsc() + rte_get_tsc_hz();	/* a poll began since */
	lr_changes_reap(&c);
	assert_int_equal(blk_frees, 2);
	a = lr_changes_json(&c);
	assert_int_equal(json_array_size(a), 4);
	listed(a, 0, 1, 0, LR_CHANGE_TAKEN);
	listed(a, 1, 2, 1, LR_CHANGE_TAKEN);
	listed(a, 2, 3, 0, LR_CHANGE_REPLACED);
	listed(a, 3, 4, 0, LR_CHANGE_PENDING);
	json_decref(a);
	/* A later one taken: the one before is done with, whatever the poll. */
	poll = 0;
	assert_int_equal(worker_take(&c), 4);
	assert_int_equal(lr_changes_publish(&c, &blk_new(5)->ch), 0);
	assert_int_equal(lr_changes_publish(&c, &blk_new(6)->ch), 0);
	assert_int_equal(worker_take(&c), 6);
	lr_changes_reap(&c);
	/* 1, 3, 2, then 4 (6 took over), 5 (replaced): 6 in force */
	assert_int_equal(blk_frees, 5);
	assert_int_equal(blk_live, 1);
	/* A thousand more: the list keeps the last LR_CHANGES_KEEP. */
	for (i = 7; i < 1007; i++) {
		assert_int_equal(lr_changes_publish(&c, &blk_new(i)->ch), 0);
		if (i % 3 == 0)
			assert_int_equal(worker_take(&c), i);
		poll = rte_rdtsc() + rte_get_tsc_hz();
	}
	lr_changes_reap(&c);
	assert_true(blk_live <= 3);
	a = lr_changes_json(&c);
	assert_true(json_array_size(a) >= LR_CHANGES_KEEP &&
		    json_array_size(a) <= LR_CHANGES_KEEP + 2);
	for (i = 1; i < (int)json_array_size(a); i++)
		assert_true(json_integer_value(json_object_get(json_array_get(a, i), "id")) >
			    json_integer_value(json_object_get(json_array_get(a, i - 1), "id")));
	json_decref(a);
	n = lr_changes_counts_json(&c);
	assert_int_equal(json_integer_value(json_object_get(n, "asked")), 1006);
	assert_int_equal(json_integer_value(json_object_get(n, "taken")) +
			 json_integer_value(json_object_get(n, "replaced")) +
			 json_integer_value(json_object_get(n, "ended")) +
			 json_integer_value(json_object_get(n, "pending")), 1006);
	assert_int_equal(json_integer_value(json_object_get(n, "taken")), 4 + 333);
	json_decref(n);
	/* The task ends: what it never took is its end's. */
	assert_int_equal(lr_changes_publish(&c, &blk_new(2000)->ch), 0);
	t.state = LR_TASK_DONE;
	a = lr_changes_json(&c);
	listed(a, json_array_size(a) - 1, 2000, 0, LR_CHANGE_ENDED);
	json_decref(a);
	lr_changes_free(&c);
	assert_int_equal(blk_live, 0);
}

/* A worker that never polls: past LR_CHANGES_LIVE_MAX blocks a set waits
 * (a second) and is refused, nothing lost or leaked. */
static void
changes_refused_past_a_stalled_worker(void **state)
{
	struct lr_task t;
	struct lr_changes c;
	uint64_t poll = 0;
	struct blk *b;
	int i;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.state = LR_TASK_RUNNING;
	blk_frees = blk_live = 0;
	assert_int_equal(lr_changes_init(&c, &blk_ops, NULL, &t, &poll), 0);
	for (i = 0; i < LR_CHANGES_LIVE_MAX; i++)
		assert_int_equal(lr_changes_publish(&c, &blk_new(i + 1)->ch), 0);
	b = blk_new(999);
	assert_int_equal(lr_changes_publish(&c, &b->ch), -EBUSY);
	assert_non_null(strstr(lr_errmsg(), "has not polled"));
	blk_free(NULL, &b->ch);
	/* The worker polls: room again. */
	poll = rte_rdtsc() + rte_get_tsc_hz();
	assert_int_equal(lr_changes_publish(&c, &blk_new(1000)->ch), 0);
	assert_int_equal(worker_take(&c), 1000);
	lr_changes_free(&c);
	assert_int_equal(blk_live, 0);
}

/* A counter table's walk: a row of each type in the table's order, a row
 * of a "when" bit only when asked, code rows and rows without a key left
 * to the caller. */
struct walked {
	uint64_t u;
	int64_t i;
	double r;
};

static void
put_twice(json_t *o, const struct lr_counter *row, const void *base)
{
	const struct walked *w = base;

	json_object_set_new(o, row->key, json_integer((json_int_t)(2 * w->u)));
}

static const struct lr_counter walked_rows[] = {
	LR_COUNTER_U64(struct walked, u, "u", "u_total", COUNTER, "frames", "U."),
	LR_COUNTER_I64(struct walked, i, "i", NULL, NONE, "frames", "I."),
	LR_COUNTER_ROW(REAL, struct walked, r, "r", 1, NULL, NONE, "s", "R."),
	LR_COUNTER_PUT(put_twice, "twice", NULL, NONE, "frames", "Twice U."),
	LR_COUNTER_CODE("code", "code_seconds", HISTOGRAM, "s", "C."),
	LR_COUNTER_U64(struct walked, u, NULL, NULL, NONE, "frames", "No key."),
};

static void
counters_walk(void **state)
{
	static const struct lr_counters c = LR_COUNTERS(walked_rows);
	static const char *const order[] = { "u", "i", "twice" };
	struct walked w = { .u = 7, .i = -3, .r = 0.5 };
	json_t *o = json_object(), *v;
	const char *key;
	size_t k = 0;

	(void)state;
	assert_int_equal(c.nb, 6);
	lr_counters_json(o, &c, &w, 0);
	json_object_foreach(o, key, v) {
		assert_true(k < RTE_DIM(order));
		assert_string_equal(key, order[k++]);
	}
	assert_int_equal(k, 3);
	assert_int_equal(json_integer_value(json_object_get(o, "u")), 7);
	assert_int_equal(json_integer_value(json_object_get(o, "i")), -3);
	assert_int_equal(json_integer_value(json_object_get(o, "twice")), 14);
	json_object_clear(o);
	lr_counters_json(o, &c, &w, 1);
	assert_int_equal(json_object_size(o), 4);
	assert_true(json_is_real(json_object_get(o, "r")));
	assert_true(json_real_value(json_object_get(o, "r")) == 0.5);
	json_decref(o);
	assert_string_equal(lr_counter_kind_name(walked_rows[4].kind), "histogram");
	assert_string_equal(lr_counter_kind_name(walked_rows[0].kind), "counter");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rejects_bad_placement),
		cmocka_unit_test(runs_to_limit),
		cmocka_unit_test(queue_held_once),
		cmocka_unit_test(duration_stop_and_idle),
		cmocka_unit_test(registry),
		cmocka_unit_test(changes_freed_and_bounded),
		cmocka_unit_test(changes_refused_past_a_stalled_worker),
		cmocka_unit_test(counters_walk),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
