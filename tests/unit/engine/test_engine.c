/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_errno.h>
#include <rte_lcore.h>

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
	/* Neither tasks of its own nor a plan that places others'. */
	static const struct lr_plan says_only = { .live = NULL };
	static const struct lr_role no_work = { .name = "no_work",
						.opts = tick_opts,
						.plan = &says_only };
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


int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rejects_bad_placement),
		cmocka_unit_test(runs_to_limit),
		cmocka_unit_test(queue_held_once),
		cmocka_unit_test(duration_stop_and_idle),
		cmocka_unit_test(registry),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
