/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What linerate puts on the wire and how a frame is counted: the payload
 * header that gen writes, reflect marks and rx (and rtt through it) reads, and
 * the byte counts of Ethernet, IPv4/IPv6 and UDP headers, each defined
 * once; reflect's flags and stamps. Header only; no state, so any thread may use it.
 */
#ifndef LR_WIRE_H
#define LR_WIRE_H

#include <errno.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

/*
 * A frame is counted as the ESS paper's Table 1 counts it: Ethernet header,
 * payload and FCS. The mbuf holds the frame without its FCS.
 */
#define LR_FCS_BYTES 4		/**< Ethernet frame check sequence */
#define LR_L1_EXTRA_BYTES 20	/**< preamble + SFD (8) and inter-frame gap (12) */
#define LR_FRAME_MIN_BYTES 64
#define LR_FRAME_MAX_BYTES 9018	/**< MTU 9000 + 14 B header + 4 B FCS */

#define LR_IPV4_HDR_BYTES 20	/**< without options */
#define LR_IPV6_HDR_BYTES 40
#define LR_UDP_HDR_BYTES 8
/** Headers in front of the UDP payload, as the mbuf holds them (no FCS). */
#define LR_UDP4_HDRS_BYTES (RTE_ETHER_HDR_LEN + LR_IPV4_HDR_BYTES + LR_UDP_HDR_BYTES) /**< 42 */
#define LR_UDP6_HDRS_BYTES (RTE_ETHER_HDR_LEN + LR_IPV6_HDR_BYTES + LR_UDP_HDR_BYTES) /**< 62 */
/** Frame bytes that are not UDP data: the headers and the FCS. */
#define LR_UDP4_OVERHEAD (LR_UDP4_HDRS_BYTES + LR_FCS_BYTES)	/**< 46: the paper's figure */
#define LR_UDP6_OVERHEAD (LR_UDP6_HDRS_BYTES + LR_FCS_BYTES)	/**< 66 */

/** Frame bytes on the wire (FCS included) for an mbuf of @p pkt_len bytes. */
static inline uint32_t
lr_frame_bytes(uint32_t pkt_len)
{
	return pkt_len + LR_FCS_BYTES;
}

/** "LR": the first two bytes of every linerate payload. */
#define LR_HDR_MAGIC 0x4c52
#define LR_FLOW_NONE UINT32_MAX	/**< frames of gen's fixed mode */

/**
 * The header at the start of the UDP payload, 18 B so that it fits the
 * smallest frame: 64 B = 14 Ethernet + 20 IPv4 + 8 UDP + 18 + 4 FCS.
 * Every field is big-endian (network order), so that tshark and scapy
 * read it as it is.
 */
struct lr_wire_hdr {
	rte_be16_t magic;	/**< LR_HDR_MAGIC */
	rte_be32_t flow;	/**< flow id, from 0; LR_FLOW_NONE: untracked */
	rte_be32_t seq;		/**< per-flow sequence number, from 0 */
	rte_be64_t tx_tsc;	/**< sender's TSC when the burst was built */
} __rte_packed;

#define LR_HDR_BYTES 18
static_assert(sizeof(struct lr_wire_hdr) == LR_HDR_BYTES, "lr_wire_hdr is 18 B");

/*
 * The reflect role marks what it sends back in the magic's second byte,
 * so that the frames it reflected are still linerate frames to rx
 * (lr_hdr_magic_ok()) and never reflected twice (a loop of two reflectors,
 * a port wired to itself): "LR" as gen sent it, "Lr" reflected, "Ls"
 * reflected with the reflector's stamps after the header
 * (struct lr_reflect_stamps).
 */
#define LR_HDR_REFLECTED 0x0020	/**< magic | this: reflected once */
#define LR_HDR_STAMPED 0x0001	/**< magic | this: struct lr_reflect_stamps
				 *   follows the header */
#define LR_HDR_FLAGS (LR_HDR_REFLECTED | LR_HDR_STAMPED)

/** Is @p magic (as it is in the frame, big-endian) linerate's: "LR", "Lr"
 *  or "Ls" (stamped only with reflected)? */
static inline int
lr_hdr_magic_ok(rte_be16_t magic)
{
	return (magic & ~rte_cpu_to_be_16(LR_HDR_FLAGS)) ==
	       rte_cpu_to_be_16(LR_HDR_MAGIC) &&
	       (!(magic & rte_cpu_to_be_16(LR_HDR_STAMPED)) ||
		(magic & rte_cpu_to_be_16(LR_HDR_REFLECTED)));
}

/**
 * The reflector's stamps (reflect --stamp 1), 16 B right after the 18 B
 * header when the magic has LR_HDR_STAMPED, in place of payload bytes: a
 * frame whose UDP data holds fewer than 34 B (IPv4 frames below 80 B, IPv6
 * below 100 B) goes back without them. Both are the reflector's own TSC,
 * so that their difference, its residence time, is right on any host:
 *
 *	offset (UDP data)  bytes  field
 *	18                 8      rx_tsc: when its burst was received
 *	26                 8      tx_tsc: just before its tx burst
 */
struct lr_reflect_stamps {
	rte_be64_t rx_tsc;
	rte_be64_t tx_tsc;
} __rte_packed;

#define LR_STAMPS_BYTES 16
static_assert(sizeof(struct lr_reflect_stamps) == LR_STAMPS_BYTES,
	      "lr_reflect_stamps is 16 B");

/** Write the header at @p payload. */
static inline void
lr_wire_hdr_write(void *payload, uint32_t flow, uint32_t seq, uint64_t tsc)
{
	struct lr_wire_hdr *h = payload;

	h->magic = rte_cpu_to_be_16(LR_HDR_MAGIC);
	h->flow = rte_cpu_to_be_32(flow);
	h->seq = rte_cpu_to_be_32(seq);
	h->tx_tsc = rte_cpu_to_be_64(tsc);
}

/** @return 0 and the fields, or -EINVAL when the magic is wrong. */
static inline int
lr_wire_hdr_read(const void *payload, uint32_t *flow, uint32_t *seq,
		uint64_t *tsc)
{
	const struct lr_wire_hdr *h = payload;

	if (!lr_hdr_magic_ok(h->magic))
		return -EINVAL;
	*flow = rte_be_to_cpu_32(h->flow);
	*seq = rte_be_to_cpu_32(h->seq);
	*tsc = rte_be_to_cpu_64(h->tx_tsc);
	return 0;
}

#endif
