/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu_set_t, for rte_lcore_cpuset() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include <arpa/inet.h>

#include "lr_common.h"
#include "lr_gen.h"
#include "lr_pool.h"
#include "lr_port.h"
#include "gen_conf.h"
#include "gen_internal.h"
#include "gen_replay.h"

#define GLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, lr_gen_logtype, "gen: " fmt "\n", ##__VA_ARGS__)

#define GEN_POOL_MBUFS 8191	/* fills a 4096-entry wire ring twice over */
#define GEN_POOL_CACHE 256
/* The control path looks for stalled gens this often. */
#define GEN_STALL_CHECK_S 0.01

/*
 * Checksums by incremental update (RFC 1071, 1624): the one's complement
 * sum of 16-bit words does not depend on byte order, so words are summed as
 * they lie in memory and the folded complement is stored as it is. DPDK's
 * raw sum gives the unfolded sum of a buffer (a trailing odd byte padded).
 */
static inline uint32_t
sum16(const void *p, size_t len)
{
	return __rte_raw_cksum(p, len, 0);
}

static inline uint16_t
fold(uint64_t s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static inline uint32_t
sum32(uint32_t v)
{
	return (v & 0xffff) + (v >> 16);
}

/* Offsets in the frame, both families, after 0, 1 or 2 VLAN tags. */
struct layout {
	uint32_t l3;		/* IP header */
	uint32_t l4;		/* UDP header */
	uint32_t pay;		/* lr_wire_hdr */
};

static struct layout
layout_of(const struct gen *g)
{
	uint32_t tags = RTE_VLAN_HLEN * lr_gen_tags(&g->conf);
	struct layout l = { RTE_ETHER_HDR_LEN + tags,
			    RTE_ETHER_HDR_LEN + tags + 20,
			    LR_UDP4_HDRS_BYTES + tags };

	if (g->ipv6) {
		l.l4 = RTE_ETHER_HDR_LEN + tags + 40;
		l.pay = LR_UDP6_HDRS_BYTES + tags;
	}
	return l;
}

/* A tag's TCI (802.1Q 9.6: PCP 3 bits, DEI 1, VID 12), network order. */
static rte_be16_t
tci_of(const struct lr_gen_tag *tag, uint16_t vid)
{
	return rte_cpu_to_be_16((uint16_t)(tag->pcp << 13 | tag->dei << 12 | vid));
}

/* The frame's constant bytes, up to the largest size: Ethernet, IP and UDP
 * headers of flow 0 and the payload pattern. */
static void
build_template(const struct gen *g, const struct lr_ip_range *src,
	       const struct lr_ip_range *dst, uint8_t *d)
{
	const struct lr_gen_conf *c = &g->conf;
	struct layout l = layout_of(g);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)d;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + l.l4);
	/* The EtherType of what follows the Ethernet addresses and tags. */
	rte_be16_t *type = (rte_be16_t *)(d + l.l3 - 2);
	uint8_t tos = (uint8_t)(c->dscp << 2 | c->ecn);	/* RFC 2474, 3168 */
	uint64_t seed = c->seed;
	uint32_t i;

	for (i = l.pay + LR_HDR_BYTES; i < g->max_len; i++) {
		switch (c->pattern) {
		case LR_PATTERN_INC:
			d[i] = (uint8_t)i;
			break;
		case LR_PATTERN_ZERO:
			d[i] = 0;
			break;
		case LR_PATTERN_RANDOM:
			d[i] = (uint8_t)next_rand(&seed);
			break;
		case LR_PATTERN_BYTES:
			d[i] = c->pattern_bytes[(i - l.pay - LR_HDR_BYTES) %
						c->pattern_len];
			break;
		}
	}
	memset(d, 0, l.pay + LR_HDR_BYTES);
	eth->src_addr = c->src_mac;
	eth->dst_addr = c->dst_mac;
	/* The tags, outer first: each a TPID and a TCI (the first flow's
	 * VIDs; build_flow() makes each flow's). */
	if (c->outer.set) {
		struct rte_vlan_hdr *v = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(c->outer.tpid);
		v->vlan_tci = tci_of(&c->outer, c->outer.vid);
		v->eth_proto = rte_cpu_to_be_16(c->vlan.tpid);
		v[1].vlan_tci = tci_of(&c->vlan, c->vlan.vid);
	} else if (c->vlan.set) {
		struct rte_vlan_hdr *v = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(c->vlan.tpid);
		v->vlan_tci = tci_of(&c->vlan, c->vlan.vid);
	}
	if (g->ipv6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + l.l3);

		*type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		/* Version 6, then the traffic class: DSCP and ECN. */
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tos << 20);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = c->ttl;
		memcpy(ip->src_addr, src->addr, 16);
		memcpy(ip->dst_addr, dst->addr, 16);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + l.l3);

		*type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = tos;
		ip->fragment_offset = c->df ?
			rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) : 0;
		ip->time_to_live = c->ttl;
		ip->next_proto_id = IPPROTO_UDP;
	}
	udp->dst_port = rte_cpu_to_be_16(c->dst_port);
	lr_wire_hdr_write(d + l.pay, 0, 0, 0);
}

/* Per-flow constants: addresses, ports and the checksum parts they make. */
static void
build_flow(const struct gen *g, const uint8_t *tmpl, const struct lr_gen_tuple *t,
	   uint32_t id, struct gen_flow *f)
{
	const struct lr_gen_conf *c = &g->conf;
	struct layout l = layout_of(g);
	uint8_t hdr[60];
	rte_be32_t idbe = rte_cpu_to_be_32(id);
	rte_be16_t magic = rte_cpu_to_be_16(LR_HDR_MAGIC);
	rte_be16_t proto = rte_cpu_to_be_16(IPPROTO_UDP);

	memset(f, 0, sizeof(*f));
	f->id = id;
	f->src_port = t->src_port;
	f->dst_port = t->dst_port;
	if (g->ipv6) {
		memcpy(&f->src_lo, t->src_ip + 12, 4);
		memcpy(&f->dst_lo, t->dst_ip + 12, 4);
		f->udp_sum = sum16(t->src_ip, 16) + sum16(t->dst_ip, 16);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)hdr;

		memcpy(&f->src_lo, t->src_ip, 4);
		memcpy(&f->dst_lo, t->dst_ip, 4);
		memcpy(hdr, tmpl + l.l3, 20);
		ip->src_addr = f->src_lo;
		ip->dst_addr = f->dst_lo;
		ip->total_length = 0;
		ip->hdr_checksum = 0;
		f->ip_sum = sum16(ip, 20);
		f->udp_sum = sum16(t->src_ip, 4) + sum16(t->dst_ip, 4);
	}
	f->udp_sum += proto + f->src_port + f->dst_port + magic + sum32(idbe);
	/* The tags with this flow's VIDs; no checksum covers them. */
	memcpy(f->l2, tmpl + 12, sizeof(f->l2));
	if (c->outer.set) {
		rte_be16_t o = tci_of(&c->outer, t->outer_vid);
		rte_be16_t v = tci_of(&c->vlan, t->vid);

		memcpy(f->l2 + 2, &o, 2);
		memcpy(f->l2 + 6, &v, 2);
	} else if (c->vlan.set) {
		rte_be16_t v = tci_of(&c->vlan, t->vid);

		memcpy(f->l2 + 2, &v, 2);
	}
}

/* rte_mempool_obj_iter callback: write the whole frame once (libmoon's
 * archetype packet), so that the fast path only patches changing fields. */
static void
fill_mbuf(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	const uint8_t *tmpl = arg;
	struct rte_mbuf *m = obj;
	const struct gen *g = (const struct gen *)(const void *)
			      *(const uintptr_t *)tmpl;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), tmpl + sizeof(uintptr_t),
	       g->max_len);
	m->data_len = (uint16_t)g->sizes[0].len;
	m->pkt_len = g->sizes[0].len;
}

/* Write flow @p f into frame @p d: what the fixed mode writes once and the
 * fast path writes per packet (without the sequence and timestamp). */
static inline void
write_frame(const struct gen *g, uint8_t *d, const struct gen_flow *f,
	    const struct gen_size *s, uint32_t flow_id, uint32_t seq, uint64_t tsc)
{
	uint16_t ulen = (uint16_t)(s->len - g->l4);
	rte_be16_t ulen_be = rte_cpu_to_be_16(ulen);
	struct rte_udp_hdr *udp;
	struct lr_wire_hdr *h;
	uint64_t sum;

	/* Bytes 12..19 first: the IP fields below overwrite those of them
	 * that are IP's in an untagged frame (its lengths). */
	memcpy(d + 12, f->l2, sizeof(f->l2));
	if (g->ipv6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + g->l3);

		ip->payload_len = ulen_be;
		memcpy(ip->src_addr + 12, &f->src_lo, 4);
		memcpy(ip->dst_addr + 12, &f->dst_lo, 4);
		udp = (struct rte_udp_hdr *)(ip + 1);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + g->l3);
		rte_be16_t ilen = rte_cpu_to_be_16((uint16_t)(ulen + 20));

		ip->total_length = ilen;
		ip->src_addr = f->src_lo;
		ip->dst_addr = f->dst_lo;
		ip->hdr_checksum = (uint16_t)~fold((uint64_t)f->ip_sum + ilen);
		udp = (struct rte_udp_hdr *)(ip + 1);
	}
	udp->src_port = f->src_port;
	udp->dst_port = f->dst_port;
	udp->dgram_len = ulen_be;
	h = (struct lr_wire_hdr *)(udp + 1);
	h->flow = rte_cpu_to_be_32(flow_id);
	h->seq = rte_cpu_to_be_32(seq);
	h->tx_tsc = rte_cpu_to_be_64(tsc);
	if (g->cksum) {
		rte_be32_t seq_be = h->seq;
		uint64_t tsc_be = h->tx_tsc;
		uint16_t c;

		/* The pseudo-header's length and the UDP length field. */
		sum = (uint64_t)f->udp_sum + 2u * ulen_be + s->pay_sum +
		      sum32(seq_be) + sum32((uint32_t)tsc_be) +
		      sum32((uint32_t)(tsc_be >> 32));
		c = (uint16_t)~fold(sum);
		udp->dgram_cksum = c == 0 ? 0xffff : c;
	} else {
		udp->dgram_cksum = 0;
	}
}

/* The fixed mode's one frame, final: flow untracked (rx counts these
 * apart), its UDP checksum computed whole. */
static void
fix_frame(const struct gen *g, uint8_t *d)
{
	struct layout l = layout_of(g);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + l.l4);

	write_frame(g, d, &g->flows[0], &g->sizes[0], LR_FLOW_NONE, 0, 0);
	if (!g->cksum)
		return;
	udp->dgram_cksum = 0;
	if (g->ipv6)
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(
			(const struct rte_ipv6_hdr *)(d + l.l3), udp);
	else
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(
			(const struct rte_ipv4_hdr *)(d + l.l3), udp);
}

static void
gen_free(struct lr_task *t)
{
	struct gen *g = t->priv;

	if (g == NULL)
		return;
	/* Mbufs may still sit in a peer's queue: free the pool only when
	 * all of them came back. */
	if (g->pool != NULL && rte_mempool_full(g->pool))
		rte_mempool_free(g->pool);
	lr_replay_free(g);
	lr_changes_free(&g->changes);
	rte_free(g->pace0);
	rte_free(g->flows);
	rte_free(g->sizes);
	rte_free(g);
	t->priv = NULL;
}

/*
 * The pacing of @p rate for g's sizes (set already) into @p p: each size's
 * cost, in TSC cycles, of this task's share (a slice sends 1/slices of the
 * rate: its frames cost slices times as long). At the start and at each
 * task:set{rate=}: one check of the rate for both.
 */
static int
pace_of(const struct gen *g, const struct lr_port_info *pi,
	const struct lr_rate *rate, double hz, struct gen_pace *p)
{
	double per_pkt, per_byte, link_bps = pi->link_speed_mbps * 1e6;
	double sum_cost = 0, max_cost = 0, line;
	unsigned int slices = g->conf.slices;
	uint32_t i;
	char rs[64];

	if (lr_rate_cost(rate, link_bps, &per_pkt, &per_byte) != 0)
		return lr_err(EINVAL, "gen: a rate in %% needs the link speed; port "
			      "%s reports none (give the port speed=10G)", pi->name);
	for (i = 0; i < g->nb_sizes; i++) {
		p->cost[i] = per_pkt + per_byte * (g->sizes[i].len + LR_FCS_BYTES);
		sum_cost += p->cost[i];
		max_cost = RTE_MAX(max_cost, p->cost[i]);
	}
	/* A slot the schedule cannot hold (its cycles past 64 bits) would
	 * leave the task unpaced. */
	if (!(max_cost * slices <= LR_GEN_SLOT_MAX_S))
		return lr_err(EINVAL, "gen: rate %s is too low to schedule: a "
			      "frame's slot of %.3g s passes the %.0e s a schedule "
			      "holds", lr_rate_str(rate, rs, sizeof(rs)),
			      max_cost * slices, LR_GEN_SLOT_MAX_S);
	p->rate = *rate;
	p->rate_pps = 0;
	/* A rate above the line rate is a mistake, not "as fast as it goes". */
	if (rate->unit != LR_RATE_MAX) {
		line = (g->mean_frame + LR_L1_EXTRA_BYTES) * 8 / link_bps;
		if (link_bps > 0 && sum_cost / g->nb_sizes < line * (1 - 1e-9))
			return lr_err(EINVAL, "gen: rate %s is above port %s's line "
				      "rate of %.4g Mpps at %.0f B (%u Mb/s; set the "
				      "port's speed= for a faster virtual port)",
				      lr_rate_str(rate, rs, sizeof(rs)), pi->name,
				      1e-6 / line, g->mean_frame, pi->link_speed_mbps);
		p->rate_pps = g->nb_sizes / sum_cost / slices;
	}
	for (i = 0; i < g->nb_sizes; i++)
		p->cost[i] *= hz * slices;
	p->mean_cost = sum_cost / g->nb_sizes * hz * slices;
	p->per_pkt_tsc = per_pkt * hz * slices;
	p->per_byte_tsc = per_byte * hz * slices;
	return 0;
}

/* A pacing block for g's sizes, on its socket. */
struct gen_pace *
lr_gen_pace_new(const struct gen *g, int socket)
{
	return rte_zmalloc_socket("lr_gen_pace", sizeof(struct gen_pace) +
				  sizeof(double) * g->nb_sizes,
				  RTE_CACHE_LINE_SIZE, socket);
}

/* Make @p p the pacing the fast path reads (gen.sizes' costs and the
 * means; a replay's gap factor): at the start, and on the worker at a
 * switch. */
void
lr_gen_pace_use(struct gen *g, const struct gen_pace *p)
{
	uint32_t i;

	for (i = 0; i < g->nb_sizes; i++)
		g->sizes[i].cost = p->cost[i];
	g->mean_cost = p->mean_cost;
	g->per_pkt_tsc = p->per_pkt_tsc;
	g->per_byte_tsc = p->per_byte_tsc;
	g->gap_k = p->gap_k;
}

static int
build_sizes(struct gen *g, const struct lr_port_info *pi, double hz, int socket)
{
	const struct lr_gen_conf *c = &g->conf;
	struct layout l = layout_of(g);
	uint32_t *tab, i, max_l3;
	double sum_frame = 0, link_bps = pi->link_speed_mbps * 1e6;
	struct gen_pace *p;
	int n, ret = 0;
	char rs[64];

	tab = malloc(sizeof(*tab) * LR_GEN_SIZE_TABLE);
	if (tab == NULL)
		return lr_err(ENOMEM, "gen: no memory");
	n = lr_gen_size_table(c, tab, LR_GEN_SIZE_TABLE);
	if (n <= 0) {
		free(tab);
		return lr_err(EINVAL, "gen: no frame sizes");
	}
	g->sizes = rte_zmalloc_socket("lr_gen_sizes", sizeof(*g->sizes) * n,
				      RTE_CACHE_LINE_SIZE, pi->socket);
	if (g->sizes == NULL) {
		free(tab);
		return lr_err(ENOMEM, "gen: no memory for sizes");
	}
	g->nb_sizes = (uint32_t)n;
	g->max_len = 0;
	max_l3 = pi->mtu;
	for (i = 0; i < g->nb_sizes; i++) {
		uint32_t f = tab[i];

		/* --size is the frame on the wire, tags included (as
		 * MoonGen and TRex count it): the tags take from the
		 * payload, and below the least frame linerate's header
		 * would not fit. */
		ret = lr_gen_frame_check(c, g->ipv6, f);
		if (ret != 0)
			break;
		/* The MTU is the IP datagram's: no tag counts in it. */
		if (f - l.l3 - LR_FCS_BYTES > max_l3) {
			ret = lr_err(EINVAL, "gen: %u B frames exceed port %s's MTU %u "
				     "(set the port's mtu=%u)", f, pi->name, max_l3,
				     f - l.l3 - LR_FCS_BYTES);
			break;
		}
		g->sizes[i].len = f - LR_FCS_BYTES;
		sum_frame += f;
		g->max_len = RTE_MAX(g->max_len, g->sizes[i].len);
	}
	free(tab);
	if (ret != 0)
		return ret;
	g->mean_frame = sum_frame / g->nb_sizes;
	p = lr_gen_pace_new(g, socket);
	if (p == NULL)
		return lr_err(ENOMEM, "gen: no memory for the pacing");
	g->pace0 = p;	/* gen_free frees it */
	ret = pace_of(g, pi, &c->rate, hz, p);
	if (ret != 0)
		return ret;
	lr_gen_pace_use(g, p);
	g->rate_pps = p->rate_pps;
	/* Virtual ports report speeds of their own (memif 100G, null,
	 * ring and pcap 10G): say which one the % took. */
	if (c->rate.unit == LR_RATE_PCT && c->slice == 0)
		GLOG(INFO, "rate %s of port %s's %.4g Gb/s (%s; the port's "
		     "speed= sets it) = %.6g Mpps at %.0f B",
		     lr_rate_str(&c->rate, rs, sizeof(rs)), pi->name,
		     link_bps / 1e9, pi->speed_from_conf ? "as set" :
		     "as the PMD reports it", g->rate_pps * c->slices / 1e6,
		     g->mean_frame);
	return 0;
}

/* The payload after lr_wire_hdr in the template @p tmpl, summed per size
 * for the UDP checksum: prefix sums of its words. */
static int
pay_sums(struct gen *g, const uint8_t *tmpl)
{
	struct layout l = layout_of(g);
	const uint16_t *words;
	uint64_t *cum;
	uint32_t i;

	words = (const uint16_t *)(tmpl + l.pay + LR_HDR_BYTES);
	cum = malloc(sizeof(*cum) * (LR_FRAME_MAX_BYTES / 2 + 1));
	if (cum == NULL)
		return lr_err(ENOMEM, "gen: no memory");
	cum[0] = 0;
	for (i = 0; i < (g->max_len - l.pay - LR_HDR_BYTES) / 2; i++) {
		uint16_t w;

		memcpy(&w, &words[i], 2);
		cum[i + 1] = cum[i] + w;
	}
	for (i = 0; i < g->nb_sizes; i++) {
		uint32_t p = g->sizes[i].len - l.pay - LR_HDR_BYTES;
		uint64_t s = cum[p / 2];

		if (p & 1)
			s += sum16(tmpl + l.pay + LR_HDR_BYTES + p - 1, 1);
		g->sizes[i].pay_sum = fold(s);
	}
	free(cum);
	return 0;
}

static int
build_flows(struct gen *g, const uint8_t *tmpl, int socket)
{
	const struct lr_gen_conf *c = &g->conf;
	uint32_t i, n = (uint32_t)lr_gen_share(c->flows, c->slice, c->slices);
	uint64_t first = 0, seed = c->seed;
	struct lr_gen_tuple t;
	uint16_t k;

	for (k = 0; k < c->slice; k++)
		first += lr_gen_share(c->flows, k, c->slices);
	g->flows = rte_zmalloc_socket("lr_gen_flows", sizeof(*g->flows) * n,
				      RTE_CACHE_LINE_SIZE, socket);
	if (g->flows == NULL)
		return lr_err(ENOMEM, "gen: no memory for %u flows", n);
	g->nb_flows = n;
	g->first_flow = c->flow_base + (uint32_t)first;
	for (i = 0; i < n; i++) {
		lr_gen_flow_at(c, (uint32_t)first + i, &t);
		build_flow(g, tmpl, &t, g->first_flow + i, &g->flows[i]);
	}
	/* A shuffle moves whole entries: id, sequence and checksum parts. */
	if (c->shuffle) {
		for (i = n - 1; i > 0; i--) {
			uint32_t j = (uint32_t)(next_rand(&seed) % (i + 1));
			struct gen_flow tmp = g->flows[i];

			g->flows[i] = g->flows[j];
			g->flows[j] = tmp;
		}
	}
	return 0;
}

/* Worker lcores that EAL put on one CPU (--lcores '(1-4)@1') poll in
 * turn, each for the scheduler's slices of milliseconds: a paced gen on
 * one of them sends for a fraction of the time and falls short by that
 * much (1 Mpps over 4 such lcores gave 0.16 Mpps). Say so at the start. */
static void
warn_shared_cpu(unsigned int lcore)
{
	rte_cpuset_t mine = rte_lcore_cpuset(lcore), other, both;
	unsigned int l;

	RTE_LCORE_FOREACH_WORKER(l) {
		if (l == lcore)
			continue;
		other = rte_lcore_cpuset(l);
		CPU_AND(&both, &mine, &other);
		if (CPU_COUNT(&both) != 0) {
			GLOG(WARNING, "lcore %u shares a CPU with lcore %u: a paced "
			     "task on it falls short of its rate while the other "
			     "polls (give each worker lcore a CPU of its own)",
			     lcore, l);
			return;
		}
	}
}

static const struct lr_change_ops pace_changes;

static int
gen_init(struct lr_task *t, const void *arg)
{
	const struct lr_gen_conf *c = arg;
	const struct lr_port_info *pi = lr_port_info(t->port);
	struct lr_ip_range src, dst;
	uint8_t *tmpl;
	struct gen *g;
	int ret;

	ret = lr_gen_conf_check(c);
	if (ret != 0)
		return ret;
	lr_gen_ranges(c, &src, &dst);
	g = rte_zmalloc_socket("lr_gen", sizeof(*g), RTE_CACHE_LINE_SIZE, t->socket);
	if (g == NULL)
		return lr_err(ENOMEM, "gen: no memory on socket %d", t->socket);
	t->priv = g;
	ret = lr_changes_init(&g->changes, &pace_changes, t, t,
			      &g->last_poll_tsc);
	if (ret != 0) {
		rte_free(g);
		t->priv = NULL;
		return ret;
	}
	g->conf = *c;
	g->ipv6 = src.ipv6;
	g->l3 = (uint16_t)layout_of(g).l3;
	g->l4 = (uint16_t)layout_of(g).l4;
	g->cksum = c->udp_cksum == 1 || (c->udp_cksum == -1 && g->ipv6);
	g->fixed = c->fixed;
	g->burst = c->burst;
	g->remaining = c->count ? lr_gen_share(c->count, c->slice, c->slices) : UINT64_MAX;
	g->bytes_left = c->bytes ? lr_gen_share(c->bytes, c->slice, c->slices) : UINT64_MAX;
	if (g->remaining == 0 || g->bytes_left == 0)
		g->remaining = 0;	/* this slice's share is nothing */
	g->max_lag_tsc = (uint64_t)((double)rte_get_tsc_hz() * c->catch_up_s);
	g->want_pkts = c->count ? lr_gen_share(c->count, c->slice, c->slices) : 0;
	if (c->pcap[0] != '\0') {
		ret = lr_replay_init(t, g, (double)rte_get_tsc_hz());
		if (ret != 0)
			goto fail;
		if (g->paced)
			warn_shared_cpu(t->lcore);
		return 0;
	}
	ret = build_sizes(g, pi, (double)rte_get_tsc_hz(), t->socket);
	if (ret != 0)
		goto fail;
	/* One pre-built frame: the byte budget is a count of it, its last
	 * frame ending it as a built one does. */
	if (g->fixed && g->bytes_left != UINT64_MAX) {
		uint64_t fb = g->sizes[0].len + LR_FCS_BYTES;

		g->remaining = RTE_MIN(g->remaining, (g->bytes_left + fb - 1) / fb);
	}
	g->paced = c->rate.unit != LR_RATE_MAX;
	if (g->paced)
		warn_shared_cpu(t->lcore);

	/* The template, behind a pointer to g for the fill callback. */
	tmpl = calloc(1, sizeof(uintptr_t) + LR_FRAME_MAX_BYTES);
	if (tmpl == NULL) {
		ret = lr_err(ENOMEM, "gen: no memory");
		goto fail;
	}
	*(uintptr_t *)tmpl = (uintptr_t)g;
	build_template(g, &src, &dst, tmpl + sizeof(uintptr_t));
	ret = pay_sums(g, tmpl + sizeof(uintptr_t));
	if (ret == 0)
		ret = build_flows(g, tmpl + sizeof(uintptr_t), t->socket);
	if (ret == 0 && g->fixed)
		fix_frame(g, tmpl + sizeof(uintptr_t));
	if (ret == 0) {
		/* A finished gen's pool of this shape when all its mbufs
		 * are back (refilled below), or a new one. */
		g->pool = lr_pool_get("lr_gen", GEN_POOL_MBUFS, GEN_POOL_CACHE,
				      (uint16_t)(RTE_PKTMBUF_HEADROOM +
						 RTE_MAX(g->max_len, 128u)),
				      t->socket);
		if (g->pool == NULL)
			ret = lr_err(rte_errno, "gen: no pool of %u mbufs of %u B "
				     "on socket %d", GEN_POOL_MBUFS, g->max_len,
				     t->socket);
		else
			rte_mempool_obj_iter(g->pool, fill_mbuf, tmpl);
	}
	free(tmpl);
	if (ret == 0)
		return 0;
fail:
	gen_free(t);
	return ret;
}

static void
gen_finish(struct lr_task *t)
{
	struct gen *g = t->priv;
	uint16_t i;

	/* Stopped with packets the queue never took: they were not sent,
	 * so their slots in the schedule do not count as offered. */
	if (g->paced && g->rp != NULL)
		g->sched.unsent_tsc += lr_replay_pend_cost(g);
	else if (g->paced)
		for (i = 0; i < g->nb_pend; i++)
			g->sched.unsent_tsc += g->per_pkt_tsc + g->per_byte_tsc *
				(g->pend[i]->pkt_len + LR_FCS_BYTES);
	rte_pktmbuf_free_bulk(g->pend, g->nb_pend);
	t->st.drops += g->nb_pend;
	g->nb_pend = 0;
	/* Done: the pool goes to the next gen once its mbufs are back. */
	lr_pool_put(g->pool);
	g->pool = NULL;
}

double
lr_gen_offered(const struct lr_gen_sched *s, uint64_t end_tsc,
	       double *window_tsc)
{
	double next, end, sent, window;

	if (window_tsc != NULL)
		*window_tsc = 0;
	if (s->first_tsc == 0)
		return 1;
	next = (double)(s->next_tsc - s->first_tsc) + s->next_frac;
	end = end_tsc > s->first_tsc ? (double)(end_tsc - s->first_tsc) : 0;
	/* The schedule's time that sent packets filled: all of it up to
	 * the next slot, less what was given up late or never taken. */
	sent = next - (double)s->late_tsc - s->unsent_tsc;
	window = RTE_MAX(next, end);
	if (window_tsc != NULL)
		*window_tsc = window;
	return window > 0 ? RTE_MAX(sent, 0.0) / window : 1;
}

bool
lr_gen_is_short(double offered, double tolerance)
{
	return offered < tolerance * (1 - 1e-12);
}

/* When the task stopped sending, for its offered ratio: its end (now
 * while it runs), but no later than its duration's deadline. */
static uint64_t
end_of(const struct lr_task *t)
{
	const struct gen *g = t->priv;
	uint64_t done = __atomic_load_n(&g->done_tsc, __ATOMIC_RELAXED);
	uint64_t end = lr_task_state(t) == LR_TASK_DONE ? t->st.end_tsc :
		       rte_rdtsc();

	/* Done with what it had to send: it stopped sending then. */
	if (done != 0 && done < end)
		end = done;

	if (t->duration_tsc != 0 && t->st.start_tsc != 0 &&
	    t->st.start_tsc + t->duration_tsc < end)
		end = t->st.start_tsc + t->duration_tsc;
	return end;
}

/* What a gen offered against what its schedule asked. */
struct offer {
	double ratio;		/* offered / asked, 1: never polled */
	double window_tsc;	/* the sending time */
	double late_pkts;	/* given up after stalls */
	unsigned int changes;	/* rate changes the worker took */
};

/*
 * The offered ratio across rate changes: the schedule's time cut where the
 * worker took each new pacing (its slot), each piece's time in packets at
 * its own rate. What the schedule asked is the sum of the pieces (the rate's
 * integral over the sending time), what was offered the same less each
 * piece's late and unsent time: so a piece at 10 Mpps that fell short
 * weighs ten times one at 1 Mpps. Without a change it is lr_gen_offered().
 */
static struct offer
offered_of(const struct lr_task *t)
{
	struct gen *g = t->priv;
	struct offer o = { 1, 0, 0, 0 };
	struct lr_gen_sched sc;
	double from, late, m, asked, sent, piece, next, end;
	uint64_t end_tsc = end_of(t);

	/* The worker's switches first (record_change() sums the pieces
	 * before each), then the schedule: it wrote each switch's slot
	 * before its applied_tsc, and the schedule moves on from there, so
	 * the snapshot below is at or past each slot. */
	lr_changes_reap(&g->changes);
	lr_changes_lock(&g->changes);
	from = g->acc.from;
	late = g->acc.late;
	m = g->acc.m;
	asked = g->acc.asked;
	sent = g->acc.sent;
	o.late_pkts = g->acc.late_pkts;
	o.changes = g->acc.changes;
	lr_changes_unlock(&g->changes);
	sc = g->sched;
	if (o.changes == 0 || sc.first_tsc == 0) {
		o.ratio = lr_gen_offered(&sc, end_tsc, &o.window_tsc);
		o.late_pkts = (double)sc.late_tsc / g->mean_cost;
		return o;
	}
	/* Times from first_tsc, in cycles: the piece since the last switch. */
	next = (double)(sc.next_tsc - sc.first_tsc) + sc.next_frac;
	end = end_tsc > sc.first_tsc ? (double)(end_tsc - sc.first_tsc) : 0;
	piece = RTE_MAX(RTE_MAX(next, end) - from, 0.0);
	asked += piece / m;
	sent += (RTE_MAX(next - from, 0.0) - ((double)sc.late_tsc - late) -
		 sc.unsent_tsc) / m;
	o.late_pkts += ((double)sc.late_tsc - late) / m;
	o.window_tsc = RTE_MAX(next, end);
	o.ratio = asked > 0 ? RTE_MAX(sent, 0.0) / asked : 1;
	return o;
}

/* The piece of the schedule before the switch to @p p, at the pacing in
 * force before it, summed for offered_of(): in the order the worker took
 * them, once each. */
static void
add_piece(struct gen *g, const struct gen_pace *p)
{
	double slot = (double)(p->slot_tsc - g->sched.first_tsc) + p->slot_frac;
	double piece, late = (double)p->late_tsc - g->acc.late;

	if (g->acc.changes == 0)
		g->acc.m = g->pace0->mean_cost;
	piece = RTE_MAX(slot - g->acc.from, 0.0);
	g->acc.asked += piece / g->acc.m;
	g->acc.sent += (piece - late) / g->acc.m;
	g->acc.late_pkts += late / g->acc.m;
	g->acc.from = slot;
	g->acc.late = (double)p->late_tsc;
	g->acc.m = p->mean_cost;
	g->acc.changes++;
}

/* The record of a rate change (lr_change_ops): when it was asked and
 * when the worker took it, the pacing before and after. */
static json_t *
record_change(void *arg, const struct lr_change *ch,
	      const struct lr_change *before, enum lr_change_fate fate,
	      const char *why)
{
	const struct lr_task *t = arg;
	struct gen *g = t->priv;
	const struct gen_pace *p = (const struct gen_pace *)ch;
	const struct gen_pace *from = before != NULL ?
		(const struct gen_pace *)before : g->pace0;
	double hz = (double)rte_get_tsc_hz(), start = (double)t->st.start_tsc;
	json_t *c = json_object();
	char rs[64];

	/* A replay at the capture's timing changes its multiplier;
	 * its rate_pps is the capture's mean at it. */
	if (p->multiplier != 0)
		json_object_set_new(c, "multiplier", json_real(p->multiplier));
	else
		json_object_set_new(c, "rate", json_string(
				    lr_rate_str(&p->rate, rs, sizeof(rs))));
	json_object_set_new(c, "rate_pps", json_real(p->rate_pps));
	json_object_set_new(c, "asked_s", json_real(
			    ((double)ch->asked_tsc - start) / hz));
	if (fate != LR_CHANGE_TAKEN) {
		json_object_set_new(c, "applied_s", json_null());
		json_object_set_new(c, "why_not", json_string(why));
		return c;
	}
	add_piece(g, p);
	/* The pacing in force before: the last one taken. */
	if (from->multiplier != 0)
		json_object_set_new(c, "from_multiplier",
				    json_real(from->multiplier));
	else
		json_object_set_new(c, "from_rate", json_string(
				    lr_rate_str(&from->rate, rs, sizeof(rs))));
	json_object_set_new(c, "from_rate_pps", json_real(from->rate_pps));
	json_object_set_new(c, "applied_s", json_real(
			    ((double)ch->applied_tsc - start) / hz));
	json_object_set_new(c, "slot_s", json_real(
			    ((double)p->slot_tsc - start + p->slot_frac) / hz));
	/* How far behind its schedule the worker was when it took it (a
	 * stall); negative: ahead, its next slot not yet due (by a burst of
	 * the old rate at most). */
	json_object_set_new(c, "lag_us", json_real(
			    ((double)ch->applied_tsc - (double)p->slot_tsc -
			     p->slot_frac) * 1e6 / hz));
	json_object_set_new(c, "packets_before", json_integer(
			    (json_int_t)p->pkts_before));
	json_object_set_new(c, "late_before_us", json_real(
			    (double)p->late_tsc * 1e6 / hz));
	json_object_set_new(c, "burst_us", json_real(
			    g->burst * from->mean_cost * 1e6 / hz));
	return c;
}

static void
free_change(void *arg, struct lr_change *ch)
{
	RTE_SET_USED(arg);
	rte_free(ch);
}

static const struct lr_change_ops pace_changes = {
	.record = record_change,
	.free = free_change,
};

/* What a gen task reports, read on the control path: its table's rows
 * point here. */
struct gen_counts {
	double frame_bytes_mean;
	uint64_t frame_bytes_max, sizes, vlan_tags, flow_base, flows;
	double rate_pps;
	/* a paced gen's (GEN_PACED) */
	double offered, send_s, achieved_pps;
	uint64_t late_packets, refused_packets, caught_up_packets;
	double max_stall_us, catch_up_us, rate_tolerance;
};

#define GEN_PACED 1u	/* the rows of a paced gen */

/* Rows named as their fields; P: a paced gen's only. */
#define GEN_ROW(ty, f, w, m, kd, u, h) \
	LR_COUNTER_ROW(ty, struct gen_counts, f, #f, w, m, kd, u, h)
#define P GEN_PACED
static const struct lr_counter gen_rows[] = {
	GEN_ROW(REAL, frame_bytes_mean, 0, NULL, NONE, "bytes",
		"Mean frame size sent, with FCS."),
	GEN_ROW(U64, frame_bytes_max, 0, NULL, NONE, "bytes",
		"Largest frame size, with FCS."),
	GEN_ROW(U64, sizes, 0, NULL, NONE, "sizes", "Entries of the size table."),
	GEN_ROW(U64, vlan_tags, 0, NULL, NONE, "tags", "VLAN tags on each frame."),
	GEN_ROW(U64, flow_base, 0, NULL, NONE, "id", "Flow id of the task's first flow."),
	GEN_ROW(U64, flows, 0, NULL, NONE, "flows", "Flows the task sends."),
	GEN_ROW(REAL, rate_pps, 0, NULL, NONE, "frames/s",
		"The rate asked, in frames a second."),
	GEN_ROW(REAL, offered, P, "gen_offered_ratio", GAUGE, "ratio",
		"Rate gen offered over the rate asked, over its run so far."),
	GEN_ROW(REAL, send_s, P, NULL, NONE, "s",
		"The sending time the offered ratio is over."),
	GEN_ROW(REAL, achieved_pps, P, NULL, NONE, "frames/s",
		"Frames sent over the sending time."),
	GEN_ROW(U64, late_packets, P, "gen_late_packets_total", COUNTER, "frames",
		"Frames gen sent later than their schedule after a stall."),
	GEN_ROW(U64, refused_packets, P, NULL, NONE, "frames",
		"Of the late, those the port held back (its queue refused them)."),
	GEN_ROW(U64, caught_up_packets, P, NULL, NONE, "frames",
		"Frames sent behind their schedule to catch up."),
	GEN_ROW(REAL, max_stall_us, P, NULL, NONE, "us",
		"Longest the task fell behind its schedule."),
	GEN_ROW(REAL, catch_up_us, P, NULL, NONE, "us",
		"The most a stalled gen catches up (--catch-up)."),
	GEN_ROW(REAL, rate_tolerance, P, NULL, NONE, "ratio",
		"The offered ratio below which the run is short."),
};
#undef P
#undef GEN_ROW

static const struct lr_counters gen_counters = LR_COUNTERS(gen_rows);

static void
gen_report(const struct lr_task *t, json_t *o)
{
	struct gen *g = t->priv;
	double hz = (double)rte_get_tsc_hz(), window, offered;
	struct gen_counts c = {
		.frame_bytes_mean = g->mean_frame,
		.frame_bytes_max = g->max_len + LR_FCS_BYTES,
		.sizes = g->nb_sizes,
		.vlan_tags = lr_gen_tags(&g->conf),
		.flow_base = g->first_flow,
		.flows = g->nb_flows,
		.rate_pps = g->rate_pps,
	};
	json_t *changes, *counts;
	struct offer of;
	char rs[64];

	/* The records first, then the offered ratio, as before the table:
	 * the records reap what the worker took. */
	changes = lr_changes_json(&g->changes);
	counts = lr_changes_counts_json(&g->changes);
	if (g->paced) {
		of = offered_of(t);
		offered = of.ratio;
		window = of.window_tsc;
		c.offered = offered;
		c.send_s = window / hz;
		c.achieved_pps = window > 0 ? (double)t->st.tx_pkts * hz / window : 0;
		c.late_packets = (uint64_t)(of.late_pkts + 0.5);
		/* Of those, what the port held back (its queue refused the
		 * frames while the worker polled): a peer that pushes back,
		 * not the host. */
		c.refused_packets = (uint64_t)(g->mean_cost > 0 ?
			RTE_MIN((double)g->refused_tsc / g->mean_cost,
				of.late_pkts) + 0.5 : 0);
		c.caught_up_packets = g->caught_up;
		c.max_stall_us = (double)g->max_lag_seen_tsc * 1e6 / hz;
		c.catch_up_us = g->conf.catch_up_s * 1e6;
		c.rate_tolerance = g->conf.rate_tolerance;
	}
	lr_counters_json(o, &gen_counters, &c, g->paced ? GEN_PACED : 0);
	json_object_set_new(o, "ipv6", json_boolean(g->ipv6));
	json_object_set_new(o, "rate", json_string(lr_rate_str(&g->conf.rate, rs,
							       sizeof(rs))));
	json_object_set_new(o, "fixed", json_boolean(g->fixed));
	if (g->rp != NULL)
		lr_replay_report(g, o);
	json_object_set_new(o, "rate_changes", changes);
	json_object_set_new(o, "rate_changes_counts", counts);
	if (g->paced)
		json_object_set_new(o, "short", json_boolean(
				    lr_gen_is_short(c.offered, g->conf.rate_tolerance)));
}

static enum lr_verdict
gen_verdict(const struct lr_task *t, char *why, size_t len)
{
	const struct gen *g = t->priv;
	const struct lr_port_info *pi = lr_port_info(t->port);
	double offered, hz = (double)rte_get_tsc_hz();
	struct offer of;
	char rs[96], share[64];

	if (g == NULL)
		return LR_VERDICT_OK;
	if (g->failed) {
		snprintf(why, len, "%s", g->why);
		return LR_VERDICT_FAILED;
	}
	if (!g->paced || t->st.start_tsc == 0)
		return LR_VERDICT_OK;
	of = offered_of(t);
	offered = of.ratio;
	if (!lr_gen_is_short(offered, g->conf.rate_tolerance))
		return LR_VERDICT_OK;
	if (of.changes > 0 && g->rp != NULL && !g->conf.rate_given)
		snprintf(rs, sizeof(rs), "the schedule asked (the capture's "
			 "timing x %g, %u multiplier changes)", g->conf.speed,
			 of.changes);
	else if (of.changes > 0)
		snprintf(rs, sizeof(rs), "the schedule asked (%s, %u rate "
			 "changes)", lr_rate_str(&g->conf.rate, share,
						 sizeof(share)), of.changes);
	else if (g->rp != NULL && !g->conf.rate_given)
		/* A replay at the capture's timing: its rate is the
		 * capture's over --multiplier, not --rate's default (max). */
		snprintf(rs, sizeof(rs), "the capture's timing x %g",
			 g->conf.speed);
	else
		lr_rate_str(&g->conf.rate, rs, sizeof(rs));
	if (g->conf.slices > 1)
		snprintf(share, sizeof(share), " (this queue's 1/%u: %.0f pps)",
			 g->conf.slices, g->rate_pps);
	else if (of.changes > 0)
		share[0] = '\0';
	else if (g->rp != NULL || g->conf.rate.unit != LR_RATE_PPS)
		snprintf(share, sizeof(share), " (%.0f pps)", g->rate_pps);
	else
		share[0] = '\0';
	snprintf(why, len, "port %s queue %u: rate short: offered %.3f %% of "
		 "%s%s < %.3g %%; %.0f packets late after stalls (longest "
		 "%.0f us)", pi ? pi->name : "?", t->queue, offered * 100,
		 rs, share,
		 g->conf.rate_tolerance * 100, of.late_pkts,
		 (double)g->max_lag_seen_tsc * 1e6 / hz);
	return LR_VERDICT_SHORT;
}

/* The live words: the lowest offered ratio of the running paced gens,
 * flagged SHORT below its tolerance; FAILED for a gen whose port stopped. */
static void
gen_live(char *buf, size_t len)
{
	unsigned int it = 0, paced = 0;
	const struct lr_task *t;
	double worst = 2, tol = 0;
	bool failed = false;

	buf[0] = '\0';
	while ((t = lr_role_next(&lr_gen_role, &it)) != NULL) {
		const struct gen *g;
		double o;

		if (lr_task_state(t) != LR_TASK_RUNNING)
			continue;
		g = t->priv;
		failed |= g->failed;
		if (!g->paced || t->st.start_tsc == 0)
			continue;
		paced++;
		o = offered_of(t).ratio;
		if (o < worst) {
			worst = o;
			tol = g->conf.rate_tolerance;
		}
	}
	if (paced > 0)
		snprintf(buf, len, "offered %.3f %%%s%s", worst * 100,
			 lr_gen_is_short(worst, tol) ? " SHORT" : "",
			 failed ? " FAILED" : "");
	else if (failed)
		snprintf(buf, len, "FAILED");
}

/*
 * The control path's watch over running gens: a gen whose packets wait
 * (built but refused by the queue, or no mbuf to build them in) and whose
 * tx counter has not moved for its stall timeout is sending into a port
 * that stopped taking frames: a link down, a memif peer gone or not
 * reading. Without this it would wait for ever. The task is ended and its
 * verdict is FAILED. Checked every few ms, never on the fast path.
 */
static void
gen_tick(void)
{
	static uint64_t last_tsc;
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	unsigned int it = 0;
	struct lr_task *t;

	if (now - last_tsc < (uint64_t)(hz * GEN_STALL_CHECK_S))
		return;
	last_tsc = now;
	while ((t = lr_role_next(&lr_gen_role, &it)) != NULL) {
		const struct lr_port_info *pi;
		struct rte_eth_link link;
		uint64_t tx, af, retry;
		struct gen *g;
		bool waiting, down, tried;
		char sent[64];

		if (lr_task_state(t) != LR_TASK_RUNNING)
			continue;
		g = t->priv;
		if (g->failed || g->conf.stall_timeout_s == 0)
			continue;
		tx = __atomic_load_n(&t->st.tx_pkts, __ATOMIC_RELAXED);
		af = __atomic_load_n(&t->st.alloc_fail, __ATOMIC_RELAXED);
		retry = __atomic_load_n(&t->st.tx_retry, __ATOMIC_RELAXED);
		waiting = __atomic_load_n(&g->nb_pend, __ATOMIC_RELAXED) != 0 ||
			  af != g->ctl_alloc_fail;
		/* Tried since the last look: the queue refused it, or the pool
		 * had no mbuf. A worker that did not try was not run by the
		 * host: that is its own stall (counted late), not the peer's. */
		tried = retry != g->ctl_retry || af != g->ctl_alloc_fail;
		g->ctl_retry = retry;
		if (g->ctl_since_tsc == 0 || tx != g->ctl_tx || !waiting || !tried) {
			/* Moving, idle by its schedule, or not run: not stalled. */
			g->ctl_tx = tx;
			g->ctl_alloc_fail = af;
			g->ctl_since_tsc = now;
			continue;
		}
		if (now - g->ctl_since_tsc < (uint64_t)(hz * g->conf.stall_timeout_s))
			continue;
		pi = lr_port_info(t->port);
		down = rte_eth_link_get_nowait(t->port, &link) == 0 &&
		       link.link_status == RTE_ETH_LINK_DOWN;
		if (g->want_pkts != 0)
			snprintf(sent, sizeof(sent), "%" PRIu64 " of %" PRIu64
				 " sent", tx, g->want_pkts);
		else
			snprintf(sent, sizeof(sent), "%" PRIu64 " sent", tx);
		snprintf(g->why, sizeof(g->why), "port %s queue %u: %s for %.1f s, "
			 "%s; task ended", pi ? pi->name : "?", t->queue,
			 down ? "link down" : "peer not receiving (link up)",
			 (double)(now - g->ctl_since_tsc) / hz, sent);
		g->failed = true;
		GLOG(ERR, "%s", g->why);
		lr_task_stop(t);
	}
}

/*
 * The worker takes a published pacing at its first poll after it, between
 * two bursts: the packets built so far kept the old rate's slots, the
 * schedule's next slot (at most a burst of the old rate ahead, or behind by
 * what the worker lagged) is the new rate's first. No slot is dropped or
 * given twice: the schedule's time runs on, only the costs of the packets
 * after it change. But a next slot further than a burst of the new rate
 * away (after 0.001 pps: 1000 s, issue 35 M1) would hold the new rate
 * back that long: what is left of the last burst's slots is then taken
 * at the new rate (shortened by the ratio of the costs), so that a change
 * takes effect within a burst of either rate. Rare: out of line.
 */
void __rte_noinline
lr_gen_pace_switch(const struct lr_task *t, struct gen *g, struct gen_pace *p,
	    uint64_t now)
{
	struct lr_gen_sched *sc = &g->sched;
	double ahead, whole;

	if (sc->first_tsc == 0)	/* before the first burst */
		sc->first_tsc = sc->next_tsc = now;
	ahead = sc->next_tsc > now ?
		(double)(sc->next_tsc - now) + sc->next_frac : 0;
	if (ahead > g->burst * p->mean_cost && p->mean_cost < g->mean_cost) {
		ahead *= p->mean_cost / g->mean_cost;
		whole = (double)(uint64_t)ahead;
		sc->next_tsc = now + (uint64_t)whole;
		sc->next_frac = ahead - whole;
	}
	lr_gen_pace_use(g, p);
	p->slot_tsc = g->sched.next_tsc;
	p->slot_frac = g->sched.next_frac;
	p->late_tsc = g->sched.late_tsc;
	p->pkts_before = t->st.tx_pkts;	/* none pending: flushed first */
	/* The TSC now, not the poll's start: that may precede the ask. */
	lr_change_taken(&g->changes, &p->ch, rte_rdtsc());
}

/* task:set{rate=}: a new pacing for the worker to take. Control path. */
static int
gen_set(struct lr_task *t, const char *key, const char *val)
{
	struct gen *g = t->priv;
	struct gen_pace *p;
	struct lr_rate r;
	int ret;

	if (g->rp != NULL) {
		/* A replay: its multiplier, or its rate under --rate. */
		ret = lr_replay_set(t, g, key, val, &p);
		if (ret != 0)
			return ret;
		goto publish;
	}
	if (strcmp(key, "rate") != 0)
		return lr_err(EINVAL, "gen: set: '%s' cannot change live (rate "
			      "can%s)", key, strcmp(key, "multiplier") == 0 ?
			      "; multiplier is a --pcap replay's" : "");
	if (lr_rate_parse(val, &r) != 0)
		return lr_err(EINVAL, "gen: set rate '%s': want PPS, 1.5Mpps, "
			      "10Gbps, 10Gbpsl1 or N%%", val);
	if (!g->paced || r.unit == LR_RATE_MAX)
		return lr_err(EINVAL, "gen: set rate %s: a task cannot change "
			      "between paced and unpaced (max) live", val);
	p = lr_gen_pace_new(g, t->socket);
	if (p == NULL)
		return lr_err(ENOMEM, "gen: set rate: no memory");
	ret = pace_of(g, lr_port_info(t->port), &r, (double)rte_get_tsc_hz(), p);
	if (ret != 0) {
		rte_free(p);
		return ret;
	}
publish:
	ret = lr_changes_publish(&g->changes, &p->ch);
	if (ret != 0)
		rte_free(p);
	return ret;
}

/* The fast path: one burst per poll. */
static int
gen_poll(struct lr_task *t, uint64_t now)
{
	struct gen *g = t->priv;
	uint64_t tsc, due = UINT64_MAX;
	double cost = 0;
	uint16_t n, i;

	lr_gen_polled(g, now);
	if (unlikely(g->rp != NULL))
		return lr_replay_poll(t, g, now);
	if (g->nb_pend != 0 && !lr_gen_flush(t, g))
		return 0;
	if (g->remaining == 0) {
		lr_gen_note_done(g);
		return 1;
	}
	if (g->paced) {
		struct lr_gen_sched *sc = &g->sched;
		struct gen_pace *p;
		uint64_t lag;
		double owed;

		/* A new rate (task:set{}): the fast path's one load for it,
		 * before the catch-up bound moves a late schedule on, so
		 * that the switch's record has the lag the worker had. */
		p = (struct gen_pace *)lr_change_peek(&g->changes);
		if (unlikely(p != NULL))
			lr_gen_pace_switch(t, g, p, now);
		if (!lr_gen_due(g, now, &lag))
			return 0;		/* not yet due */
		/* Only what is due: a burst is sent early by no packet,
		 * so that a run of T seconds sends T x rate, not a burst
		 * more. Behind the schedule, up to a burst at once. */
		owed = (double)lag - sc->next_frac;
		due = owed > 0 ? 1 + (uint64_t)(owed / g->mean_cost) : 1;
	}
	n = due < g->burst ? (uint16_t)due : g->burst;
	if (n > g->remaining)
		n = (uint16_t)g->remaining;
	/* More than two bursts behind: making up a stall, faster than the
	 * rate (a burst the paced load would not make). */
	if (unlikely(due > 2u * g->burst) && due != UINT64_MAX)
		g->caught_up += n;
	/* Raw mbufs: a pool mbuf keeps refcnt 1, one segment and, since
	 * only this task writes them, the frame and lengths it was sent
	 * with; rte_pktmbuf_alloc_bulk would reset what is already right. */
	if (rte_mempool_get_bulk(g->pool, (void **)g->pend, n) != 0) {
		t->st.alloc_fail++;
		return 0;
	}
	if (g->fixed) {
		g->nb_pend = n;
		g->remaining -= n;
		if (g->paced)
			lr_gen_advance(&g->sched, n * g->sizes[0].cost);
		lr_gen_flush(t, g);
		lr_gen_note_done(g);
		return 0;
	}
	tsc = rte_rdtsc();
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = g->pend[i];
		struct gen_flow *f = &g->flows[g->next_flow];
		const struct gen_size *s = &g->sizes[g->next_size];

		if (unlikely(s->len + LR_FCS_BYTES >= g->bytes_left)) {
			/* The byte budget ends with this frame. */
			g->bytes_left = 0;
			g->remaining = 0;
			rte_mempool_put_bulk(g->pool, (void **)&g->pend[i + 1],
					     n - i - 1);
			n = i + 1;
		} else if (g->bytes_left != UINT64_MAX) {
			g->bytes_left -= s->len + LR_FCS_BYTES;
		}
		if (++g->next_flow == g->nb_flows)
			g->next_flow = 0;
		if (++g->next_size == g->nb_sizes)
			g->next_size = 0;
		m->data_len = (uint16_t)s->len;
		m->pkt_len = s->len;
		write_frame(g, rte_pktmbuf_mtod(m, uint8_t *), f, s,
			    f->id, f->seq++, tsc);
		cost += s->cost;
	}
	g->nb_pend = n;
	if (g->remaining != 0)
		g->remaining -= n;
	if (g->paced)
		lr_gen_advance(&g->sched, cost);
	lr_gen_flush(t, g);
	lr_gen_note_done(g);
	return 0;
}

static const struct lr_task_kind gen_task = {
	.uses_tx = true,
	.init = gen_init,
	.poll = gen_poll,
	.finish = gen_finish,
	.report = gen_report,
	.free = gen_free,
	.verdict = gen_verdict,
	.slice = lr_gen_conf_slice,
	.set = gen_set,
	.counters = &gen_counters,
};

static const struct lr_report gen_report_ops = {
	.live = gen_live,
};

static const struct lr_lifecycle gen_life = {
	.tick = gen_tick,
};

const struct lr_role lr_gen_role = {
	.name = "gen",
	.opts = lr_gen_opts,
	.conf_bytes = sizeof(struct lr_gen_conf),
	.conf_init = lr_gen_conf_init_any,
	.conf_set = lr_gen_conf_set_key,
	.conf_check = lr_gen_conf_check,
	.task = &gen_task,
	.report = &gen_report_ops,
	.life = &gen_life,
};
