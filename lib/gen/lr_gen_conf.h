/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gen's conf: frame sizes, flows made of address and port ranges, rate,
 * pattern, the replay's options, and the tables made from it (flow tuples,
 * the size cycle). Implemented by gen_conf.c alone, so that what reads a
 * conf (the replay, rtt's sizing) needs nothing of the role's task
 * (lr_gen.h, gen.c).
 *
 * Threading: control path; lr_gen_share() is pure.
 */
#ifndef LR_GEN_CONF_H
#define LR_GEN_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "lr_common.h"
#include "lr_opt.h"
#include "lr_wire.h"

#define LR_GEN_SIZES_MAX 16		/**< entries of a size list */
#define LR_GEN_SIZE_TABLE 4096		/**< sizes cycled per packet, at most */
#define LR_GEN_FLOWS_MAX (1u << 24)	/**< flows per task */
#define LR_GEN_PATTERN_MAX 16		/**< bytes of a repeated payload pattern */
/** The longest slot (1 / rate, or bits / rate, of a task's share) a
 *  schedule holds, in seconds: some three years, 1e18 TSC cycles at
 *  10 GHz, so that a slot added to the TSC fits 64 bits with room. A rate
 *  whose frame's slot is longer is refused, not sent unpaced. */
#define LR_GEN_SLOT_MAX_S 1e8

enum lr_size_mode {
	LR_SIZE_FIXED,	/**< sizes[0] */
	LR_SIZE_LIST,	/**< sizes[] by weights[], interleaved (IMIX) */
	LR_SIZE_RANGE,	/**< uniform random in sizes[0]..sizes[1] */
};

enum lr_pattern {
	LR_PATTERN_INC,		/**< byte i of the frame is i mod 256 */
	LR_PATTERN_ZERO,
	LR_PATTERN_RANDOM,	/**< from the seed */
	LR_PATTERN_BYTES,	/**< pattern[] repeated */
};

/** n consecutive addresses from addr (IPv6: counting in the last 32 bits). */
struct lr_ip_range {
	uint8_t addr[16];	/**< network order; IPv4 in the first 4 bytes */
	uint32_t n;
	bool ipv6;
	bool set;		/**< given by the user, not the default */
};

/**
 * An 802.1Q tag gen writes (IEEE 802.1Q-2018 9.6: TPID, then the TCI of
 * PCP 3 bits, DEI 1, VID 12): n consecutive VIDs from vid, one per flow.
 */
struct lr_gen_tag {
	uint16_t vid;		/**< first VLAN id, 0..4095 */
	uint16_t vids;		/**< how many, 1..4096 */
	uint8_t pcp;		/**< priority code point, 0..7 */
	uint8_t dei;		/**< drop eligible, 0..1 */
	uint16_t tpid;		/**< host order: 0x8100, or 0x88a8 (802.1ad) */
	bool set;		/**< given: the frame carries this tag */
};

/** What a gen task sends. */
struct lr_gen_conf {
	enum lr_size_mode size_mode;
	uint32_t nb_sizes;
	uint32_t sizes[LR_GEN_SIZES_MAX];	/**< frame bytes with FCS */
	uint32_t weights[LR_GEN_SIZES_MAX];
	uint32_t data_bytes;		/**< UDP data size, overrides sizes (0) */
	bool sizes_given;		/**< size was set: data-size excludes it */
	uint64_t count;			/**< packets to send, 0: no limit */
	uint64_t bytes;			/**< frame bytes to send, 0: no limit */
	struct lr_rate rate;		/**< of all slices together */
	uint32_t flows;			/**< flows of all slices together */
	uint32_t flow_base;		/**< id of the first flow */
	struct lr_ip_range src_ip;
	struct lr_ip_range dst_ip;
	uint16_t src_port;		/**< first UDP source port */
	uint32_t src_ports;		/**< how many */
	uint16_t dst_port;
	uint32_t dst_ports;
	bool shuffle;			/**< flows in a shuffled order */
	uint64_t seed;			/**< of shuffle, random sizes and pattern */
	uint16_t slice;			/**< this task takes slice/slices of flows, */
	uint16_t slices;		/**< count, bytes and rate */
	struct rte_ether_addr src_mac;
	struct rte_ether_addr dst_mac;
	uint16_t burst;			/**< packets per tx burst, 1..LR_BURST */
	enum lr_pattern pattern;
	uint8_t pattern_bytes[LR_GEN_PATTERN_MAX];
	uint8_t pattern_len;
	bool fixed;			/**< pre-built frames, nothing written */
	int8_t udp_cksum;		/**< -1: IPv6 yes, IPv4 no; 0; 1 */
	double rate_tolerance;		/**< offered below this is short (0.999) */
	double catch_up_s;		/**< most a stalled paced gen makes up
					 *   (100e-6); the rest is counted late */
	double stall_timeout_s;		/**< no tx progress this long with
					 *   packets waiting ends the task (1),
					 *   0: never */
	bool rate_given;		/**< rate was set (pcap: fixed rate) */
	bool src_mac_given;		/**< pcap: rewrite the source MAC */
	bool dst_mac_given;
	/* Replay (--pcap): a capture's frames instead of built ones. */
	char pcap[256];			/**< the capture, "": none */
	double speed;			/**< its timing times this (1) */
	uint64_t loops;			/**< times through it, 0: no end (1) */
	uint32_t loop_ip_step;		/**< loop k adds k x this to source
					 *   addresses (0) */
	bool stamp;			/**< linerate's header into UDP frames */
	/* The headers' fields that are not addresses and ports. */
	struct lr_gen_tag vlan;		/**< the (inner) 802.1Q tag */
	struct lr_gen_tag outer;	/**< QinQ's outer tag, before vlan */
	uint8_t dscp;			/**< DiffServ code point, 0..63 (0) */
	uint8_t ecn;			/**< ECN field, 0..3 (0) */
	uint8_t ttl;			/**< IPv4 TTL, IPv6 hop limit (64) */
	bool df;			/**< IPv4 don't fragment (1) */
};

/**
 * Defaults: 64 B, one flow, 10.0.0.1:1024 -> 10.0.0.2:5001, source ports
 * 1024-65535 for more flows, unlimited rate, burst 32, pattern inc.
 */
void lr_gen_conf_init(struct lr_gen_conf *c);

/**
 * The share of @p total (flows, count, bytes) that slice @p i of @p n
 * takes: total / n, and one more for the first total % n slices, so that
 * the shares add up to @p total. gen slices so; so does rtt, which sizes
 * each queue's samples by what its gen will send.
 */
static inline uint64_t
lr_gen_share(uint64_t total, unsigned int i, unsigned int n)
{
	return total / n + (i < total % n ? 1 : 0);
}

/** One flow's addresses and ports, network order, and its VLAN ids. */
struct lr_gen_tuple {
	uint8_t src_ip[16];
	uint8_t dst_ip[16];
	rte_be16_t src_port;
	rte_be16_t dst_port;
	uint16_t vid;		/**< the vlan tag's VID, host order */
	uint16_t outer_vid;	/**< the outer tag's */
};

/** VLAN tags of the frames of @p c: 0, 1 or 2. */
static inline unsigned int
lr_gen_tags(const struct lr_gen_conf *c)
{
	return (unsigned int)c->vlan.set + (unsigned int)c->outer.set;
}

/**
 * The tuple of flow @p i (0 .. flows-1): the vlan tag's VID varies
 * fastest (with a VID range, flow i is in VLAN vid + i mod vids), then the
 * outer tag's, the source port, the destination port, the source address,
 * the destination address.
 * @return 0, or -EINVAL when the ranges hold fewer than i+1 tuples.
 */
int lr_gen_flow_at(const struct lr_gen_conf *c, uint32_t i,
		   struct lr_gen_tuple *t);

/** Distinct tuples the ranges of @p c hold (capped at UINT64_MAX). */
uint64_t lr_gen_tuples(const struct lr_gen_conf *c);

/**
 * The frame sizes a task cycles through, one per packet, in order:
 * IMIX 64:7,594:4,1518:1 gives 12 entries interleaved (smooth weighted
 * round robin), a range gives LR_GEN_SIZE_TABLE random sizes.
 * @return the number of entries written (at most @p max), or -EINVAL.
 */
int lr_gen_size_table(const struct lr_gen_conf *c, uint32_t *out, uint32_t max);

/** Is the conf IPv6 (after the defaults have followed a v6 address)? */
bool lr_gen_ipv6(const struct lr_gen_conf *c);

/** gen's options without those of the replay (--pcap ...): what roles
 *  that send as gen does (rtt) take. */
extern const struct lr_opt lr_gen_frame_opts[];

#endif
