/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The gen role: UDP over IPv4 or IPv6, frames of 64..9018 B (one size, a
 * weighted list such as IMIX, or a random size in a range), N flows made of
 * address and port ranges, paced by the TSC. Frames are built once, in the
 * mbufs of the task's own pool; per packet only what changes is written:
 * lengths, flow fields, checksums (by incremental update) and the 18 B
 * struct lr_pkt_hdr with flow id, sequence number and TX TSC.
 *
 * Threading: lr_gen_conf_init(), lr_gen_flow_at(), lr_gen_size_table() and
 * the role's conf/init/report/free run on the control path; the task's poll
 * runs on its worker lcore.
 */
#ifndef LR_GEN_H
#define LR_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_wire.h"


#define LR_GEN_SIZES_MAX 16		/**< entries of a size list */
#define LR_GEN_SIZE_TABLE 4096		/**< sizes cycled per packet, at most */
#define LR_GEN_FLOWS_MAX (1u << 24)	/**< flows per task */
#define LR_GEN_PATTERN_MAX 16		/**< bytes of a repeated payload pattern */

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

/** One flow's addresses and ports, network order. */
struct lr_gen_tuple {
	uint8_t src_ip[16];
	uint8_t dst_ip[16];
	rte_be16_t src_port;
	rte_be16_t dst_port;
};

/**
 * The tuple of flow @p i (0 .. flows-1): the source port varies fastest,
 * then the destination port, the source address, the destination address.
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

/**
 * A paced task's schedule, in TSC cycles, as its lcore kept it: packet k is
 * due when the costs (1 / rate, or bits / rate) of the packets before it
 * have passed since the first was due. What a stall of more than the
 * catch-up bound would owe is not sent but added to late_tsc.
 */
struct lr_gen_sched {
	uint64_t first_tsc;	/**< when the first packet was due, 0: never */
	uint64_t next_tsc;	/**< when the next is due, whole cycles */
	double next_frac;	/**< and the fraction of a cycle */
	uint64_t late_tsc;	/**< schedule given up after stalls */
	double unsent_tsc;	/**< schedule of packets built, never taken */
};

/**
 * The offered ratio: the rate achieved over the task's sending time against
 * the rate asked, in the rate's own unit (packets, L2 or L1 bits). The
 * sending time runs from when the first packet was due to the later of the
 * end of the last packet's slot (@p s->next_tsc) and @p end_tsc (when the
 * task ended, or its duration's deadline if that came first). A gen that
 * kept its schedule gives 1; each cycle it owed and did not send lowers it.
 *
 * @param s the schedule; @param end_tsc the end as above
 * @param window_tsc if not NULL, the sending time in cycles
 * @return the ratio (1 for a task never polled)
 */
double lr_gen_offered(const struct lr_gen_sched *s, uint64_t end_tsc,
		      double *window_tsc);

/**
 * Is a paced task short: its offered ratio below @p tolerance?
 * A tiny epsilon keeps a ratio of exactly the tolerance (a run that sends
 * tolerance x asked) on the right side despite rounding.
 */
bool lr_gen_is_short(double offered, double tolerance);

/** Is the conf IPv6 (after the defaults have followed a v6 address)? */
bool lr_gen_ipv6(const struct lr_gen_conf *c);

extern const struct lr_role lr_gen_role;

/** gen's options without those of the replay (--pcap ...): what roles
 *  that send as gen does (rtt) take. */
extern const struct lr_opt lr_gen_frame_opts[];


#endif
