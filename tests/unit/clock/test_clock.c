/* SPDX-License-Identifier: BSD-3-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "lr_capture.h"
#include "lr_clock.h"
#include "lr_port.h"
#include "lr_test.h"

/* The line through one reading: exact at the reading, one TSC second
 * later one second later, whatever the TSC's rate. */
static void
tsc_to_unix_ns(void **state)
{
	struct lr_clock c = { .tsc0 = 1000, .ns0 = 1700000000ull * 1000000000ull,
			      .ns_per_tsc = 0.5 };
	struct timespec before, after;
	uint64_t hz;

	(void)state;
	assert_int_equal(lr_clock_ns(&c, 1000), c.ns0);
	assert_int_equal(lr_clock_ns(&c, 1000 + 2000000000ull), c.ns0 + 1000000000ull);
	assert_int_equal(lr_clock_ns(&c, 1003), c.ns0 + 1);	/* truncated */

	clock_gettime(CLOCK_REALTIME, &before);
	lr_clock_init(&c);
	clock_gettime(CLOCK_REALTIME, &after);
	hz = rte_get_tsc_hz();
	/* The reading was taken between the two: no claim on how long the
	 * machine took, only on the order. */
	assert_true(c.ns0 >= (uint64_t)before.tv_sec * 1000000000ull +
			     (uint64_t)before.tv_nsec);
	assert_true(c.ns0 <= (uint64_t)after.tv_sec * 1000000000ull +
			     (uint64_t)after.tv_nsec);
	assert_true(c.tsc0 != 0);
	assert_int_equal(lr_clock_ns(&c, c.tsc0), c.ns0);
	/* hz cycles are one second, to the ns the double keeps. */
	assert_true(lr_clock_ns(&c, c.tsc0 + hz) - c.ns0 >= 1000000000ull - 1 &&
		    lr_clock_ns(&c, c.tsc0 + hz) - c.ns0 <= 1000000000ull + 1);
}

static struct rte_mbuf *
stamped(struct rte_mempool *mp, const struct lr_clock_rx *rx, uint64_t raw)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	*RTE_MBUF_DYNFIELD(m, rx->offset, uint64_t *) = raw;
	m->ol_flags |= rx->flag;
	return m;
}

/* A capture's stamps are us (net_pcap): the trace's ns, no offset. A NIC's
 * are its clock plus the offset to Unix time. A packet without a stamp,
 * or on a port that stamps nothing, takes the burst's TSC time. */
static void
rx_stamps(void **state)
{
	struct rte_mempool *mp;
	struct lr_clock c;
	struct lr_clock_rx cap, nic, none;
	struct rte_mbuf *m;
	uint16_t wire[2];

	(void)state;
	mp = rte_pktmbuf_pool_create("clockpool", 63, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(mp);
	lr_clock_init(&c);

	assert_int_equal(lr_clock_rx_init(&cap, 0, true, &c), 0);
	assert_true(cap.trace);
	assert_true(cap.flag != 0);
	assert_int_equal(cap.mult, LR_PORT_CAPTURE_TS_NS);
	assert_int_equal(cap.add, 0);
	m = stamped(mp, &cap, 1700000000123456ull);	/* s * 10^6 + us */
	assert_int_equal(lr_clock_rx_trace_ns(&cap, m), 1700000000123456000ull);
	assert_int_equal(lr_clock_rx_ns(&cap, m), 1700000000123456000ull);
	assert_int_equal(lr_clock_rx_or(&cap, m, 42), 1700000000123456000ull);
	m->ol_flags &= ~cap.flag;
	assert_int_equal(lr_clock_rx_or(&cap, m, 42), 42);
	rte_pktmbuf_free(m);

	/* A NIC clock taken as ns, 5 s behind Unix time. */
	nic = cap;
	nic.trace = false;
	nic.mult = 1;
	nic.add = 5000000000ll;
	m = stamped(mp, &nic, 1000);
	assert_int_equal(lr_clock_rx_ns(&nic, m), 5000001000ull);
	assert_int_equal(lr_clock_rx_or(&nic, m, 42), 5000001000ull);
	nic.add = -500;
	assert_int_equal(lr_clock_rx_ns(&nic, m), 500);
	rte_pktmbuf_free(m);

	/* The virtual wire has no timestamp offload: no stamps read, even
	 * from an mbuf that carries the flag. */
	assert_int_equal(lr_test_wire("clkwire", wire), 0);
	assert_int_equal(lr_clock_rx_init(&none, wire[1], false, &c), 0);
	assert_false(none.trace);
	assert_int_equal(none.flag, 0);
	m = stamped(mp, &cap, 77);
	assert_int_equal(lr_clock_rx_or(&none, m, lr_clock_ns(&c, c.tsc0)), c.ns0);
	rte_pktmbuf_free(m);
	rte_mempool_free(mp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tsc_to_unix_ns),
		cmocka_unit_test(rx_stamps),
	};

	/* EAL once, for the TSC rate, the dynfield and a port. */
	if (lr_test_eal_init("clock") != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, lr_test_teardown);
}
