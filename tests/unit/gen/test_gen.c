/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_gen.h"
#include "lr_port.h"
#include "../lr_test.h"

static uint16_t wire[2];
static unsigned int worker;

static void
header_round_trip(void **state)
{
	uint8_t buf[LR_HDR_BYTES];
	uint32_t flow, seq;
	uint64_t tsc;

	(void)state;
	assert_int_equal(sizeof(struct lr_pkt_hdr), LR_HDR_BYTES);
	lr_pkt_hdr_write(buf, 0x01020304, 0xfffffffe, 0x1122334455667788ull);
	/* Big-endian on the wire, as documented. */
	assert_int_equal(buf[0], 0x4c);
	assert_int_equal(buf[1], 0x52);
	assert_int_equal(buf[2], 0x01);
	assert_int_equal(buf[5], 0x04);
	assert_int_equal(buf[9], 0xfe);
	assert_int_equal(buf[10], 0x11);
	assert_int_equal(lr_pkt_hdr_read(buf, &flow, &seq, &tsc), 0);
	assert_int_equal(flow, 0x01020304);
	assert_int_equal(seq, 0xfffffffe);
	assert_true(tsc == 0x1122334455667788ull);
	buf[1] ^= 1;
	assert_int_equal(lr_pkt_hdr_read(buf, &flow, &seq, &tsc), -EINVAL);
}

static void
conf_checks(void **state)
{
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	assert_int_equal(lr_gen_role.conf_set(&c, "size", "63"), -EINVAL);
	assert_int_equal(lr_gen_role.conf_set(&c, "size", "9019"), -EINVAL);
	assert_int_equal(lr_gen_role.conf_set(&c, "size", "9018"), 0);
	assert_int_equal(c.frame_bytes, 9018);
	assert_int_equal(lr_gen_role.conf_set(&c, "src-ip", "192.168.1.2"), 0);
	assert_int_equal(c.src_ip, 0xc0a80102u);	/* 192.168.1.2 */
	assert_int_equal(lr_gen_role.conf_set(&c, "dst-ip", "300.1.1.1"), -EINVAL);
	assert_int_equal(lr_gen_role.conf_set(&c, "dst-mac", "zz"), -EINVAL);
	assert_int_equal(lr_gen_role.conf_set(&c, "burst", "33"), -EINVAL);
	assert_int_equal(lr_gen_role.conf_set(&c, "colour", "1"), -ENOENT);
}

static void
jumbo_needs_mtu(void **state)
{
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	c.frame_bytes = 9018;
	assert_null(lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, &c));
	assert_non_null(strstr(lr_errmsg(), "MTU 1500"));
	c.frame_bytes = 64;
	c.flows = 70000;
	assert_null(lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, &c));
	assert_non_null(strstr(lr_errmsg(), "flows"));
}

/* Exactly `count` frames, of the asked size, flows round robin, per-flow
 * sequence from 0, valid IPv4 checksum. */
static void
sends_exact_frames(void **state)
{
	struct lr_gen_conf c;
	struct lr_task *t;
	struct rte_mbuf *m[64];
	uint32_t next_seq[4] = { 0 };
	unsigned int got = 0, i;

	(void)state;
	lr_gen_conf_init(&c);
	c.frame_bytes = 128;
	c.count = 100;
	c.flows = 4;
	c.flow_base = 10;
	t = lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, &c);
	assert_non_null(t);
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(t, 5, 0), 0);
	lr_engine_stop();
	assert_int_equal(t->st.tx_pkts, 100);
	assert_int_equal(t->st.tx_bytes, 100 * 124);
	while (got < 100) {
		uint16_t n = rte_eth_rx_burst(wire[1], 0, m, 64);

		assert_true(n > 0);
		for (i = 0; i < n; i++, got++) {
			struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m[i],
				struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
			struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
			uint16_t ck = ip->hdr_checksum;
			uint32_t flow, seq;
			uint64_t tsc;

			assert_int_equal(m[i]->pkt_len, 124);
			assert_int_equal(rte_be_to_cpu_16(ip->total_length), 110);
			assert_int_equal(rte_be_to_cpu_16(udp->dgram_len), 90);
			ip->hdr_checksum = 0;
			assert_int_equal(rte_ipv4_cksum(ip), ck);
			assert_int_equal(lr_pkt_hdr_read(udp + 1, &flow, &seq, &tsc), 0);
			assert_int_equal(flow, 10 + got % 4);
			assert_int_equal(rte_be_to_cpu_16(udp->src_port), 1024 + got % 4);
			assert_int_equal(seq, next_seq[flow - 10]++);
			assert_true(tsc != 0);
		}
		rte_pktmbuf_free_bulk(m, n);
	}
	assert_int_equal(rte_eth_rx_burst(wire[1], 0, m, 64), 0);
}

static int
setup(void **state)
{
	(void)state;
	if (lr_test_eal_init("gen") != 0)
		return -1;
	if (lr_test_wire("ug", wire) != 0)
		return -1;
	return lr_engine_workers(&worker, 1) >= 1 ? 0 : -1;
}


int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_round_trip),
		cmocka_unit_test(conf_checks),
		cmocka_unit_test(jumbo_needs_mtu),
		cmocka_unit_test(sends_exact_frames),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
