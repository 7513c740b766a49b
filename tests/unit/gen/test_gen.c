/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_gen.h"
#include "lr_pkt.h"
#include "lr_pool.h"
#include "lr_port.h"
#include "../lr_test.h"

static uint16_t wire[2];
static unsigned int worker;

static void
header_round_trip(void **state)
{
	uint8_t buf[LR_HDR_BYTES];
	uint32_t flow = 0, seq = 0;
	uint64_t tsc = 0;

	(void)state;
	assert_int_equal(sizeof(struct lr_wire_hdr), LR_HDR_BYTES);
	lr_wire_hdr_write(buf, 0x01020304, 0xfffffffe, 0x1122334455667788ull);
	/* Big-endian on the wire, as documented. */
	assert_int_equal(buf[0], 0x4c);
	assert_int_equal(buf[1], 0x52);
	assert_int_equal(buf[2], 0x01);
	assert_int_equal(buf[5], 0x04);
	assert_int_equal(buf[9], 0xfe);
	assert_int_equal(buf[10], 0x11);
	assert_int_equal(lr_wire_hdr_read(buf, &flow, &seq, &tsc), 0);
	assert_int_equal(flow, 0x01020304);
	assert_int_equal(seq, 0xfffffffe);
	assert_true(tsc == 0x1122334455667788ull);
	buf[1] ^= 1;
	assert_int_equal(lr_wire_hdr_read(buf, &flow, &seq, &tsc), -EINVAL);
}

static void
set(struct lr_gen_conf *c, const char *key, const char *val)
{
	if (lr_role_set(&lr_gen_role, c, key, val) != 0)
		fail_msg("%s=%s: %s", key, val, lr_errmsg());
}

static void
conf_checks(void **state)
{
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "63"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "9019"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "9018"), 0);
	assert_int_equal(c.sizes[0], 9018);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "1518-64"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "64:0"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", ""), -EINVAL);
	/* All or nothing: a list that fails part way leaves the sizes as
	 * they were, not its first sizes beside the old count. */
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "64,128,256"), 0);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "1518,abc"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "100-50"), -EINVAL);
	assert_int_equal(c.nb_sizes, 3);
	assert_int_equal(c.size_mode, LR_SIZE_LIST);
	assert_int_equal(c.sizes[0], 64);
	assert_int_equal(c.sizes[2], 256);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "size", "9018"), 0);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "src-ip", "192.168.1.2"), 0);
	assert_int_equal(c.src_ip.addr[0], 192);
	assert_int_equal(c.src_ip.addr[3], 2);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "dst-ip", "300.1.1.1"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "dst-ip", "10.0.0.9-10.0.0.1"),
			 -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "dst-ip", "10.0.0.1-fd00::1"),
			 -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "dst-ip", "fd00::1-fd01::1"),
			 -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "src-port", "70000"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "src-port", "9-8"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "dst-mac", "zz"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "burst", "33"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "flows", "0"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "rate", "10Gbit"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "rate", "101%"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "slice", "2/2"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "pattern", "0xabc"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "pattern", "0xzz"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "order", "random"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "colour", "1"), -ENOENT);
	/* Before any port (exit 2 on the command line): a size that holds
	 * no tag (issue 35 L9), a rate too low to schedule (H1). */
	lr_gen_conf_init(&c);
	set(&c, "vlan", "0-4095");
	set(&c, "flows", "10");
	assert_int_equal(lr_gen_role.conf_check(&c), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "frame size 64 B outside 68..9018"));
	set(&c, "size", "68");
	assert_int_equal(lr_gen_role.conf_check(&c), 0);
	set(&c, "rate", "1e-300");
	assert_int_equal(lr_gen_role.conf_check(&c), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "too low to schedule"));
	set(&c, "rate", "1e-8");
	assert_int_equal(lr_gen_role.conf_check(&c), 0);
	set(&c, "rate", "1e-9");
	assert_int_equal(lr_gen_role.conf_check(&c), -EINVAL);
}

/* Table 1's sizes from user data: what data-size gives. */
static void
data_size(void **state)
{
	struct lr_gen_conf c;
	uint32_t tab[4];

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "data-size", "1472");
	assert_int_equal(lr_gen_size_table(&c, tab, 4), 1);
	assert_int_equal(tab[0], 1518);
	set(&c, "data-size", "18");
	assert_int_equal(lr_gen_size_table(&c, tab, 4), 1);
	assert_int_equal(tab[0], 64);
	set(&c, "dst-ip", "fd00::2");
	set(&c, "data-size", "8952");
	assert_int_equal(lr_gen_size_table(&c, tab, 4), 1);
	assert_int_equal(tab[0], 9018);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "data-size", "17"), -EINVAL);
}

static void
size_tables(void **state)
{
	static uint32_t tab[LR_GEN_SIZE_TABLE], again[LR_GEN_SIZE_TABLE];
	struct lr_gen_conf c;
	unsigned int i, n64 = 0, n594 = 0, n1518 = 0, run = 0, maxrun = 0;
	int n;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "size", "imix");
	n = lr_gen_size_table(&c, tab, LR_GEN_SIZE_TABLE);
	assert_int_equal(n, 12);
	for (i = 0; i < 12; i++) {
		n64 += tab[i] == 64;
		n594 += tab[i] == 594;
		n1518 += tab[i] == 1518;
		run = tab[i] == 64 ? run + 1 : 0;
		maxrun = run > maxrun ? run : maxrun;
	}
	assert_int_equal(n64, 7);
	assert_int_equal(n594, 4);
	assert_int_equal(n1518, 1);
	assert_true(maxrun <= 2);	/* interleaved, not 7 in a row */

	set(&c, "size", "100-200");
	n = lr_gen_size_table(&c, tab, LR_GEN_SIZE_TABLE);
	assert_int_equal(n, LR_GEN_SIZE_TABLE);
	n64 = n1518 = 0;
	for (i = 0; i < (unsigned int)n; i++) {
		assert_true(tab[i] >= 100 && tab[i] <= 200);
		n64 += tab[i] == 100;
		n1518 += tab[i] == 200;
	}
	assert_true(n64 > 0 && n1518 > 0);	/* both ends reachable */
	assert_int_equal(lr_gen_size_table(&c, again, LR_GEN_SIZE_TABLE), n);
	assert_memory_equal(tab, again, sizeof(tab));	/* repeatable */
	set(&c, "seed", "2");
	lr_gen_size_table(&c, again, LR_GEN_SIZE_TABLE);
	assert_memory_not_equal(tab, again, sizeof(tab));
}

/* Flow i: source port fastest, then destination port, source address,
 * destination address. */
static void
flow_ranges(void **state)
{
	struct lr_gen_conf c;
	struct lr_gen_tuple t;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "src-port", "100-101");
	set(&c, "dst-port", "7-9");
	set(&c, "src-ip", "10.0.0.1-10.0.0.4");
	set(&c, "dst-ip", "10.1.0.255-10.1.1.0");
	assert_true(lr_gen_tuples(&c) == 2 * 3 * 4 * 2);
	assert_int_equal(lr_gen_flow_at(&c, 0, &t), 0);
	assert_int_equal(rte_be_to_cpu_16(t.src_port), 100);
	assert_int_equal(rte_be_to_cpu_16(t.dst_port), 7);
	assert_int_equal(t.src_ip[3], 1);
	assert_int_equal(lr_gen_flow_at(&c, 1, &t), 0);
	assert_int_equal(rte_be_to_cpu_16(t.src_port), 101);
	assert_int_equal(lr_gen_flow_at(&c, 2 * 3 + 1, &t), 0);
	assert_int_equal(rte_be_to_cpu_16(t.src_port), 101);
	assert_int_equal(rte_be_to_cpu_16(t.dst_port), 7);
	assert_int_equal(t.src_ip[3], 2);
	assert_int_equal(lr_gen_flow_at(&c, 47, &t), 0);
	assert_int_equal(rte_be_to_cpu_16(t.dst_port), 9);
	assert_int_equal(t.src_ip[3], 4);
	assert_int_equal(t.dst_ip[2], 1);	/* 10.1.0.255 + 1 carries */
	assert_int_equal(t.dst_ip[3], 0);
	assert_int_equal(lr_gen_flow_at(&c, 48, &t), -EINVAL);

	/* IPv6 ranges count in the last 32 bits; the v4 default follows. */
	lr_gen_conf_init(&c);
	set(&c, "src-ip", "2001:db8::1:fffe-2001:db8::2:1");
	assert_true(lr_gen_ipv6(&c));
	assert_true(lr_gen_tuples(&c) == 4 * (65536 - 1024));
	assert_int_equal(lr_gen_flow_at(&c, (65536 - 1024) * 3, &t), 0);
	assert_int_equal(t.src_ip[13], 2);
	assert_int_equal(t.src_ip[15], 1);
	assert_int_equal(t.dst_ip[0], 0xfd);	/* fd00::2 */
	assert_int_equal(t.dst_ip[15], 2);
	set(&c, "dst-ip", "10.0.0.1");
	assert_int_equal(lr_gen_flow_at(&c, 0, &t), -EINVAL);	/* mixed */
}

static void
create_fails(const struct lr_gen_conf *c, const char *msg)
{
	assert_null(lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, c));
	if (strstr(lr_errmsg(), msg) == NULL)
		fail_msg("'%s' not in '%s'", msg, lr_errmsg());
}

static void
bad_confs(void **state)
{
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "size", "9018");
	create_fails(&c, "MTU 1500");
	lr_gen_conf_init(&c);
	set(&c, "size", "64,1600");
	create_fails(&c, "MTU 1500");
	lr_gen_conf_init(&c);
	set(&c, "flows", "70000");
	create_fails(&c, "flows need");
	lr_gen_conf_init(&c);
	set(&c, "rate", "15Mpps");	/* the ring says 10G: 14.88 Mpps */
	create_fails(&c, "above port");
	set(&c, "rate", "10.1Gbps");
	set(&c, "size", "1518");
	create_fails(&c, "above port");
	lr_gen_conf_init(&c);
	set(&c, "flows", "2");
	set(&c, "fixed", "1");
	create_fails(&c, "one flow");
	lr_gen_conf_init(&c);
	set(&c, "dst-ip", "fd00::2");
	set(&c, "udp-cksum", "0");
	create_fails(&c, "RFC 8200");
	set(&c, "udp-cksum", "1");
	set(&c, "size", "64");
	create_fails(&c, "84 B");
}

/* Run @p c on the wire and hand every received frame to @p check. */
static struct lr_task *
run(const struct lr_gen_conf *c, void (*check)(struct rte_mbuf *, unsigned int,
					      void *), void *arg)
{
	struct rte_mbuf *m[64];
	struct lr_task *t;
	unsigned int got = 0, i;
	uint16_t n;

	t = lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, c);
	if (t == NULL)
		fail_msg("%s", lr_errmsg());
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(t, 10, 0), 0);
	lr_engine_stop();
	while ((n = rte_eth_rx_burst(wire[1], 0, m, 64)) > 0) {
		for (i = 0; i < n; i++, got++)
			check(m[i], got, arg);
		rte_pktmbuf_free_bulk(m, n);
	}
	assert_int_equal(got, t->st.tx_pkts);
	return t;
}

static void
check_v4(struct rte_mbuf *m, unsigned int k, void *arg)
{
	uint32_t *next_seq = arg;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t ck = ip->hdr_checksum;
	uint32_t flow = 0, seq = 0;
	uint64_t tsc = 0;

	assert_int_equal(m->pkt_len, 124);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), 110);
	assert_int_equal(rte_be_to_cpu_16(udp->dgram_len), 90);
	ip->hdr_checksum = 0;
	assert_int_equal(rte_ipv4_cksum(ip), ck);
	ip->hdr_checksum = ck;
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, udp), 0);
	assert_int_equal(lr_wire_hdr_read(udp + 1, &flow, &seq, &tsc), 0);
	assert_int_equal(flow, 10 + k % 4);
	assert_int_equal(rte_be_to_cpu_16(udp->src_port), 1024 + k % 4);
	assert_int_equal(seq, next_seq[flow - 10]++);
	assert_true(tsc != 0);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[100], 100); /* inc */
}

/* Exactly `count` frames, of the asked size, flows round robin, per-flow
 * sequence from 0, valid IPv4 and UDP checksums. */
static void
sends_exact_frames(void **state)
{
	struct lr_gen_conf c;
	struct lr_task *t;
	uint32_t next_seq[4] = { 0 };

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "size", "128");
	set(&c, "count", "100");
	set(&c, "flows", "4");
	set(&c, "flow-base", "10");
	set(&c, "udp-cksum", "1");
	t = run(&c, check_v4, next_seq);
	assert_int_equal(t->st.tx_pkts, 100);
	assert_int_equal(t->st.tx_bytes, 100 * 124);
}

struct v6_seen {
	unsigned int sizes[3];
	uint8_t flows[8];
};

static void
check_v6(struct rte_mbuf *m, unsigned int k, void *arg)
{
	struct v6_seen *s = arg;
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint32_t flow = 0, seq = 0;
	uint64_t tsc = 0;

	(void)k;
	assert_int_equal(eth->ether_type, rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6));
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len) + 54, m->pkt_len);
	assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, udp), 0);
	assert_int_equal(ip->src_addr[15], 1);
	assert_int_equal(lr_wire_hdr_read(udp + 1, &flow, &seq, &tsc), 0);
	assert_true(flow < 8);
	s->flows[flow]++;
	assert_int_equal(ip->dst_addr[15], (flow / 2) + 1);
	s->sizes[m->pkt_len == 96 ? 0 : m->pkt_len == 590 ? 1 : 2]++;
	assert_true(m->pkt_len == 96 || m->pkt_len == 590 || m->pkt_len == 1514);
	/* pattern 0xa5 after the header */
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[m->pkt_len - 1], 0xa5);
}

/* IPv6, weighted sizes, a shuffled flow order: every flow as often, the
 * sizes in their weights, every UDP checksum right. */
static void
ipv6_mix_shuffled(void **state)
{
	struct lr_gen_conf c;
	struct v6_seen s;
	unsigned int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	lr_gen_conf_init(&c);
	set(&c, "size", "100:2,594,1518");
	set(&c, "dst-ip", "fd00::1-fd00::4");
	set(&c, "src-port", "1-2");
	set(&c, "flows", "8");
	set(&c, "order", "shuffle");
	set(&c, "pattern", "a5");
	set(&c, "count", "400");
	run(&c, check_v6, &s);
	for (i = 0; i < 8; i++)
		assert_int_equal(s.flows[i], 50);
	assert_int_equal(s.sizes[0], 200);
	assert_int_equal(s.sizes[1], 100);
	assert_int_equal(s.sizes[2], 100);
}

static void
count_only(struct rte_mbuf *m, unsigned int k, void *arg)
{
	uint32_t *bytes = arg;

	(void)k;
	*bytes += m->pkt_len + 4;
}

/* Limits: by bytes (the last frame may pass it), by slice shares. */
static void
limits_and_slices(void **state)
{
	struct lr_gen_conf c;
	struct lr_task *t;
	uint32_t bytes = 0;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "size", "1000");
	set(&c, "bytes", "10500");
	t = run(&c, count_only, &bytes);
	assert_int_equal(t->st.tx_pkts, 11);
	assert_int_equal(bytes, 11000);

	/* One pre-built frame (--fixed): the same budget, the same frames;
	 * the budget ending on a frame's last byte. */
	lr_gen_conf_init(&c);
	set(&c, "size", "1000");
	set(&c, "bytes", "10500");
	set(&c, "fixed", "1");
	bytes = 0;
	t = run(&c, count_only, &bytes);
	assert_int_equal(t->st.tx_pkts, 11);
	assert_int_equal(bytes, 11000);
	set(&c, "bytes", "10000");
	bytes = 0;
	t = run(&c, count_only, &bytes);
	assert_int_equal(t->st.tx_pkts, 10);

	lr_gen_conf_init(&c);
	set(&c, "count", "10");
	set(&c, "flows", "5");
	set(&c, "slice", "1/3");	/* flows 2..3, 3 packets */
	bytes = 0;
	t = run(&c, count_only, &bytes);
	assert_int_equal(t->st.tx_pkts, 3);
	assert_int_equal(bytes, 3 * 64);
}

/* lr_gen_share(): the one slicing rule of gen and rtt; every slice's task
 * sends its share, and the shares add up to the whole. */
static void
shares_add_up(void **state)
{
	static const uint64_t totals[] = { 0, 1, 5, 10, 1000003 };
	unsigned int i, n, q;

	(void)state;
	for (i = 0; i < RTE_DIM(totals); i++)
		for (n = 1; n <= 7; n++) {
			uint64_t sum = 0;

			for (q = 0; q < n; q++) {
				uint64_t s = lr_gen_share(totals[i], q, n);

				assert_true(s == totals[i] / n ||
					    s == totals[i] / n + 1);
				sum += s;
			}
			assert_int_equal(sum, totals[i]);
		}
	for (q = 0; q < 3; q++) {
		struct lr_gen_conf c;
		struct lr_task *t;
		uint32_t bytes = 0;
		char slice[8];

		lr_gen_conf_init(&c);
		set(&c, "count", "10");
		set(&c, "flows", "5");
		snprintf(slice, sizeof(slice), "%u/3", q);
		set(&c, "slice", slice);
		t = run(&c, count_only, &bytes);
		assert_int_equal(t->st.tx_pkts, lr_gen_share(10, q, 3));
	}
}

static void
check_fixed(struct rte_mbuf *m, unsigned int k, void *arg)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint32_t flow = 0, seq = 0;
	uint64_t tsc = 0;

	(void)k;
	(void)arg;
	assert_int_equal(m->pkt_len, 256 - 4);
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, udp), 0);
	assert_int_equal(lr_wire_hdr_read(udp + 1, &flow, &seq, &tsc), 0);
	assert_int_equal(flow, LR_FLOW_NONE);
	assert_int_equal(seq, 0);
}

static void
fixed_frames(void **state)
{
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "size", "256");
	set(&c, "fixed", "1");
	set(&c, "udp-cksum", "1");
	set(&c, "count", "50");
	assert_int_equal(run(&c, check_fixed, NULL)->st.tx_pkts, 50);
}

static double report_num(struct lr_task *t, const char *key);

/* 1 % of 10 GbE at 1518 B is 8127.44 pps: a gen on a real lcore for 0.2 s.
 * Never above the rate; below it only as the machine takes the lcore away,
 * and then flagged: offered is what was sent over the sending time. */
static void
paced_percent(void **state)
{
	struct lr_gen_conf c;
	struct lr_task *t;
	uint32_t bytes = 0;
	double pps, offered, send_s;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "size", "1518");
	set(&c, "rate", "1%");
	t = lr_task_create(&lr_gen_role, worker, wire[0], 0, 0.2, &c);
	assert_non_null(t);
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(t, 5, 0), 0);
	lr_engine_stop();
	offered = report_num(t, "offered");
	send_s = report_num(t, "send_s");
	pps = report_num(t, "rate_pps");
	if (fabs(pps - 1e8 / 12304) > 0.01)
		fail_msg("rate_pps %.2f, want 8127.44", pps);
	/* At most the schedule's packets in the sending time, which is no
	 * longer than the task ran and the last packet's slot. */
	if (t->st.tx_pkts > pps * send_s + 1)
		fail_msg("%" PRIu64 " sent in %.4f s: above the rate", t->st.tx_pkts,
			 send_s);
	assert_true(send_s <= (double)(t->st.end_tsc - t->st.start_tsc) /
		    rte_get_tsc_hz() + 1 / pps + 1e-6);
	assert_true(fabs(offered - t->st.tx_pkts / (pps * send_s)) < 1e-6);
	assert_int_equal(lr_task_verdict(t, NULL, 0), offered < 0.999 ?
			 LR_VERDICT_SHORT : LR_VERDICT_OK);
	while (bytes < t->st.tx_pkts * 1518u) {
		struct rte_mbuf *m[64];
		uint16_t n = rte_eth_rx_burst(wire[1], 0, m, 64), i;

		assert_true(n > 0);
		for (i = 0; i < n; i++)
			count_only(m[i], 0, &bytes);
		rte_pktmbuf_free_bulk(m, n);
	}
}

/* A null port: it frees what it is given, so a task polled by hand can
 * send any number of frames. */
static uint16_t
null_port(void)
{
	static uint16_t id = UINT16_MAX;
	struct lr_port_conf pc;

	if (id != UINT16_MAX)
		return id;
	lr_port_conf_init(&pc);
	if (lr_port_find("net_null_ug0", &id) != 0 || lr_port_setup(id, &pc) != 0)
		fail_msg("%s", lr_errmsg());
	return id;
}

/* Poll @p t by hand as its lcore would, every @p step cycles from @p from
 * up to (not including) @p to: a gen that is never short of CPU. */
static void
poll_span(struct lr_task *t, uint64_t from, uint64_t to, uint64_t step)
{
	uint64_t now;

	for (now = from; now < to; now += step)
		if (lr_gen_role.task->poll(t, now) != 0)
			break;
}

/* A key of the task's report, as a number; fails when it is missing. */
static double
report_num(struct lr_task *t, const char *key)
{
	json_t *o = lr_task_report(t), *v = json_object_get(o, key);
	double d;

	if (v == NULL)
		fail_msg("no '%s' in the report", key);
	d = json_is_true(v) ? 1 : json_is_false(v) ? 0 : json_number_value(v);
	json_decref(o);
	return d;
}

/* A hand-polled task on the null port: the lcore never runs it. */
static struct lr_task *
hand_task(struct lr_gen_conf *c, uint64_t start_tsc)
{
	struct lr_task *t = lr_task_create(&lr_gen_role, worker, null_port(), 0,
					   0, c);

	if (t == NULL)
		fail_msg("%s", lr_errmsg());
	/* Stopped before it started: off its lcore's list, done; the test
	 * calls its poll itself. */
	lr_task_stop(t);
	t->st.start_tsc = start_tsc;
	return t;
}

static void
hand_done(struct lr_task *t, uint64_t end_tsc)
{
	lr_gen_role.task->finish(t);
	t->st.end_tsc = end_tsc;
}

/*
 * The schedule is exact whatever the TSC reads: 1.1 Mpps for one second of
 * TSC, polled more often than a packet's slot, sends 1,100,000 frames,
 * also when the TSC is near 2^55 (a host up for months), where a double
 * holding the TSC rounds every slot to a multiple of 8 cycles (0.1 to
 * 0.3 % of a slot of 2,000-odd cycles), or 2^62, where it rounds to 1024.
 */
static void
schedule_exact_at_any_tsc(void **state)
{
	static const uint64_t bases[] = { 1000000, 1ull << 55, (1ull << 62) + 3 };
	uint64_t hz = rte_get_tsc_hz();
	struct lr_gen_conf c;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bases); i++) {
		struct lr_task *t;

		lr_gen_conf_init(&c);
		set(&c, "rate", "1.1Mpps");
		t = hand_task(&c, bases[i]);
		poll_span(t, bases[i], bases[i] + hz, 1000);
		hand_done(t, bases[i] + hz);
		if (t->st.tx_pkts < 1099999 || t->st.tx_pkts > 1100001)
			fail_msg("TSC %" PRIu64 ": %" PRIu64 " frames in 1 s at 1.1 Mpps",
				 bases[i], t->st.tx_pkts);
		assert_true(fabs(report_num(t, "offered") - 1) < 1e-5);
		assert_true(report_num(t, "late_packets") == 0);
		assert_true(report_num(t, "short") == 0);
	}
}

/*
 * A stall longer than the catch-up bound: the owed packets beyond it are
 * not sent in a burst, and they are counted late, not hidden. 1 Mpps,
 * 0.1 s on time, 10 ms with no poll, 0.1 s on time again: 100 us are made
 * up, 9,900 packets are late, offered is 190,100 / 200,000.
 */
static void
stall_counted_late(void **state)
{
	uint64_t hz = rte_get_tsc_hz(), b = 1000000000ull;
	struct lr_gen_conf c;
	struct lr_task *t;
	char why[384];
	double late;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "rate", "1Mpps");
	t = hand_task(&c, b);
	poll_span(t, b, b + hz / 10, 1000);
	poll_span(t, b + hz / 10 + hz / 100, b + hz / 5, 1000);
	hand_done(t, b + hz / 5);
	if (t->st.tx_pkts < 190098 || t->st.tx_pkts > 190102)
		fail_msg("%" PRIu64 " sent, want 190100", t->st.tx_pkts);
	late = report_num(t, "late_packets");
	if (late < 9898 || late > 9902)
		fail_msg("%.0f late, want 9900", late);
	assert_true(fabs(report_num(t, "offered") - 0.9505) < 2e-5);
	assert_true(report_num(t, "short") == 1);
	assert_true(report_num(t, "max_stall_us") > 9999);
	assert_int_equal(lr_task_verdict(t, why, sizeof(why)), LR_VERDICT_SHORT);
	if (strstr(why, "rate short") == NULL || strstr(why, "net_null_ug0") == NULL)
		fail_msg("%s", why);

	/* A longer catch-up bound makes the same stall up in full. */
	lr_gen_conf_init(&c);
	set(&c, "rate", "1Mpps");
	set(&c, "catch-up", "20000");
	t = hand_task(&c, b);
	poll_span(t, b, b + hz / 10, 1000);
	poll_span(t, b + hz / 10 + hz / 100, b + hz / 5, 1000);
	hand_done(t, b + hz / 5);
	assert_true(t->st.tx_pkts >= 199999 && t->st.tx_pkts <= 200001);
	assert_true(report_num(t, "late_packets") == 0);
	assert_int_equal(lr_task_verdict(t, NULL, 0), LR_VERDICT_OK);
}

/* The tags' and IP header's keys: each bad value a one-line error, each
 * good one in the conf; VID ranges are flows, the VIDs fastest. */
static void
vlan_keys(void **state)
{
	static const char *const bad[][2] = {
		{ "vlan", "4096" }, { "vlan", "5-3" }, { "vlan", "-1" },
		{ "vlan", "1-4096" }, { "vlan", "x" }, { "outer-vlan", "4096" },
		{ "vlan-pcp", "8" }, { "vlan-dei", "2" }, { "outer-pcp", "8" },
		{ "outer-dei", "2" }, { "outer-tpid", "0x0800" },
		{ "outer-tpid", "88a8x" }, { "dscp", "64" }, { "ecn", "4" },
		{ "ttl", "0" }, { "ttl", "256" }, { "df", "2" },
	};
	struct lr_gen_conf c;
	struct lr_gen_tuple t;
	unsigned int i;

	(void)state;
	lr_gen_conf_init(&c);
	for (i = 0; i < RTE_DIM(bad); i++) {
		if (lr_role_set(&lr_gen_role, &c, bad[i][0], bad[i][1]) != -EINVAL)
			fail_msg("%s=%s taken", bad[i][0], bad[i][1]);
		if (strchr(lr_errmsg(), '\n') != NULL ||
		    strstr(lr_errmsg(), bad[i][0]) == NULL)
			fail_msg("%s=%s: '%s'", bad[i][0], bad[i][1], lr_errmsg());
	}
	assert_int_equal(lr_gen_tags(&c), 0);
	assert_int_equal(c.ttl, 64);
	assert_true(c.df);
	set(&c, "vlan", "100-102");
	set(&c, "outer-vlan", "4094-4095");
	set(&c, "vlan-pcp", "7");
	set(&c, "outer-tpid", "0x9100");
	set(&c, "dscp", "63");
	set(&c, "ecn", "3");
	set(&c, "ttl", "255");
	assert_int_equal(lr_gen_tags(&c), 2);
	assert_int_equal(c.vlan.vid, 100);
	assert_int_equal(c.vlan.vids, 3);
	assert_int_equal(c.outer.vids, 2);
	assert_int_equal(c.outer.tpid, 0x9100);
	set(&c, "src-port", "1000-1001");
	assert_true(lr_gen_tuples(&c) == 3 * 2 * 2);
	assert_int_equal(lr_gen_flow_at(&c, 0, &t), 0);
	assert_int_equal(t.vid, 100);
	assert_int_equal(t.outer_vid, 4094);
	assert_int_equal(lr_gen_flow_at(&c, 2, &t), 0);
	assert_int_equal(t.vid, 102);
	assert_int_equal(lr_gen_flow_at(&c, 4, &t), 0);
	assert_int_equal(t.vid, 101);
	assert_int_equal(t.outer_vid, 4095);
	assert_int_equal(rte_be_to_cpu_16(t.src_port), 1000);
	assert_int_equal(lr_gen_flow_at(&c, 11, &t), 0);
	assert_int_equal(rte_be_to_cpu_16(t.src_port), 1001);
	assert_int_equal(lr_gen_flow_at(&c, 12, &t), -EINVAL);
	/* Sizes: the tags' bytes are on the wire, data-size adds them. */
	set(&c, "data-size", "18");
	{
		uint32_t tab[1];

		assert_int_equal(lr_gen_size_table(&c, tab, 1), 1);
		assert_int_equal(tab[0], 72);
	}
}

static void
vlan_bad_confs(void **state)
{
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "outer-vlan", "10");
	create_fails(&c, "outer-vlan without vlan");
	lr_gen_conf_init(&c);
	set(&c, "vlan-pcp", "3");
	create_fails(&c, "without vlan");
	lr_gen_conf_init(&c);
	set(&c, "vlan", "1");
	set(&c, "outer-dei", "1");
	create_fails(&c, "without outer-vlan");
	/* 64 B holds no tag and linerate's header: said, never cut. */
	lr_gen_conf_init(&c);
	set(&c, "vlan", "10");
	create_fails(&c, "a VLAN tag and the 18 B header need 68 B");
	set(&c, "outer-vlan", "20");
	set(&c, "size", "68");
	create_fails(&c, "2 VLAN tags and the 18 B header need 72 B");
	set(&c, "dst-ip", "fd00::2");
	set(&c, "size", "88");
	create_fails(&c, "IPv6, 2 VLAN tags and the 18 B header need 92 B");
	lr_gen_conf_init(&c);
	set(&c, "vlan", "10-11");
	set(&c, "src-port", "1");
	set(&c, "flows", "3");
	create_fails(&c, "flows need");
	/* The MTU is IP's: 1527 B with two tags is 1501 B of IP. */
	lr_gen_conf_init(&c);
	set(&c, "vlan", "10");
	set(&c, "outer-vlan", "20");
	set(&c, "size", "1527");
	create_fails(&c, "mtu=1501");
}

struct tag_want {
	unsigned int tags;
	bool ipv6;
	uint32_t len;
	unsigned int seen;
};

/* Each frame where the locator finds it: its tags with the flow's VIDs,
 * the header fields asked for, checksums that verify. */
static void
check_tagged(struct rte_mbuf *m, unsigned int k, void *arg)
{
	struct tag_want *w = arg;
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct lr_wire_hdr *h;
	struct lr_pkt p;
	uint32_t flow;

	(void)k;
	assert_int_equal(m->pkt_len, w->len);
	assert_int_equal(lr_pkt_locate(d, m->data_len, m->pkt_len, &p), LR_PKT_OK);
	assert_int_equal(p.tags, w->tags);
	assert_int_equal(p.l3, 14 + 4 * w->tags);
	assert_int_equal(p.proto, IPPROTO_UDP);
	h = (const struct lr_wire_hdr *)(d + p.l4 + 8);
	flow = rte_be_to_cpu_32(h->flow);
	assert_true(flow < 6);
	if (w->tags == 2) {
		/* outer 0x88a8 VID 7 + flow / 3, PCP 3; inner 0x8100 VID
		 * 100 + flow % 3, PCP 5, DEI 1. */
		assert_int_equal(lr_pkt_rd16(d + 12), 0x88a8);
		assert_int_equal(lr_pkt_rd16(d + 14), 3 << 13 | (7 + flow / 3));
		assert_int_equal(lr_pkt_rd16(d + 16), 0x8100);
		assert_int_equal(lr_pkt_rd16(d + 18), 5 << 13 | 1 << 12 |
				 (100 + flow % 3));
		assert_int_equal(lr_pkt_rd16(d + 20), 0x0800);
	} else {
		assert_int_equal(lr_pkt_rd16(d + 12), 0x8100);
		assert_int_equal(lr_pkt_rd16(d + 14), 4000 + flow % 3);
		assert_int_equal(lr_pkt_rd16(d + 16), 0x86dd);
	}
	if (w->ipv6) {
		const struct rte_ipv6_hdr *ip = (const void *)(d + p.l3);

		assert_int_equal(ip->hop_limits, 1);
		/* Traffic class: DSCP 46, ECN 2. */
		assert_int_equal(rte_be_to_cpu_32(ip->vtc_flow) >> 20,
				 6 << 8 | 46 << 2 | 2);
		assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip,
				 (const void *)(d + p.l4)), 0);
	} else {
		const struct rte_ipv4_hdr *ip = (const void *)(d + p.l3);

		assert_int_equal(ip->time_to_live, 9);
		assert_int_equal(ip->type_of_service, 10 << 2 | 1);
		assert_int_equal(ip->fragment_offset, 0);	/* df 0 */
		assert_int_equal(rte_raw_cksum(ip, 20), 0xffff);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip,
				 (const void *)(d + p.l4)), 0);
	}
	w->seen++;
}

static void
tagged_frames(void **state)
{
	struct tag_want w = { 2, false, 80 - 4, 0 };
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "count", "60");
	set(&c, "flows", "6");
	set(&c, "size", "80");
	set(&c, "vlan", "100-102");
	set(&c, "vlan-pcp", "5");
	set(&c, "vlan-dei", "1");
	set(&c, "outer-vlan", "7-8");
	set(&c, "outer-pcp", "3");
	set(&c, "dscp", "10");
	set(&c, "ecn", "1");
	set(&c, "ttl", "9");
	set(&c, "df", "0");
	set(&c, "udp-cksum", "1");
	run(&c, check_tagged, &w);
	assert_int_equal(w.seen, 60);

	w = (struct tag_want){ 1, true, 88 - 4, 0 };
	lr_gen_conf_init(&c);
	set(&c, "count", "60");
	set(&c, "flows", "6");
	set(&c, "size", "88");
	set(&c, "dst-ip", "fd00::2");
	set(&c, "vlan", "4000-4002");
	set(&c, "dscp", "46");
	set(&c, "ecn", "2");
	set(&c, "ttl", "1");
	run(&c, check_tagged, &w);
	assert_int_equal(w.seen, 60);
}

/* Pre-built frames are paced too: 1 Mpps for 10 ms is 10,000 frames. */
static void
fixed_paced(void **state)
{
	uint64_t hz = rte_get_tsc_hz(), b = 5000000000ull;
	struct lr_gen_conf c;
	struct lr_task *t;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "fixed", "1");
	set(&c, "rate", "1Mpps");
	t = hand_task(&c, b);
	poll_span(t, b, b + hz / 100, 1000);
	hand_done(t, b + hz / 100);
	if (t->st.tx_pkts < 9999 || t->st.tx_pkts > 10001)
		fail_msg("%" PRIu64 " fixed frames in 10 ms at 1 Mpps", t->st.tx_pkts);
}

/* The offered ratio and the short verdict from synthetic schedules. */
static void
offered_synthetic(void **state)
{
	struct lr_gen_sched s = { 0 };
	double w;

	(void)state;
	/* Never polled: nothing was asked. */
	assert_true(lr_gen_offered(&s, 5000, &w) == 1 && w == 0);
	/* On time, ended by its count just after the last send: the window
	 * runs to the end of the last slot. */
	s.first_tsc = 1000;
	s.next_tsc = 1000 + 1000000;
	assert_true(lr_gen_offered(&s, 1000 + 999990, &w) == 1);
	assert_true(w == 1000000);
	/* Ended 500 cycles after the next slot was due: those count. */
	assert_true(fabs(lr_gen_offered(&s, 1000 + 1000500, &w) -
			 1000000.0 / 1000500) < 1e-12);
	/* The fraction of a cycle is part of the schedule. */
	s.next_frac = 0.5;
	assert_true(lr_gen_offered(&s, 0, &w) == 1 && w == 1000000.5);
	s.next_frac = 0;
	/* A tenth given up late, then a tenth built but never taken. */
	s.late_tsc = 100000;
	assert_true(fabs(lr_gen_offered(&s, 0, NULL) - 0.9) < 1e-12);
	s.unsent_tsc = 100000;
	assert_true(fabs(lr_gen_offered(&s, 0, NULL) - 0.8) < 1e-12);
	/* Verdicts around the tolerance. */
	assert_false(lr_gen_is_short(1, 0.999));
	assert_false(lr_gen_is_short(0.999, 0.999));
	assert_false(lr_gen_is_short(0.999 * 999.0 / 999.0, 0.999));
	assert_true(lr_gen_is_short(0.99899, 0.999));
	assert_true(lr_gen_is_short(0.157, 0.999));
	assert_false(lr_gen_is_short(0, 0));
}

static void
conf_new_keys(void **state)
{
	struct lr_gen_conf c;

	(void)state;
	lr_gen_conf_init(&c);
	assert_true(c.rate_tolerance == 0.999);
	set(&c, "rate-tolerance", "95%");
	assert_true(fabs(c.rate_tolerance - 0.95) < 1e-12);
	set(&c, "rate-tolerance", "99.99");
	assert_true(fabs(c.rate_tolerance - 0.9999) < 1e-12);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "rate-tolerance", "101"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "rate-tolerance", "x"), -EINVAL);
	set(&c, "catch-up", "500");
	assert_true(fabs(c.catch_up_s - 500e-6) < 1e-12);
	assert_int_equal(lr_role_set(&lr_gen_role, &c, "catch-up", "0"), -EINVAL);
	set(&c, "stall-timeout", "0");
	assert_true(c.stall_timeout_s == 0);
	set(&c, "stall-timeout", "0.2");
	assert_true(fabs(c.stall_timeout_s - 0.2) < 1e-12);
}

/*
 * A port that stops taking frames (the wire's far end is never read, as a
 * memif peer that is gone): the control path ends the gen once nothing has
 * moved for its stall timeout, instead of waiting for ever, and says why.
 */
static void
stalled_port_ends_task(void **state)
{
	struct rte_mbuf *m[64];
	struct lr_gen_conf c;
	struct lr_task *t;
	char why[384];
	uint16_t n;

	(void)state;
	lr_gen_conf_init(&c);
	set(&c, "count", "100000");	/* the wire's ring holds 4096 */
	set(&c, "stall-timeout", "0.2");
	t = lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, &c);
	assert_non_null(t);
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(t, 20, 0), 0);
	lr_engine_stop();
	assert_true(t->st.tx_pkts < 100000);
	assert_int_equal(lr_task_verdict(t, why, sizeof(why)), LR_VERDICT_FAILED);
	if (strstr(why, "peer not receiving") == NULL ||
	    strstr(why, "of 100000 sent") == NULL)
		fail_msg("%s", why);
	assert_int_equal(lr_engine_verdict(), LR_VERDICT_FAILED);
	while ((n = rte_eth_rx_burst(wire[1], 0, m, 64)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

/* lr_pool: a parked pool goes to the next task of its shape only once
 * every mbuf of it is back. */
static void
pools_are_recycled_when_full(void **state)
{
	struct rte_mempool *a, *b, *c;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mbuf *m;

	(void)state;
	a = lr_pool_get("lr_ut_pool", 511, 0, 2048, SOCKET_ID_ANY);
	assert_non_null(a);
	snprintf(name, sizeof(name), "%s", a->name);
	m = rte_pktmbuf_alloc(a);
	assert_non_null(m);
	lr_pool_put(a);			/* parked, one mbuf still out */
	b = lr_pool_get("lr_ut_pool", 511, 0, 2048, SOCKET_ID_ANY);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	rte_pktmbuf_free(m);		/* a is full now */
	c = lr_pool_get("lr_ut_pool", 511, 0, 1024, SOCKET_ID_ANY);
	assert_ptr_not_equal(c, a);	/* another shape */
	lr_pool_put(c);
	assert_ptr_equal(lr_pool_get("lr_ut_pool", 511, 0, 2048, SOCKET_ID_ANY), a);
	lr_pool_put(a);
	lr_pool_put(b);
	lr_pool_cleanup();		/* all full: freed */
	assert_null(rte_mempool_lookup(name));
}

static int
setup(void **state)
{
	(void)state;
	if (lr_test_eal_init("gen") != 0)
		return -1;
	/* As the application does: the engine calls registered roles'
	 * hooks (gen's stall watch) while it waits. */
	lr_role_register(&lr_gen_role);
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
		cmocka_unit_test(pools_are_recycled_when_full),
		cmocka_unit_test(data_size),
		cmocka_unit_test(size_tables),
		cmocka_unit_test(flow_ranges),
		cmocka_unit_test(bad_confs),
		cmocka_unit_test(sends_exact_frames),
		cmocka_unit_test(ipv6_mix_shuffled),
		cmocka_unit_test(limits_and_slices),
		cmocka_unit_test(shares_add_up),
		cmocka_unit_test(fixed_frames),
		cmocka_unit_test(paced_percent),
		cmocka_unit_test(schedule_exact_at_any_tsc),
		cmocka_unit_test(stall_counted_late),
		cmocka_unit_test(fixed_paced),
		cmocka_unit_test(offered_synthetic),
		cmocka_unit_test(conf_new_keys),
		cmocka_unit_test(stalled_port_ends_task),
		cmocka_unit_test(vlan_keys),
		cmocka_unit_test(vlan_bad_confs),
		cmocka_unit_test(tagged_frames),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
