/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: rx's per-frame path (lib/rx/rx.c's poll: finding linerate's
 * header, the flow table, sequence and latency accounting) on sequences of
 * frames, any bytes or frames built to be linerate's with a flow, sequence
 * number and TX time from the input. An rx task is made on one end of a
 * virtual wire per input and polled here on the main lcore, one frame at a
 * time, so that each frame's class is seen; every frame goes twice, whole
 * and as a chain of two mbufs cut anywhere (headers split off too).
 *
 * Input: byte 0 (bits 0-5 flows - 1, bit 6 per-flow latency, bit 7 flow
 * ids from 1000); then frames, each [kind 1][len 2][cut 1] and either len
 * bytes (kind bit 0 clear) or, built, [flags 1][flow 4][seq 4][age 4]
 * (bit 0 IPv6, bit 1 an 802.1Q tag, bit 2 a flow id inside the table,
 * bit 3 gen's untracked id; len the UDP data past linerate's header).
 *
 * Invariants beside ASan/UBSan: each frame is one of own, foreign or
 * malformed, and untracked or an unknown flow only when own; a chain is
 * what the frame is whole; a frame built as linerate's is own, of its flow
 * (tracked, untracked or unknown as its id says), its packets and bytes
 * added to that flow; the totals of the sequence counters are the sums
 * over the flows, the flows' packets the own frames that are tracked; no
 * loss below 0 and no more duplicates than packets in a flow; every
 * tracked frame a latency sample or counted invalid (TX time ahead), and
 * with per-flow latency the report's jitter over no more flows than the
 * table holds; every mbuf back in its pool.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_hist.h"
#include "lr_port.h"
#include "lr_rx.h"
#include "lr_wire.h"
#include "lr_fuzz_eal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define POOL_MBUFS 63
#define FRAME_MAX 9216
#define FRAMES_MAX 24

static uint16_t wire[2];
static unsigned int lcore;
static struct rte_mempool *pool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	lr_fuzz_eal_init("fuzz_rx");
	lr_fuzz_wire("fzr", &lcore, wire, &pool, POOL_MBUFS, FRAME_MAX);
	return 0;
}

/* The frame @p b in one mbuf, or in two cut at @p at (0: one). */
static struct rte_mbuf *
mbuf_of(const uint8_t *b, uint32_t len, uint32_t at)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *n;
	uint32_t first = at ? at : len;

	if (m == NULL || (len && rte_pktmbuf_append(m, (uint16_t)first) == NULL))
		abort();
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), b, first);
	if (at == 0)
		return m;
	n = rte_pktmbuf_alloc(pool);
	if (n == NULL || rte_pktmbuf_append(n, (uint16_t)(len - at)) == NULL)
		abort();
	memcpy(rte_pktmbuf_mtod(n, uint8_t *), b + at, len - at);
	m->next = n;
	m->nb_segs = 2;
	m->pkt_len = len;
	return m;
}

/* A frame of linerate's: Ethernet [802.1Q] IPv4|IPv6 UDP, the header,
 * @p data more bytes. @return its length. */
static uint32_t
build(uint8_t *b, bool v6, bool vlan, uint32_t flow, uint32_t seq,
      uint64_t tsc, uint32_t data)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)b;
	uint32_t off = RTE_ETHER_HDR_LEN, l4len = 8 + LR_HDR_BYTES + data;
	struct rte_udp_hdr *u;
	uint16_t type = v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;

	memset(b, 0, FRAME_MAX);
	eth->ether_type = rte_cpu_to_be_16(type);
	if (vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(b + off);

		vh->eth_proto = eth->ether_type;
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		off += sizeof(*vh);
	}
	if (v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + off);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)l4len);
		ip->proto = IPPROTO_UDP;
		off += sizeof(*ip);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + off);

		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + l4len));
		ip->next_proto_id = IPPROTO_UDP;
		off += sizeof(*ip);
	}
	u = (struct rte_udp_hdr *)(b + off);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)l4len);
	lr_wire_hdr_write(u + 1, flow, seq, tsc);
	return off + l4len;
}

enum cls { OWN, FOREIGN, MALFORMED };

struct seen {
	enum cls cls;
	int flow;	/* 0 tracked, 1 untracked, 2 unknown flow */
};

/* What one frame did to the task's counters. */
static struct seen
class_of(const struct lr_rx_counts *a, const struct lr_rx_counts *b)
{
	struct seen s = { .cls = OWN, .flow = 0 };
	unsigned int moved = 0;

	if (b->own != a->own) {
		moved++;
		if (b->own != a->own + 1)
			abort();
	}
	if (b->foreign != a->foreign) {
		moved++;
		s.cls = FOREIGN;
	}
	if (b->malformed != a->malformed) {
		moved++;
		s.cls = MALFORMED;
	}
	if (moved != 1 || b->foreign > a->foreign + 1 ||
	    b->malformed > a->malformed + 1 || b->past_count != a->past_count)
		abort();			/* counted twice, or not at all */
	if (b->untracked != a->untracked)
		s.flow = 1;
	if (b->unknown_flow != a->unknown_flow)
		s.flow = s.flow ? 3 : 2;
	if ((s.flow && s.cls != OWN) || s.flow == 3 ||
	    b->untracked > a->untracked + 1 ||
	    b->unknown_flow > a->unknown_flow + 1)
		abort();
	return s;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[FRAME_MAX];
	struct lr_rx_conf rc;
	struct lr_rx_counts before, after, sum;
	struct lr_task *t;
	const struct lr_hist *lat;
	uint64_t tracked = 0;
	uint32_t nflows, base, j;
	unsigned int nf = 0, k;
	size_t off = 1;
	json_t *rep;

	if (size < 1)
		return 0;
	nflows = (data[0] & 63) + 1u;
	base = data[0] & 128 ? 1000 : 0;
	lr_rx_conf_init(&rc);
	rc.flows = nflows;
	rc.flow_base = base;
	rc.flow_latency = (data[0] & 64) != 0;
	t = lr_task_create(&lr_rx_role, lcore, wire[1], 0, 0, &rc);
	if (t == NULL)
		abort();
	lr_rx_counts(t, &before);

	while (off + 4 <= size && nf < FRAMES_MAX) {
		const uint8_t *r = data + off;
		bool built = r[0] & 1;
		uint32_t left = (uint32_t)(size - off - 4), len, cut;
		uint32_t want_flow = 0, id = 0, seq = 0;
		struct seen s[2];
		const struct lr_seq *fl = NULL;
		uint64_t pkts0 = 0, bytes0 = 0;

		len = (uint32_t)(r[1] << 8 | r[2]);
		off += 4;
		if (built) {
			uint8_t fg;
			uint32_t age;

			if (left < 13)
				break;
			fg = r[4];
			memcpy(&id, r + 5, 4);
			memcpy(&seq, r + 9, 4);
			memcpy(&age, r + 13, 4);
			off += 13;
			if (fg & 8) {
				id = LR_FLOW_NONE;
				want_flow = 1;
			} else if (fg & 4) {
				id = base + id % nflows;
			} else {
				want_flow = id - base < nflows ? 0 :
					    id == LR_FLOW_NONE ? 1 : 2;
			}
			/* Sent up to 2^32 cycles ago: a valid TX time. */
			len = build(buf, fg & 1, fg & 2, id, seq,
				    rte_rdtsc() - age, len % 1500);
			if (want_flow == 0)
				fl = lr_rx_flow(t, id);
		} else {
			len = len % (RTE_MIN(left, (uint32_t)FRAME_MAX) + 1);
			memcpy(buf, r + 4, len);
			off += len;
		}
		if (fl != NULL) {
			pkts0 = fl->pkts;
			bytes0 = fl->bytes;
		}
		cut = len > 1 ? 1 + (uint32_t)(((uint64_t)r[3] * (len - 1)) >> 8) : 0;
		for (k = 0; k < 2; k++) {
			struct rte_mbuf *m = mbuf_of(buf, len, k ? cut : 0);

			/* The wire is a ring: one poll takes the frame. */
			if (rte_eth_tx_burst(wire[0], 0, &m, 1) != 1)
				abort();
			lr_rx_role.task->poll(t, rte_rdtsc());
			lr_rx_counts(t, &after);
			s[k] = class_of(&before, &after);
			before = after;
		}
		if (s[0].cls != s[1].cls || s[0].flow != s[1].flow)
			abort();		/* a chain is not the frame */
		if (built && (s[0].cls != OWN || s[0].flow != (int)want_flow))
			abort();		/* linerate's frame not seen as such */
		if (fl != NULL && (fl->pkts != pkts0 + 2 || fl->bytes != bytes0 + 2ull * len))
			abort();		/* not added to its flow */
		if (s[0].cls == OWN && s[0].flow == 0)
			tracked += 2;
		nf++;
	}

	/* The totals against the flows. */
	lr_rx_counts(t, &after);
	memset(&sum, 0, sizeof(sum));
	for (j = 0; j < nflows; j++) {
		const struct lr_seq *f = lr_rx_flow(t, base + j);

		if (f == NULL || f->lost < 0 || f->dup > f->pkts)
			abort();
#define SUM(name, ...) sum.name += f->name;
		LR_SEQ_COUNTERS(SUM)
#undef SUM
		sum.lost += f->lost;
		sum.own += f->pkts;
	}
#define SAME(name, ...) if (sum.name != after.name) abort();
	LR_SEQ_COUNTERS(SAME)
#undef SAME
	if (sum.lost != after.lost ||
	    sum.own != after.own - after.untracked - after.unknown_flow ||
	    sum.own != tracked)
		abort();
	lat = lr_rx_latency(t);
	if (lat == NULL || lat->count + after.latency_invalid +
	    after.latency_foreign_clock != tracked)
		abort();
	rep = lr_task_report(t);
	if (rep == NULL)
		abort();
	if (rc.flow_latency) {
		json_t *jt = json_object_get(rep, "jitter");

		if (!json_is_object(jt) || !json_is_integer(json_object_get(jt, "flows")) ||
		    json_integer_value(json_object_get(jt, "flows")) > nflows)
			abort();
	}
	json_decref(rep);
	lr_engine_cleanup();
	if (rte_mempool_avail_count(pool) != POOL_MBUFS)
		abort();			/* an mbuf not freed */
	return 0;
}
