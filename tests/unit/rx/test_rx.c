/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_gen.h"
#include "lr_port.h"
#include "lr_rx.h"
#include "../lr_test.h"

static uint16_t wire[2];
static unsigned int worker;

/* Frames that are not ours, some shorter than any header. */
static void
send_foreign(unsigned int n)
{
	struct rte_mbuf *m[16];
	unsigned int i;

	assert_true(n <= 16);
	assert_int_equal(rte_pktmbuf_alloc_bulk(lr_port_info(wire[0])->pool, m, n), 0);
	for (i = 0; i < n; i++) {
		uint16_t len = (uint16_t)(i % 2 ? 14 : 60);
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m[i], len);

		memset(d, 0xa5, len);
	}
	assert_int_equal(rte_eth_tx_burst(wire[0], 0, m, n), n);
}

static void
counts_own_and_foreign(void **state)
{
	struct lr_gen_conf gc;
	struct lr_rx_conf rc;
	struct lr_rx_counts cnt;
	struct lr_task *g, *r;

	(void)state;
	lr_gen_conf_init(&gc);
	gc.count = 5000;
	gc.flows = 8;
	lr_rx_conf_init(&rc);
	r = lr_task_create(&lr_rx_role, worker, wire[1], 0, 0, &rc);
	g = lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, &gc);
	assert_non_null(r);
	assert_non_null(g);
	send_foreign(10);	/* before the gen's frames, on the same ring */
	assert_int_equal(lr_engine_start(), 2);
	assert_int_equal(lr_task_wait(g, 5, 0), 0);
	assert_int_equal(lr_task_wait(r, 5, 0.1), 1);
	lr_engine_stop();
	lr_rx_counts(r, &cnt);
	assert_int_equal(cnt.own, 5000);
	assert_int_equal(cnt.foreign, 10);
	assert_int_equal(r->st.rx_pkts, 5010);
	assert_int_equal(r->st.rx_bytes, 5000 * 60 + 5 * 60 + 5 * 14);
}

static void
stops_at_count(void **state)
{
	struct lr_rx_conf rc;
	struct lr_task *r;

	(void)state;
	lr_rx_conf_init(&rc);
	assert_int_equal(lr_rx_role.conf_set(&rc, "count", "x"), -EINVAL);
	assert_int_equal(lr_rx_role.conf_set(&rc, "count", "16"), 0);
	r = lr_task_create(&lr_rx_role, worker, wire[1], 0, 0, &rc);
	assert_non_null(r);
	send_foreign(16);
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(r, 5, 0), 0);
	assert_int_equal(r->st.rx_pkts, 16);
	lr_engine_stop();
}

static int
setup(void **state)
{
	(void)state;
	if (lr_test_eal_init("rx") != 0)
		return -1;
	if (lr_test_wire("ur", wire) != 0)
		return -1;
	return lr_engine_workers(&worker, 1) >= 1 ? 0 : -1;
}


int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_own_and_foreign),
		cmocka_unit_test(stops_at_count),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
