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
#include <pcap.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_gen.h"
#include "lr_port.h"
#include "lr_rx.h"
#include "lr_seq.h"
#include "lr_stats.h"
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

/* Feed sequence numbers with tx_tsc = 1000 + position unless given. */
static void
feed(struct lr_seq *s, const uint32_t *seqs, unsigned int n, uint64_t tsc0)
{
	unsigned int i;
	uint32_t gap;

	for (i = 0; i < n; i++)
		lr_seq_update(s, seqs[i], tsc0 + i, 5000 + i, 60, &gap);
}

#define FEED(s, tsc0, ...) do { \
	const uint32_t v_[] = { __VA_ARGS__ }; \
	feed(s, v_, RTE_DIM(v_), tsc0); \
} while (0)

static void
seq_loss_reorder_dup(void **state)
{
	struct lr_seq s;

	(void)state;
	memset(&s, 0, sizeof(s));
	FEED(&s, 1, 0, 1, 2, 3, 4);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.pkts, 5);
	assert_int_equal(s.bytes, 300);

	memset(&s, 0, sizeof(s));
	FEED(&s, 1, 0, 1, 3, 4, 7);		/* 2, 5 and 6 lost */
	assert_int_equal(s.lost, 3);
	assert_int_equal(s.seq_too_high, 2);
	assert_true(lr_seq_per(lr_seq_unique(&s), s.lost) == 3.0 / 8);

	/* Sent 0 1 2 3, 2 arrives after 3: reordered, not lost. */
	memset(&s, 0, sizeof(s));
	lr_seq_update(&s, 0, 10, 1, 60, &(uint32_t){0});
	lr_seq_update(&s, 1, 11, 2, 60, &(uint32_t){0});
	lr_seq_update(&s, 3, 13, 3, 60, &(uint32_t){0});
	assert_int_equal(s.lost, 1);
	assert_int_equal(lr_seq_update(&s, 2, 12, 4, 60, &(uint32_t){0}),
			 LR_SEQ_REORDERED);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.out_of_order, 1);
	assert_int_equal(s.seq_too_high, 1);
	assert_int_equal(s.seq_too_low, 1);
	/* ... and 2 again: a duplicate, and so is 3. */
	assert_int_equal(lr_seq_update(&s, 2, 12, 5, 60, &(uint32_t){0}), LR_SEQ_DUP);
	assert_int_equal(lr_seq_update(&s, 3, 13, 6, 60, &(uint32_t){0}), LR_SEQ_DUP);
	assert_int_equal(s.dup, 2);
	assert_int_equal(s.lost, 0);
	assert_int_equal(lr_seq_unique(&s), 4);

	/* First packet 5: the flow started at 0, five are lost. */
	memset(&s, 0, sizeof(s));
	FEED(&s, 1, 5, 6);
	assert_int_equal(s.lost, 5);
	assert_int_equal(s.first_tsc, 5000);
	assert_int_equal(s.last_tsc, 5001);
}

static void
seq_window_and_late(void **state)
{
	struct lr_seq s;
	uint32_t i, gap;

	(void)state;
	/* 0, then 200: 199 lost; 1 comes back beyond the 128 window: late,
	 * still lost (it could be a duplicate). 150 is inside: reordered. */
	memset(&s, 0, sizeof(s));
	FEED(&s, 1, 0, 200);
	assert_int_equal(s.lost, 199);
	assert_int_equal(lr_seq_update(&s, 1, 2, 9, 60, &gap), LR_SEQ_LATE);
	assert_int_equal(s.lost, 199);
	assert_int_equal(s.late, 1);
	assert_int_equal(lr_seq_update(&s, 150, 2, 9, 60, &gap), LR_SEQ_REORDERED);
	assert_int_equal(s.lost, 198);
	assert_int_equal(lr_seq_update(&s, 73, 2, 9, 60, &gap), LR_SEQ_REORDERED);
	assert_int_equal(lr_seq_update(&s, 72, 2, 9, 60, &gap), LR_SEQ_LATE);

	/* Numbers below the one the flow started from were never counted
	 * lost: not reordered (the loss would go negative), late. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(lr_seq_update(&s, 0xfffffff0u, 2, 9, 60, &gap),
			 LR_SEQ_LATE);
	assert_int_equal(s.lost, 0);
	FEED(&s, 3, 0, 1, 2);
	assert_int_equal(lr_seq_update(&s, 0xffffffffu, 2, 9, 60, &gap),
			 LR_SEQ_LATE);
	FEED(&s, 10, 5);			/* 3, 4 lost */
	assert_int_equal(lr_seq_update(&s, 3, 2, 9, 60, &gap),
			 LR_SEQ_REORDERED);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.late, 2);
	/* After a restart at 3 (0..2 lost), the same. */
	memset(&s, 0, sizeof(s));
	FEED(&s, 1, 0, 1, 2, 3, 4);
	assert_int_equal(lr_seq_update(&s, 3, 100, 9, 60, &gap),
			 LR_SEQ_RESTART);
	assert_int_equal(s.lost, 3);
	assert_int_equal(lr_seq_update(&s, 0xfffffffeu, 2, 9, 60, &gap),
			 LR_SEQ_LATE);
	assert_int_equal(lr_seq_update(&s, 1, 2, 9, 60, &gap),
			 LR_SEQ_REORDERED);
	assert_int_equal(s.lost, 2);

	/* A long in-order run reuses window slots: no false duplicates. */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 1000; i++)
		if (i % 3 != 0)
			lr_seq_update(&s, i, i + 1, i, 60, &gap);
	assert_int_equal(s.lost, 333);		/* 999, the tail, is unseen */
	for (i = 999; i > 999 - 100; i--)
		lr_seq_update(&s, i, i + 1, 2000, 60, &gap);
	assert_int_equal(s.dup, 66);		/* the ones not missing */
	assert_int_equal(s.out_of_order, 33);	/* 996, 993, ... 900 */
	assert_int_equal(s.lost, 300);
}

static void
seq_wrap_and_restart(void **state)
{
	struct lr_seq s;

	(void)state;
	/* Across 2^32: fffffffe ffffffff 0 1 in order, then a gap over it. */
	memset(&s, 0, sizeof(s));
	s.next = 0xfffffffe;
	s.seen = 1;
	FEED(&s, 1, 0xfffffffe, 0xffffffff, 0, 1);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.seq_too_low + s.seq_too_high, 0);
	s.next = 0xfffffffe;
	FEED(&s, 10, 0xfffffffe, 2);		/* ffffffff, 0, 1 lost */
	assert_int_equal(s.lost, 3);

	/* A generator restart: 0..99, then from 0 again with later
	 * timestamps. Not 2^32 lost, not 100 duplicates. */
	memset(&s, 0, sizeof(s));
	{
		uint32_t i, gap;

		for (i = 0; i < 100; i++)
			lr_seq_update(&s, i, 100 + i, i, 60, &gap);
		assert_int_equal(lr_seq_update(&s, 0, 500, 200, 60, &gap),
				 LR_SEQ_RESTART);
		for (i = 1; i < 100; i++)
			lr_seq_update(&s, i, 500 + i, 200 + i, 60, &gap);
		assert_int_equal(s.restarts, 1);
		assert_int_equal(s.lost, 0);
		assert_int_equal(s.dup, 0);
		/* Restart whose first 3 packets were lost. */
		assert_int_equal(lr_seq_update(&s, 3, 900, 400, 60, &gap),
				 LR_SEQ_RESTART);
		assert_int_equal(gap, 3);
		assert_int_equal(s.lost, 3);
		/* An old packet of the first run (earlier tsc, numbered
		 * ahead of the restarted run): a straggler, not a restart. */
		assert_int_equal(lr_seq_update(&s, 50, 150, 401, 60, &gap),
				 LR_SEQ_STRAGGLER);
		assert_int_equal(s.restarts, 2);
		/* Numbered ahead but sent before the newest: a straggler,
		 * late and nothing else (not seq_too_low: the totals, which
		 * follow the event, once counted it so). */
		{
			uint64_t low = s.seq_too_low, late = s.late;

			assert_int_equal(lr_seq_update(&s, 90, 160, 402, 60,
						       &gap), LR_SEQ_STRAGGLER);
			assert_int_equal(s.seq_too_low, low);
			assert_int_equal(s.late, late + 1);
		}
	}

	/* 2^31 behind: -d of INT32_MIN in signed arithmetic is undefined
	 * (UBSan); beyond the window, late. */
	memset(&s, 0, sizeof(s));
	{
		uint32_t gap;

		s.next = 0x80000000u;
		s.seen = 1;
		s.max_tsc = 1000;
		assert_int_equal(lr_seq_update(&s, 0, 10, 5, 60, &gap),
				 LR_SEQ_LATE);
		assert_int_equal(s.late, 1);
	}
}

/* Two flows interleaved keep apart: loss in one is not reordering in the
 * other. */
static void
seq_interleaved_flows(void **state)
{
	struct lr_seq a, b;
	uint32_t i, gap;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 50; i++) {
		if (i != 10)
			lr_seq_update(&a, i, i + 1, i, 60, &gap);
		lr_seq_update(&b, i, i + 1, i, 60, &gap);
	}
	assert_int_equal(a.lost, 1);
	assert_int_equal(b.lost, 0);
	assert_int_equal(b.seq_too_high + b.seq_too_low, 0);
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
	gc.rate = (struct lr_rate){ LR_RATE_PPS, 1e6 };
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

/* Per-flow tables and latency from the gen above; untracked, unknown flow
 * and malformed frames counted apart, the tables untouched by them. */
static void
flows_latency_and_categories(void **state)
{
	struct lr_gen_conf gc;
	struct lr_rx_conf rc;
	struct lr_rx_counts cnt;
	struct lr_task *g, *g2, *r;
	const struct lr_hist *h;
	struct rte_mbuf *m;
	uint32_t i;
	json_t *doc, *rx, *flows;

	(void)state;
	lr_rx_conf_init(&rc);
	assert_int_equal(lr_role_set(&lr_rx_role, &rc, "flows", "16"), 0);
	assert_int_equal(lr_role_set(&lr_rx_role, &rc, "flows", "0"), -EINVAL);
	r = lr_task_create(&lr_rx_role, worker, wire[1], 0, 0, &rc);
	assert_non_null(r);
	lr_gen_conf_init(&gc);
	gc.count = 3000;
	gc.flows = 20;		/* 16..19 are outside the table */
	g = lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, &gc);
	assert_non_null(g);
	/* A frame with our magic whose UDP length runs past the frame. */
	m = rte_pktmbuf_alloc(lr_port_info(wire[0])->pool);
	assert_non_null(m);
	{
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, 60);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + 14);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

		memset(d, 0, 60);
		((struct rte_ether_hdr *)d)->ether_type =
			rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->next_proto_id = IPPROTO_UDP;
		udp->dgram_len = rte_cpu_to_be_16(1000);
		lr_wire_hdr_write(udp + 1, 1, 0, 0);
	}
	assert_int_equal(rte_eth_tx_burst(wire[0], 0, &m, 1), 1);
	assert_int_equal(lr_engine_start(), 2);
	assert_int_equal(lr_task_wait(g, 5, 0), 0);
	assert_int_equal(lr_task_wait(r, 5, 0.1), 1);
	lr_engine_stop();
	/* Then fixed-mode frames: untracked. */
	lr_gen_conf_init(&gc);
	gc.count = 7;
	gc.fixed = true;
	g2 = lr_task_create(&lr_gen_role, worker, wire[0], 0, 0, &gc);
	r = lr_task_create(&lr_rx_role, worker, wire[1], 0, 0, &rc);
	assert_non_null(g2);
	assert_non_null(r);
	assert_int_equal(lr_engine_start(), 2);
	assert_int_equal(lr_task_wait(r, 5, 0.1), 1);
	lr_engine_stop();
	lr_rx_counts(r, &cnt);
	assert_int_equal(cnt.untracked, 7);
	assert_int_equal(cnt.own, 7);

	r = lr_engine_task(lr_engine_task_count() - 4);	/* the first rx */
	assert_ptr_equal(r->role, &lr_rx_role);
	lr_rx_counts(r, &cnt);
	assert_int_equal(cnt.own, 3000);
	assert_int_equal(cnt.malformed, 1);
	assert_int_equal(cnt.unknown_flow, 4 * 150);
	assert_int_equal(cnt.lost, 0);
	for (i = 0; i < 16; i++) {
		const struct lr_seq *f = lr_rx_flow(r, i);

		assert_non_null(f);
		assert_int_equal(f->pkts, 150);
		assert_int_equal(f->next, 150);
		assert_int_equal(f->bytes, 150 * 60);
	}
	assert_null(lr_rx_flow(r, 16));
	h = lr_rx_latency(r);
	assert_non_null(h);
	assert_int_equal(h->count, 16 * 150);
	assert_true(h->min > 0 && h->max >= h->min);
	assert_true(h->max < 1000000000ull);	/* on one host, < 1 s */

	/* The result document merges the rx tasks' tables by flow id: the
	 * first test's 8 flows of 625 packets and these 16 of 150. */
	doc = lr_stats_results();
	rx = json_object_get(doc, "rx");
	assert_non_null(rx);
	assert_int_equal(json_integer_value(json_object_get(rx, "tasks")), 3);
	assert_int_equal(json_integer_value(json_object_get(rx, "flows_seen")), 16);
	assert_int_equal(json_integer_value(json_object_get(rx, "untracked_packets")), 7);
	flows = json_object_get(rx, "flows");
	assert_int_equal(json_array_size(flows), 16);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(flows, 3),
							     "packets")), 775);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(flows, 12),
							     "packets")), 150);
	json_decref(doc);
}

static void
stops_at_count(void **state)
{
	struct lr_rx_conf rc;
	struct lr_task *r;

	(void)state;
	lr_rx_conf_init(&rc);
	assert_int_equal(lr_role_set(&lr_rx_role, &rc, "count", "x"), -EINVAL);
	assert_int_equal(lr_role_set(&lr_rx_role, &rc, "count", "16"), 0);
	r = lr_task_create(&lr_rx_role, worker, wire[1], 0, 0, &rc);
	assert_non_null(r);
	send_foreign(16);
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(r, 5, 0), 0);
	assert_int_equal(r->st.rx_pkts, 16);
	lr_engine_stop();
}

/* A capture file of @p n 60 B frames, one a second from Unix time 1000. */
static void
write_capture(const char *path, unsigned int n)
{
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *w;
	uint8_t frame[60];
	unsigned int i;

	assert_non_null(pd);
	w = pcap_dump_open(pd, path);
	assert_non_null(w);
	memset(frame, 0xa5, sizeof(frame));
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h = { .caplen = sizeof(frame), .len = sizeof(frame) };

		h.ts.tv_sec = 1000 + i;
		pcap_dump((u_char *)w, &h, frame);
	}
	pcap_dump_close(w);
	pcap_close(pd);
}

/* net_pcap returns nothing for ever after the end of its file: the task
 * knows the file's frames and ends when it has had them all, with no count
 * and no duration. */
static void
ends_at_end_of_capture(void **state)
{
	struct lr_port_conf pc;
	struct lr_rx_conf rc;
	struct lr_task *r;
	char path[64], spec[128];
	uint16_t port;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/lr_ut_rx_%d.pcap", (int)getpid());
	write_capture(path, 40);
	snprintf(spec, sizeof(spec), "net_pcap7,rx_pcap=%s", path);
	assert_int_equal(lr_port_find(spec, &port), 0);
	lr_port_conf_init(&pc);
	assert_int_equal(lr_port_setup(port, &pc), 0);
	lr_rx_conf_init(&rc);
	r = lr_task_create(&lr_rx_role, worker, port, 0, 0, &rc);
	assert_non_null(r);
	assert_non_null(r->capture);
	assert_int_equal(r->capture->frames, 40);
	assert_int_equal(lr_engine_start(), 1);
	assert_int_equal(lr_task_wait(r, 30, 0), 0);
	assert_int_equal(r->st.rx_pkts, 40);
	assert_true(lr_capture_ended(r->capture));
	lr_engine_stop();
	unlink(path);
}

static int
setup(void **state)
{
	(void)state;
	lr_role_register(&lr_rx_role);
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
		cmocka_unit_test(seq_loss_reorder_dup),
		cmocka_unit_test(seq_window_and_late),
		cmocka_unit_test(seq_wrap_and_restart),
		cmocka_unit_test(seq_interleaved_flows),
		cmocka_unit_test(counts_own_and_foreign),
		cmocka_unit_test(flows_latency_and_categories),
		cmocka_unit_test(stops_at_count),
		cmocka_unit_test(ends_at_end_of_capture),
	};

	return cmocka_run_group_tests(tests, setup, lr_test_teardown);
}
