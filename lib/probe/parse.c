/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "lr_parse.h"
#include "lr_parse_mbuf.h"

#define ETH_HLEN 14
#define TYPE_IPV4 0x0800
#define TYPE_IPV6 0x86dd
#define TYPE_VLAN 0x8100
#define TYPE_QINQ 0x88a8
#define TYPE_QINQ_OLD 0x9100
#define TYPE_MPLS 0x8847
#define TYPE_MPLS_MC 0x8848
#define MAX_VLANS 2
#define MAX_LABELS 8
#define MAX_EXT 8

enum { P_HOPOPT = 0, P_ICMP = 1, P_TCP = 6, P_UDP = 17, P_ROUTING = 43,
       P_FRAGMENT = 44, P_AH = 51, P_ICMPV6 = 58, P_NONE = 59, P_DSTOPTS = 60,
       P_SCTP = 132 };

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

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

/* Ports, flags or ICMP type and code from the transport header at @p off
 * of the @p end bytes that belong to this packet. */
static enum lr_parse_result
transport(const uint8_t *d, uint32_t off, uint32_t end, struct lr_parsed *p)
{
	uint32_t need;

	switch (p->proto) {
	case P_TCP:
		need = 20;
		break;
	case P_UDP:
		need = 8;
		break;
	case P_SCTP:
		need = 12;
		break;
	case P_ICMP:
	case P_ICMPV6:
		need = 4;
		break;
	default:
		return LR_PARSE_OK;	/* a 3-tuple flow */
	}
	if (p->frag == LR_FRAG_LATER)
		return LR_PARSE_OK;	/* the first fragment had the ports */
	if (off + need > end)
		return LR_PARSE_TRUNC_L4;
	p->l4_off = (uint16_t)off;
	if (p->proto == P_ICMP || p->proto == P_ICMPV6) {
		p->dport = (uint16_t)(d[off] << 8 | d[off + 1]);
		return LR_PARSE_OK;
	}
	p->sport = rd16(d + off);
	p->dport = rd16(d + off + 2);
	if (p->proto == P_TCP)
		p->tcp_flags = rd16(d + off + 12) & 0x0fff;
	return LR_PARSE_OK;
}

/* @p len bytes were captured of a @p wire byte frame: headers must lie in
 * the first, lengths agree with the second. */
static enum lr_parse_result
ipv4(const uint8_t *d, uint32_t off, uint32_t len, uint32_t wire,
     struct lr_parsed *p)
{
	uint32_t ihl, tot;
	uint16_t frag;

	if (off + 20 > len)
		return LR_PARSE_TRUNC_L3;
	ihl = (d[off] & 0xfu) * 4;
	if (ihl < 20)
		return LR_PARSE_BAD_IHL;
	if (off + ihl > len)
		return LR_PARSE_TRUNC_L3;
	tot = rd16(d + off + 2);
	if (tot < ihl || off + tot > wire)
		return LR_PARSE_BAD_LEN;
	p->ipv6 = 0;
	p->tos = d[off + 1];
	p->ttl = d[off + 8];
	p->proto = d[off + 9];
	memcpy(p->src, d + off + 12, 4);
	memcpy(p->dst, d + off + 16, 4);
	p->ip_bytes = tot;
	p->frag_id = rd16(d + off + 4);
	frag = rd16(d + off + 6);
	if (frag & 0x1fff)
		p->frag = LR_FRAG_LATER;
	else if (frag & 0x2000)
		p->frag = LR_FRAG_FIRST;
	return transport(d, off + ihl, RTE_MIN(off + tot, len), p);
}

static enum lr_parse_result
ipv6(const uint8_t *d, uint32_t off, uint32_t len, uint32_t wire,
     struct lr_parsed *p)
{
	uint32_t end, lim, next, i;
	uint8_t nh;

	if (off + 40 > len)
		return LR_PARSE_TRUNC_L3;
	end = off + 40 + rd16(d + off + 4);
	if (end > wire)
		return LR_PARSE_BAD_LEN;
	lim = RTE_MIN(end, len);	/* what there is to read */
	p->ipv6 = 1;
	p->tos = (uint8_t)(rd16(d + off) >> 4);
	p->ttl = d[off + 7];
	memcpy(p->src, d + off + 8, 16);
	memcpy(p->dst, d + off + 24, 16);
	p->ip_bytes = end - off;
	nh = d[off + 6];
	next = off + 40;
	for (i = 0; ; i++) {
		if (nh != P_HOPOPT && nh != P_ROUTING && nh != P_FRAGMENT &&
		    nh != P_DSTOPTS && nh != P_AH)
			break;
		if (i == MAX_EXT)
			return LR_PARSE_BAD_EXT;
		if (next + 8 > lim)
			return lim < end ? LR_PARSE_TRUNC_L4 : LR_PARSE_BAD_EXT;
		if (nh == P_FRAGMENT) {
			uint16_t fo = rd16(d + next + 2);

			p->frag_id = rd32(d + next + 4);
			p->frag = (fo & 0xfff8) ? LR_FRAG_LATER :
				  (fo & 1) ? LR_FRAG_FIRST : LR_FRAG_NONE;
			nh = d[next];
			next += 8;
		} else if (nh == P_AH) {
			uint32_t l = (d[next + 1] + 2u) * 4;	/* RFC 4302 */

			nh = d[next];
			next += l;
		} else {
			uint32_t l = (d[next + 1] + 1u) * 8;

			nh = d[next];
			next += l;
		}
		if (next > end)
			return LR_PARSE_BAD_EXT;
		if (p->frag == LR_FRAG_LATER)
			break;	/* what follows is not a header */
	}
	p->proto = nh;
	return transport(d, next, lim, p);
}

enum lr_parse_result
lr_parse(const uint8_t *d, uint32_t len, struct lr_parsed *p)
{
	return lr_parse_wire(d, len, len, p);
}

enum lr_parse_result
lr_parse_wire(const uint8_t *d, uint32_t len, uint32_t wire, struct lr_parsed *p)
{
	uint32_t off = ETH_HLEN, i;
	uint16_t type;

	memset(p, 0, sizeof(*p));
	if (len < ETH_HLEN)
		return LR_PARSE_TRUNC_L2;
	type = rd16(d + 12);
	for (i = 0; i < MAX_VLANS && (type == TYPE_VLAN || type == TYPE_QINQ ||
				      type == TYPE_QINQ_OLD); i++) {
		if (off + 4 > len)
			return LR_PARSE_TRUNC_L2;
		if (i == 0)
			p->vlan = rd16(d + off) & 0x0fff;
		type = rd16(d + off + 2);
		off += 4;
	}
	if (type == TYPE_MPLS || type == TYPE_MPLS_MC) {
		for (i = 0; ; i++) {
			if (i == MAX_LABELS || off + 4 > len)
				return LR_PARSE_TRUNC_L2;
			off += 4;
			if (d[off - 2] & 1)	/* bottom of stack */
				break;
		}
		p->mpls = (uint8_t)(i + 1);
		if (off >= len)
			return LR_PARSE_TRUNC_L3;
		type = (d[off] >> 4) == 4 ? TYPE_IPV4 :
		       (d[off] >> 4) == 6 ? TYPE_IPV6 : 0;
		if (type == 0)
			return LR_PARSE_BAD_IHL;
	}
	if (type == TYPE_IPV4) {
		if (off < len && (d[off] >> 4) != 4)
			return LR_PARSE_BAD_IHL;
		return ipv4(d, off, len, wire, p);
	}
	if (type == TYPE_IPV6) {
		if (off < len && (d[off] >> 4) != 6)
			return LR_PARSE_BAD_IHL;
		return ipv6(d, off, len, wire, p);
	}
	return LR_PARSE_NOT_IP;
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
