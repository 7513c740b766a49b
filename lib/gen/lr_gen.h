/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The gen role: UDP/IPv4 frames built once as a template, with a per-packet
 * header (struct lr_pkt_hdr) that carries flow id, sequence number and TX TSC.
 *
 * Threading: lr_gen_conf_init() and lr_gen_role are used on the control path
 * to make tasks (lr_engine.h); the task's poll runs on its worker lcore.
 */
#ifndef LR_GEN_H
#define LR_GEN_H

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "lr_engine.h"

/** "LR": the first two bytes of every linerate payload. */
#define LR_HDR_MAGIC 0x4c52

/**
 * The header at the start of the UDP payload, 18 B so that it fits the
 * smallest frame: 64 B = 14 Ethernet + 20 IPv4 + 8 UDP + 18 + 4 FCS.
 * Every field is big-endian (network order), so that tshark and scapy
 * read it as it is.
 */
struct lr_pkt_hdr {
	rte_be16_t magic;	/**< LR_HDR_MAGIC */
	rte_be32_t flow;	/**< flow id, from 0 */
	rte_be32_t seq;		/**< per-flow sequence number, from 0 */
	rte_be64_t tx_tsc;	/**< sender's TSC when the burst was built */
} __rte_packed;

#define LR_HDR_BYTES 18
#define LR_UDP4_HDRS_BYTES (RTE_ETHER_HDR_LEN + 20 + 8)	/**< Eth+IPv4+UDP */

/** What a gen task sends. */
struct lr_gen_conf {
	uint32_t frame_bytes;		/**< on the wire with FCS, 64..9018 */
	uint64_t count;			/**< packets to send, 0: no limit */
	uint64_t rate_pps;		/**< packets per second, 0: as fast as possible */
	uint32_t flows;			/**< flows, each its own UDP source port */
	uint32_t flow_base;		/**< id of this task's first flow */
	uint32_t src_ip;		/**< IPv4, host order */
	uint32_t dst_ip;		/**< IPv4, host order */
	uint16_t src_port;		/**< UDP source port of flow 0 */
	uint16_t dst_port;		/**< UDP destination port */
	struct rte_ether_addr src_mac;
	struct rte_ether_addr dst_mac;
	uint16_t burst;			/**< packets per tx burst, 1..LR_BURST */
};

/** Defaults: 64 B, one flow, 10.0.0.1:1024 -> 10.0.0.2:5001, unlimited. */
void lr_gen_conf_init(struct lr_gen_conf *c);

extern const struct lr_role lr_gen_role;

/** Encode and decode the payload header (control path and tests). */
void lr_pkt_hdr_write(void *payload, uint32_t flow, uint32_t seq, uint64_t tsc);
/** @return 0 and the fields, or -EINVAL when the magic is wrong. */
int lr_pkt_hdr_read(const void *payload, uint32_t *flow, uint32_t *seq,
		    uint64_t *tsc);

#endif
