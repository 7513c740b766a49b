/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The reflect role: every frame that arrives on a queue of --port goes back
 * out of the same queue of --port (or of --peer) with Ethernet, IP (v4 or
 * v6, where lr_pkt.h finds it: behind VLAN/QinQ tags, which stay, or MPLS
 * labels) and UDP or TCP source and destination swapped in place, in bursts, one task per queue. Linerate
 * frames get LR_HDR_REFLECTED in their magic (lr_wire.h) and, with
 * --stamp 1, the reflector's receive and transmit TSC after the header;
 * other frames (ARP, other protocols, UDP without linerate's header) are
 * reflected or dropped by --others, and counted. With --add-delay each frame
 * is held for a delay lib/netem draws, in a per-task timing wheel of mbuf
 * pointers (no head-of-line blocking: a frame leaves when it is due, not
 * when the one before it is).
 *
 * The rtt role (lr_rtt.h) is reflect's other end.
 *
 * Threading: the conf functions and the report are control path; a task's
 * state belongs to its lcore. The parse and swap helpers below are pure
 * functions of the frame's bytes, for the fast path and the unit tests.
 */
#ifndef LR_REFLECT_H
#define LR_REFLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "lr_engine.h"
#include "lr_pkt.h"
#include "lr_wire.h"

#define LR_REFLECT_PEER_MAX 256		/**< bytes of the peer's port spec */
#define LR_REFLECT_DELAY_MAX 256	/**< bytes of --add-delay's SPEC */

struct lr_reflect_conf {
	char peer[LR_REFLECT_PEER_MAX];	/**< tx port: id, name or devargs;
					 *   "": --port */
	bool others;			/**< reflect non-linerate frames (else
					 *   count and drop them) */
	bool stamp;			/**< write struct lr_reflect_stamps */
	uint64_t count;			/**< stop after N frames in, 0: never */
	uint32_t tx_retries;		/**< tx bursts retried before the rest
					 *   is dropped (counted) */
	char add_delay[LR_REFLECT_DELAY_MAX];	/**< netem delay SPEC, "": none */
	uint64_t rate_pps;		/**< --add-delay: the rate the wheel is
					 *   sized for, 0: what the pool spares */
};

/** The reflect role (lr_engine.h). */
extern const struct lr_role lr_reflect_role;

/** What a frame is to the reflector. */
enum lr_reflect_kind {
	LR_REFLECT_OWN,		/**< linerate's: UDP and lr_wire_hdr's magic */
	LR_REFLECT_LOOPED,	/**< linerate's, already reflected once */
	LR_REFLECT_OTHER,	/**< anything else */
	LR_REFLECT_RUNT,	/**< shorter than an Ethernet header: nothing
				 *   to swap, never reflected */
};

/** Where the parts of a frame are (offsets from its first byte). */
struct lr_reflect_frame {
	uint16_t l3;		/**< IP header, 0: not IP (ARP, ...) */
	uint16_t l4;		/**< UDP or TCP header, 0: none (a later
				 *   fragment, another protocol) */
	uint16_t udp_data;	/**< UDP payload bytes in the segment (OWN) */
	bool ipv4;
	bool udp;
};

/**
 * Parse the frame @p d of @p len bytes (the first segment): its headers
 * where the locator finds them (lr_pkt.h: VLAN/QinQ tags, which stay, MPLS,
 * IPv4 with options, IPv6 and its extension headers), UDP or TCP; OWN when
 * it is UDP whose data starts with linerate's magic and holds the header,
 * inside the datagram as both the IP and the UDP length say (the sum covers
 * no more: a stamp past either would not be in it). Reads no byte past
 * @p len.
 */
static inline enum lr_reflect_kind
lr_reflect_parse(const uint8_t *d, uint32_t len, struct lr_reflect_frame *f)
{
	uint32_t l4, dgram;
	const struct rte_udp_hdr *udp;
	const struct lr_wire_hdr *h;
	enum lr_pkt_result r;
	struct lr_pkt k;

	memset(f, 0, sizeof(*f));
	if (len < RTE_ETHER_HDR_LEN)
		return LR_REFLECT_RUNT;
	r = lr_pkt_locate(d, len, len, &k);
	/* An IP header whole: its addresses are swapped, whatever follows
	 * (a later fragment has no ports: its addresses only). */
	f->l3 = k.l3;
	f->ipv4 = k.l3type == LR_PKT_L3_IPV4;
	/* The IP length is not judged: the datagram ends at the least of
	 * it, the UDP length and the segment (below). */
	if ((r != LR_PKT_OK && r != LR_PKT_BAD_LEN) || k.l4 == 0 ||
	    (k.proto != IPPROTO_UDP && k.proto != IPPROTO_TCP) ||
	    len < k.l4 + 4u)
		return LR_REFLECT_OTHER;
	l4 = k.l4;
	f->l4 = (uint16_t)l4;
	if (k.proto != IPPROTO_UDP || len < l4 + sizeof(*udp) + LR_HDR_BYTES)
		return LR_REFLECT_OTHER;
	f->udp = true;
	udp = (const struct rte_udp_hdr *)(d + l4);
	h = (const struct lr_wire_hdr *)(udp + 1);
	/* The datagram as far as the IP and the UDP length both go. */
	dgram = RTE_MIN((uint32_t)rte_be_to_cpu_16(udp->dgram_len),
			k.l3_end > l4 ? k.l3_end - l4 : 0);
	if (!lr_hdr_magic_ok(h->magic) || dgram < sizeof(*udp) + LR_HDR_BYTES)
		return LR_REFLECT_OTHER;
	/* The UDP data as far as the segment and the datagram both go. */
	f->udp_data = (uint16_t)RTE_MIN(len - l4, dgram) - sizeof(*udp);
	if (h->magic & rte_cpu_to_be_16(LR_HDR_REFLECTED))
		return LR_REFLECT_LOOPED;
	return LR_REFLECT_OWN;
}

static inline void
lr_reflect_swap_bytes(uint8_t *a, uint8_t *b, unsigned int n)
{
	uint8_t t[16];

	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

/**
 * Swap, in place, the source and destination of every layer @p f found:
 * Ethernet addresses (the tags and labels stay), IPv4 or IPv6 addresses, UDP
 * or TCP ports.
 *
 * No checksum changes. The IPv4 header checksum is the ones' complement of
 * the ones' complement sum of the header's 16-bit words (RFC 791, RFC 1071),
 * and swapping the two 4-byte addresses only reorders words of that sum,
 * which is commutative. The UDP (and TCP) checksum covers the pseudo-header
 * (source and destination address, protocol, length: RFC 768, RFC 8200
 * 8.1) and the header's ports: a swap reorders words of those too, and
 * every field sits at an even offset, so each word stays a word. The
 * Ethernet FCS is the NIC's to compute. The frame holds at least an
 * Ethernet header (lr_reflect_parse() said other than LR_REFLECT_RUNT).
 */
static inline void
lr_reflect_swap(uint8_t *d, const struct lr_reflect_frame *f)
{
	lr_reflect_swap_bytes(d, d + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);
	if (f->l3 == 0)
		return;
	if (f->ipv4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + f->l3);
		rte_be32_t a = ip->src_addr;

		ip->src_addr = ip->dst_addr;
		ip->dst_addr = a;
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + f->l3);

		lr_reflect_swap_bytes(ip->src_addr, ip->dst_addr, 16);
	}
	if (f->l4 != 0) {
		/* UDP and TCP both start with source and destination port. */
		rte_be16_t *p = (rte_be16_t *)(d + f->l4), x = p[0];

		p[0] = p[1];
		p[1] = x;
	}
}

/**
 * Replace the @p n bytes (even, at an even offset from the UDP header) at
 * @p field of the UDP datagram @p udp with @p val, updating its checksum
 * as RFC 1624 (eqn. 3) does: HC' = ~(~HC + ~m + m'). An IPv4 datagram
 * without a checksum (0) keeps none; a result of 0 is sent as 0xffff
 * (RFC 768: 0 means none; both are zero in ones' complement).
 */
static inline void
lr_reflect_udp_replace(struct rte_udp_hdr *udp, bool ipv4, void *field,
		       const void *val, unsigned int n)
{
	uint32_t sum;
	uint16_t c;

	if (ipv4 && udp->dgram_cksum == 0) {
		memcpy(field, val, n);
		return;
	}
	sum = (uint16_t)~udp->dgram_cksum;
	sum += (uint16_t)~rte_raw_cksum(field, n);
	memcpy(field, val, n);
	sum += rte_raw_cksum(field, n);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	c = (uint16_t)~sum;
	udp->dgram_cksum = c == 0 ? 0xffff : c;
}

/**
 * Mark a parsed and swapped OWN frame as reflected (LR_HDR_REFLECTED), and
 * with @p stamp, when its UDP data holds them, write the stamps' receive
 * time @p rx_tsc (the transmit time comes with lr_reflect_stamp_tx()).
 * @return true when the frame carries stamps.
 */
static inline bool
lr_reflect_mark(uint8_t *d, const struct lr_reflect_frame *f, bool stamp,
		uint64_t rx_tsc)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + f->l4);
	struct lr_wire_hdr *h = (struct lr_wire_hdr *)(udp + 1);
	bool room = stamp && f->udp_data >= LR_HDR_BYTES + LR_STAMPS_BYTES;
	rte_be16_t magic = h->magic | rte_cpu_to_be_16(LR_HDR_REFLECTED |
					(room ? LR_HDR_STAMPED : 0));

	lr_reflect_udp_replace(udp, f->ipv4, &h->magic, &magic, sizeof(magic));
	if (room) {
		struct lr_reflect_stamps *s = (struct lr_reflect_stamps *)(h + 1);
		rte_be64_t v = rte_cpu_to_be_64(rx_tsc);

		lr_reflect_udp_replace(udp, f->ipv4, &s->rx_tsc, &v, sizeof(v));
	}
	return room;
}

/** Write the transmit stamp of a frame lr_reflect_mark() stamped; @p l4
 *  its UDP header's offset. */
static inline void
lr_reflect_stamp_tx(uint8_t *d, uint16_t l4, bool ipv4, uint64_t tx_tsc)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + l4);
	struct lr_reflect_stamps *s =
		(struct lr_reflect_stamps *)((uint8_t *)(udp + 1) + LR_HDR_BYTES);
	rte_be64_t v = rte_cpu_to_be_64(tx_tsc);

	lr_reflect_udp_replace(udp, ipv4, &s->tx_tsc, &v, sizeof(v));
}

#endif
