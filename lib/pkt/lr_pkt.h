/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The packet-header locator: where a frame's network and transport headers
 * are, found one way for every role (the probe's parser, the distributor,
 * rx, reflect, gen --pcap), so that what one role calls an IP packet of
 * linerate's another does too.
 *
 * It walks Ethernet; up to LR_PKT_TAGS_MAX VLAN tags, each 802.1Q (0x8100),
 * 802.1ad (0x88a8) or the old QinQ type (0x9100), in any order; an MPLS
 * label stack (0x8847, 0x8848; up to LR_PKT_LABELS_MAX labels, then IPv4 or
 * IPv6 by the version nibble, as RFC 3032 leaves the payload to the
 * label's binding and routers guess it so); IPv4 with options (fragments
 * flagged, a later fragment has no transport header); IPv6 with hop-by-hop,
 * routing, fragment, destination options (RFC 8200 4.3-4.6) and AH (RFC
 * 4302: its length in 4-byte units, less 2) extension headers, up to
 * LR_PKT_EXT_MAX of them. What it gives is offsets and the protocol; the
 * fields are the caller's to read, within the bytes it has.
 *
 * Bounded: it reads none of the @p len bytes' successors. A header cut by
 * the end of the bytes is said (LR_PKT_TRUNC_*), never read past.
 *
 * Fast path: inline, no allocation, no loop for the untagged IPv4/IPv6
 * frame but the extension walk's one test of the next header.
 *
 * Threading: pure functions of the bytes, for any lcore.
 */
#ifndef LR_PKT_H
#define LR_PKT_H

#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#define LR_PKT_ETH_BYTES 14
#define LR_PKT_TAGS_MAX 2	/**< VLAN tags walked; a third is not IP */
#define LR_PKT_LABELS_MAX 8	/**< MPLS labels walked; more: trunc_l2 */
#define LR_PKT_EXT_MAX 8	/**< IPv6 extension headers; more: bad_ext */

/** The most header bytes before the IP header: Ethernet, the tags, the
 *  labels. */
#define LR_PKT_L2_MAX (LR_PKT_ETH_BYTES + 4 * LR_PKT_TAGS_MAX + \
		       4 * LR_PKT_LABELS_MAX)

/**
 * What the locator found. The numbers are the probe's parse reasons
 * (lr_parse.h) and the firmware model's status (lr_fw.h): keep them.
 */
enum lr_pkt_result {
	LR_PKT_OK = 0,
	LR_PKT_NOT_IP,		/**< ARP, LLDP, a third tag, ...: no IP */
	LR_PKT_TRUNC_L2,	/**< cut in its Ethernet, VLAN or MPLS headers */
	LR_PKT_TRUNC_L3,	/**< cut in its IP header (or IPv4 options) */
	LR_PKT_BAD_IHL,		/**< IPv4 IHL < 5, or an IP version that is
				 *   not the EtherType's (or, after MPLS, not
				 *   4 or 6) */
	LR_PKT_BAD_LEN,		/**< an IP length below its header or past
				 *   @p wire; the headers are located all the
				 *   same (l3, l4, proto) */
	LR_PKT_BAD_EXT,		/**< an IPv6 extension chain that does not end
				 *   inside its payload, or more than
				 *   LR_PKT_EXT_MAX */
	LR_PKT_TRUNC_L4,	/**< an extension header cut by the end of the
				 *   bytes, inside the payload */
	LR_PKT_RESULTS
};

enum lr_pkt_l3 {
	LR_PKT_L3_NONE = 0,
	LR_PKT_L3_IPV4,
	LR_PKT_L3_IPV6,
};

enum lr_pkt_frag {
	LR_PKT_FRAG_NONE = 0,
	LR_PKT_FRAG_FIRST,	/**< offset 0, more fragments: has the ports */
	LR_PKT_FRAG_LATER,	/**< offset > 0: no transport header */
};

/** Where a frame's headers are: offsets from its first byte. */
struct lr_pkt {
	uint32_t l3_end;	/**< where the IP datagram ends, as its length
				 *   field says (may lie past the bytes) */
	uint32_t frag_id;	/**< IPv4 identification, or the IPv6 fragment
				 *   header's; host order */
	uint16_t l3;		/**< IP header, 0: none. Set once its fixed
				 *   part (20 or 40 bytes) is in the bytes and
				 *   its version is right, whatever follows */
	uint16_t l4;		/**< transport header, 0: none (not reached,
				 *   or a later fragment). May lie at or past
				 *   the bytes' end (a trimmed capture): check
				 *   l4 + what you read against @p len */
	uint16_t vlan;		/**< the outer tag's VLAN id, 0: untagged */
	uint16_t vlan_inner;	/**< the second tag's VLAN id (QinQ's C-VID,
				 *   IPFIX dot1qCustomerVlanId), 0: fewer
				 *   than two tags */
	uint8_t l3type;		/**< enum lr_pkt_l3 */
	uint8_t proto;		/**< the transport protocol, after IPv6's
				 *   extension headers (valid with l4, or for a
				 *   later fragment) */
	uint8_t frag;		/**< enum lr_pkt_frag */
	uint8_t tags;		/**< VLAN tags walked */
	uint8_t mpls;		/**< MPLS labels walked */
};

/* Big-endian reads at any alignment. */
static inline uint16_t
lr_pkt_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
lr_pkt_rd32(const uint8_t *p)
{
	return (uint32_t)lr_pkt_rd16(p) << 16 | lr_pkt_rd16(p + 2);
}

/** Whether @p type (host order) is a VLAN tag's EtherType. */
static inline int
lr_pkt_is_tag(uint16_t type)
{
	return type == 0x8100 || type == 0x88a8 || type == 0x9100;
}

/* IPv6 next headers that are extension headers the walk steps over:
 * hop-by-hop 0, routing 43, fragment 44, AH 51, destination options 60. */
#define LR_PKT_EXT_MASK ((1ull << 0) | (1ull << 43) | (1ull << 44) | \
			 (1ull << 51) | (1ull << 60))

static inline int
lr_pkt_is_ext(uint8_t nh)
{
	return nh < 64 && ((LR_PKT_EXT_MASK >> nh) & 1);
}

static inline enum lr_pkt_result
lr_pkt_ipv4(const uint8_t *d, uint32_t off, uint32_t len, uint32_t wire,
	    struct lr_pkt *p)
{
	uint32_t ihl, tot;
	uint16_t fo;

	if (unlikely(off + 20 > len))
		return off < len && (d[off] >> 4) != 4 ? LR_PKT_BAD_IHL :
		       LR_PKT_TRUNC_L3;
	/* Version 4 and IHL >= 5 in one compare: 0x45..0x4f. */
	if (unlikely((uint8_t)(d[off] - 0x45) > 0x0a))
		return LR_PKT_BAD_IHL;
	ihl = (d[off] & 0xfu) * 4;
	p->l3 = (uint16_t)off;
	p->l3type = LR_PKT_L3_IPV4;
	if (off + ihl > len)
		return LR_PKT_TRUNC_L3;
	tot = lr_pkt_rd16(d + off + 2);
	p->l3_end = off + tot;
	p->proto = d[off + 9];
	p->frag_id = lr_pkt_rd16(d + off + 4);
	fo = lr_pkt_rd16(d + off + 6);
	if (unlikely(fo & 0x3fff)) {	/* MF or an offset (RFC 791) */
		p->frag = (fo & 0x1fff) ? LR_PKT_FRAG_LATER : LR_PKT_FRAG_FIRST;
		if (p->frag == LR_PKT_FRAG_LATER)
			goto len;
	}
	p->l4 = (uint16_t)(off + ihl);
len:
	if (unlikely(tot < ihl || off + tot > wire))
		return LR_PKT_BAD_LEN;
	return LR_PKT_OK;
}

static inline enum lr_pkt_result
lr_pkt_ipv6(const uint8_t *d, uint32_t off, uint32_t len, uint32_t wire,
	    struct lr_pkt *p)
{
	enum lr_pkt_result r = LR_PKT_OK;
	uint32_t end, lim, next, i;
	uint8_t nh;

	if (unlikely(off + 40 > len))
		return off < len && (d[off] >> 4) != 6 ? LR_PKT_BAD_IHL :
		       LR_PKT_TRUNC_L3;
	if (unlikely((d[off] >> 4) != 6))
		return LR_PKT_BAD_IHL;
	end = off + 40 + lr_pkt_rd16(d + off + 4);
	p->l3 = (uint16_t)off;
	p->l3type = LR_PKT_L3_IPV6;
	p->l3_end = end;
	if (unlikely(end > wire))
		r = LR_PKT_BAD_LEN;	/* said first; the walk goes on */
	lim = RTE_MIN(end, len);	/* what there is to read */
	nh = d[off + 6];
	next = off + 40;
	for (i = 0; unlikely(lr_pkt_is_ext(nh)); i++) {
		uint32_t l;

		if (i == LR_PKT_EXT_MAX)
			return r != LR_PKT_OK ? r : LR_PKT_BAD_EXT;
		if (next + 8 > lim)
			return r != LR_PKT_OK ? r :
			       lim < end ? LR_PKT_TRUNC_L4 : LR_PKT_BAD_EXT;
		if (nh == 44) {		/* fragment: 8 bytes */
			uint16_t fo = lr_pkt_rd16(d + next + 2);

			p->frag_id = lr_pkt_rd32(d + next + 4);
			p->frag = (fo & 0xfff8) ? LR_PKT_FRAG_LATER :
				  (fo & 1) ? LR_PKT_FRAG_FIRST : LR_PKT_FRAG_NONE;
			l = 8;
		} else if (nh == 51) {
			l = (d[next + 1] + 2u) * 4;
		} else {
			l = (d[next + 1] + 1u) * 8;
		}
		nh = d[next];
		next += l;
		if (next > end)
			return r != LR_PKT_OK ? r : LR_PKT_BAD_EXT;
		if (p->frag == LR_PKT_FRAG_LATER)
			break;	/* what follows is not a header */
	}
	p->proto = nh;
	if (p->frag != LR_PKT_FRAG_LATER)
		p->l4 = (uint16_t)next;
	return r;
}

/* Tags and MPLS labels, then IP: the frames that are not plain Ethernet
 * over IP, out of the fast path's way (its registers and its code). */
static __rte_noinline __rte_unused enum lr_pkt_result
lr_pkt_locate_l2(const uint8_t *d, uint32_t len, uint32_t wire,
		 struct lr_pkt *p, uint16_t type)
{
	uint32_t off = LR_PKT_ETH_BYTES;

	if (lr_pkt_is_tag(type)) {
		do {
			if (off + 4 > len)
				return LR_PKT_TRUNC_L2;
			if (p->tags == 0)
				p->vlan = lr_pkt_rd16(d + off) & 0x0fff;
			else	/* the second: LR_PKT_TAGS_MAX is 2 */
				p->vlan_inner = lr_pkt_rd16(d + off) & 0x0fff;
			type = lr_pkt_rd16(d + off + 2);
			off += 4;
		} while (++p->tags < LR_PKT_TAGS_MAX && lr_pkt_is_tag(type));
	}
	if (type == 0x8847 || type == 0x8848) {
		uint32_t i;

		for (i = 0; ; i++) {
			if (i == LR_PKT_LABELS_MAX || off + 4 > len)
				return LR_PKT_TRUNC_L2;
			off += 4;
			if (d[off - 2] & 1)	/* bottom of stack */
				break;
		}
		p->mpls = (uint8_t)(i + 1);
		if (off >= len)
			return LR_PKT_TRUNC_L3;
		if ((d[off] >> 4) == 4)
			type = 0x0800;
		else if ((d[off] >> 4) == 6)
			type = 0x86dd;
		else
			return LR_PKT_BAD_IHL;
	}
	if (type == 0x0800)
		return lr_pkt_ipv4(d, off, len, wire, p);
	if (type == 0x86dd)
		return lr_pkt_ipv6(d, off, len, wire, p);
	return LR_PKT_NOT_IP;
}

/**
 * Locate the headers of the frame in @p d: @p len bytes from its Ethernet
 * header, of a frame @p wire bytes long (len <= wire: a capture's trim, the
 * first segment of a chain; else pass len).
 *
 * @return LR_PKT_OK with @p p filled; LR_PKT_BAD_LEN with the headers
 *   located all the same (a role that does not judge IP lengths may use
 *   them); another reason with @p p filled as far as it got (l3 set when
 *   the fixed IP header was whole, l4 0).
 */
static inline enum lr_pkt_result
lr_pkt_locate(const uint8_t *d, uint32_t len, uint32_t wire, struct lr_pkt *p)
{
	uint16_t type;

	memset(p, 0, sizeof(*p));
	if (unlikely(len < LR_PKT_ETH_BYTES))
		return LR_PKT_TRUNC_L2;
	type = lr_pkt_rd16(d + 12);
	if (likely(type == 0x0800))
		return lr_pkt_ipv4(d, LR_PKT_ETH_BYTES, len, wire, p);
	if (type == 0x86dd)
		return lr_pkt_ipv6(d, LR_PKT_ETH_BYTES, len, wire, p);
	return lr_pkt_locate_l2(d, len, wire, p, type);
}

/** The bytes of @p proto's header that hold its ports (TCP, UDP, SCTP),
 *  or ICMP's type and code; 0 for other protocols. */
static inline uint32_t
lr_pkt_l4_min(uint8_t proto)
{
	switch (proto) {
	case 6:		/* TCP: the whole fixed header, for its flags */
		return 20;
	case 17:	/* UDP */
		return 8;
	case 132:	/* SCTP's common header */
		return 12;
	case 1:		/* ICMP */
	case 58:	/* ICMPv6 */
		return 4;
	default:
		return 0;
	}
}

#endif
