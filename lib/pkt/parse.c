/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "lr_parse.h"
#include "lr_parse_mbuf.h"
#include "lr_pkt.h"

enum { P_ICMP = 1, P_TCP = 6, P_UDP = 17, P_ICMPV6 = 58, P_SCTP = 132 };

const char *const lr_parse_reason_names[LR_PARSE_REASONS] = {
	[LR_PARSE_OK] = "ok",
	[LR_PARSE_NOT_IP] = "not_ip",
	[LR_PARSE_TRUNC_L2] = "trunc_l2",
	[LR_PARSE_TRUNC_L3] = "trunc_l3",
	[LR_PARSE_BAD_IHL] = "bad_ihl",
	[LR_PARSE_BAD_LEN] = "bad_len",
	[LR_PARSE_BAD_EXT] = "bad_ext",
	[LR_PARSE_TRUNC_L4] = "trunc_l4",
};

/* The reasons are the locator's, by number: a result passes through. */
_Static_assert(LR_PARSE_REASONS == (int)LR_PKT_RESULTS &&
	       LR_PARSE_TRUNC_L4 == (int)LR_PKT_TRUNC_L4 &&
	       LR_PARSE_BAD_LEN == (int)LR_PKT_BAD_LEN,
	       "lr_parse_result and lr_pkt_result differ");
_Static_assert(LR_FRAG_LATER == (int)LR_PKT_FRAG_LATER &&
	       LR_FRAG_FIRST == (int)LR_PKT_FRAG_FIRST,
	       "lr_frag and lr_pkt_frag differ");
/* lr_parsed's bit fields hold what the locator may find, and the record
 * stays 7 words (a burst's records were 64 B with a byte each). */
_Static_assert(LR_PKT_LABELS_MAX < 16 && LR_FRAG_LATER < 4 &&
	       sizeof(struct lr_parsed) == 56, "lr_parsed's packing");

/* Ports, flags or ICMP type and code from the transport header at @p off
 * of the @p end bytes that belong to this packet: one switch on the
 * protocol, as each needs its own bytes (lr_pkt_l4_min()). */
static inline enum lr_parse_result
transport(const uint8_t *d, uint32_t off, uint32_t end, struct lr_parsed *p)
{
	if (p->frag == LR_FRAG_LATER)
		return LR_PARSE_OK;	/* the first fragment had the ports */
	switch (p->proto) {
	case P_UDP:
	case P_SCTP:
	case P_TCP:
		if (off + lr_pkt_l4_min(p->proto) > end)
			return LR_PARSE_TRUNC_L4;
		p->sport = lr_pkt_rd16(d + off);
		p->dport = lr_pkt_rd16(d + off + 2);
		if (p->proto == P_TCP)
			p->tcp_flags = lr_pkt_rd16(d + off + 12) & 0x0fff;
		break;
	case P_ICMP:
	case P_ICMPV6:
		if (off + lr_pkt_l4_min(p->proto) > end)
			return LR_PARSE_TRUNC_L4;
		p->dport = lr_pkt_rd16(d + off);
		break;
	default:
		return LR_PARSE_OK;	/* a 3-tuple flow */
	}
	p->l4_off = (uint16_t)off;
	return LR_PARSE_OK;
}

enum lr_parse_result
lr_parse(const uint8_t *d, uint32_t len, struct lr_parsed *p)
{
	return lr_parse_wire(d, len, len, p);
}

/* The locator finds the headers (lr_pkt.h); this reads what a flow record
 * needs of them. */
enum lr_parse_result
lr_parse_wire(const uint8_t *d, uint32_t len, uint32_t wire, struct lr_parsed *p)
{
	struct lr_pkt k;
	enum lr_pkt_result r;
	uint32_t l3;

	memset(p, 0, sizeof(*p));
	r = lr_pkt_locate(d, len, wire, &k);
	if (r != LR_PKT_OK)
		return (enum lr_parse_result)r;
	l3 = k.l3;
	p->vlan = k.vlan;
	p->vlan_inner = k.vlan_inner;
	p->mpls = k.mpls;
	p->proto = k.proto;
	p->frag = k.frag;
	p->frag_id = k.frag_id;
	p->ip_bytes = k.l3_end - l3;
	if (k.l3type == LR_PKT_L3_IPV4) {
		p->tos = d[l3 + 1];
		p->ttl = d[l3 + 8];
		memcpy(p->src, d + l3 + 12, 4);
		memcpy(p->dst, d + l3 + 16, 4);
	} else {
		p->ipv6 = 1;
		p->tos = (uint8_t)(lr_pkt_rd16(d + l3) >> 4);
		p->ttl = d[l3 + 7];
		memcpy(p->src, d + l3 + 8, 16);
		memcpy(p->dst, d + l3 + 24, 16);
	}
	return transport(d, k.l4, RTE_MIN(k.l3_end, len), p);
}

enum lr_parse_result
lr_parse_chain(const struct rte_mbuf *m, uint32_t trim, struct lr_parsed *p)
{
	uint8_t buf[LR_PARSE_GATHER_BYTES];
	uint32_t len = RTE_MIN(RTE_MIN(m->pkt_len, trim),
			       (uint32_t)LR_PARSE_GATHER_BYTES);
	const uint8_t *d = rte_pktmbuf_read(m, 0, len, buf);

	if (d == NULL)
		return LR_PARSE_TRUNC_L2;	/* a chain shorter than pkt_len */
	return lr_parse_wire(d, len, m->pkt_len, p);
}
