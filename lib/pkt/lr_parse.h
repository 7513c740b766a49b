/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The flow parser: from the bytes of a frame to what a flow record needs
 * (the probe's flow cache, the distributor's UH records). The headers are
 * found by the locator (lr_pkt.h: Ethernet, VLAN/QinQ, MPLS, IPv4, IPv6 and
 * its extension headers); this reads their fields: addresses, ToS, TTL, IP
 * length, fragment id; TCP (ports, flags), UDP, SCTP (ports), ICMP and
 * ICMPv6 (type and code as type << 8 | code in the destination port, as
 * IPFIX practice has it); any other protocol by its 3-tuple.
 *
 * It never reads past @p len. A frame it cannot use gets a reason: the
 * caller counts it by that reason.
 *
 * Threading: pure functions, for any lcore.
 */
#ifndef LR_PARSE_H
#define LR_PARSE_H

#include <stdbool.h>
#include <stdint.h>

enum lr_parse_result {
	LR_PARSE_OK = 0,
	LR_PARSE_NOT_IP,	/**< ARP, LLDP, ...: not for flows */
	LR_PARSE_TRUNC_L2,	/**< shorter than its Ethernet, VLAN or MPLS headers */
	LR_PARSE_TRUNC_L3,	/**< shorter than its IP header */
	LR_PARSE_BAD_IHL,	/**< IPv4 IHL < 5 or a version that is not 4/6 */
	LR_PARSE_BAD_LEN,	/**< an IP length below its header or above the frame */
	LR_PARSE_BAD_EXT,	/**< an IPv6 extension chain that does not end */
	LR_PARSE_TRUNC_L4,	/**< shorter than its TCP/UDP/ICMP header (first
				 *   fragment or unfragmented) */
	LR_PARSE_REASONS
};

/** Names of the reasons, for reports: "ok", "not_ip", "trunc_l2", ... */
extern const char *const lr_parse_reason_names[LR_PARSE_REASONS];

enum lr_frag {
	LR_FRAG_NONE = 0,
	LR_FRAG_FIRST,		/**< offset 0, more fragments: has the ports */
	LR_FRAG_LATER,		/**< offset > 0: no transport header */
};

/** What a flow record needs of one packet. */
struct lr_parsed {
	uint8_t src[16];	/**< network order; IPv4 in src[0..3], rest 0 */
	uint8_t dst[16];
	uint16_t sport;		/**< host order; 0 without ports */
	uint16_t dport;		/**< ICMP: type << 8 | code */
	uint16_t vlan;		/**< outer VLAN id, 0 untagged */
	uint16_t tcp_flags;	/**< the 12 bits of RFC 7125 */
	uint32_t ip_bytes;	/**< IP total length: octetDeltaCount */
	uint32_t frag_id;	/**< IPv4 id or IPv6 fragment identification */
	uint16_t l4_off;	/**< offset of the transport header, 0 without */
	uint16_t vlan_inner;	/**< the second tag's VLAN id (QinQ's C-VID), 0:
				 *   fewer than two tags */
	uint8_t proto;		/**< the transport protocol after extensions */
	uint8_t tos;		/**< IPv4 ToS, IPv6 traffic class */
	uint8_t ttl;		/**< TTL, hop limit */
	/* One byte for the three small ones: the record is 56 B, 7 words. */
	uint8_t ipv6 : 1;
	uint8_t frag : 2;	/**< enum lr_frag */
	uint8_t mpls : 4;	/**< MPLS labels skipped, up to LR_PKT_LABELS_MAX */
} __attribute__((aligned(8)));	/* src and dst are hashed as 64-bit words
				 * (lr_frag.h's rte_hash_crc): in an array of
				 * 60 B records every other one was at 4 mod 8 */

/**
 * Parse the frame in @p d (@p len bytes, starting at the Ethernet header).
 * @return LR_PARSE_OK and @p p filled, or a reason.
 */
enum lr_parse_result lr_parse(const uint8_t *d, uint32_t len, struct lr_parsed *p);

/**
 * Parse a trimmed capture: @p len bytes of a frame that was @p wire bytes
 * long (len <= wire). Headers must lie within @p len (a header cut by the
 * trim is LR_PARSE_TRUNC_L4); IP lengths are checked against @p wire, so
 * the flow counts the original IP bytes.
 */
enum lr_parse_result lr_parse_wire(const uint8_t *d, uint32_t len, uint32_t wire,
				   struct lr_parsed *p);

#endif
