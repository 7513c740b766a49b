/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The distributor (role "dist"): the firmware model as a pipeline stage for
 * a port without the NIC features of the flow-monitoring paper. It receives
 * from one rx queue (pcap, memif, af_packet, a NIC without RSS), stamps
 * every packet with a ns timestamp, parses it through a firmware backend
 * (struct lr_fw_ops: the fast one, lr_fw_fast.h, or firmware-model/'s)
 * and hands it to one of N channels by a Toeplitz hash of its addresses and
 * ports, so that every flow stays whole on one channel and the probe's
 * shards scale over lcores on any port:
 *
 *   ingress full, trim=B  the mbuf goes through the channel's ring, its
 *                         timestamp in DPDK's rx timestamp dynfield (the
 *                         probe reads the first B bytes with trim);
 *   ingress uh            a 72 B Unified Header record (struct lr_fw_uh)
 *                         goes through the ring and the mbuf is freed here:
 *                         the probe never touches packet bytes.
 *
 * Where the port has the feature, the NIC's is used instead of the model's:
 * its RSS hash (RTE_MBUF_F_RX_RSS_HASH) picks the channel, its rx timestamp
 * (RTE_ETH_RX_OFFLOAD_TIMESTAMP, device clock taken as ns) is the time. A
 * port replaying a capture file (lr_capture.h) gives each packet its
 * capture time, and the distributor ends at the end of the file.
 * A port with several RSS queues needs no distributor at all.
 *
 * Malformed packets (the parse reasons of lr_parse.h) are counted and
 * dropped here. The distributor receives no more than every channel ring
 * has room for, so a slow shard holds packets back in the port (a NIC then
 * counts what it misses in imissed; a pcap file is read whole); a ring that
 * refuses a packet all the same is counted (channel_ring_full).
 *
 * The probe's side is the channel (struct lr_dist_channel): a probe task
 * is given a dist task (or takes lr_dist_last() of its port), asks it for
 * one channel with lr_dist_channel(), dequeues that ring, reads its time
 * as the channel's rx says, decodes UH records with lr_parsed_from_uh(), and
 * stops once the dist task is done and the ring empty. lib/probe uses
 * nothing else of this library but the conf (lr_dist_conf, lr_ingress_*)
 * and lr_dist_add_parsed() for its totals.
 *
 * Threading: the poll runs on the distributor's lcore and is the single
 * producer of every channel ring; each probe task on a channel is its
 * single consumer.
 */
#ifndef LR_DIST_H
#define LR_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "lr_clock.h"
#include "lr_engine.h"
#include "lr_fw.h"
#include "lr_parse.h"

#define LR_DIST_CHANNELS_MAX 64

/** What the probe takes in (the paper's Fig. 5 modes). */
enum lr_ingress {
	LR_INGRESS_FULL = 0,	/**< whole packets */
	LR_INGRESS_TRIM,	/**< the first trim bytes, original length kept */
	LR_INGRESS_UH,		/**< Unified Header records, no packet bytes */
};

struct lr_dist_conf {
	uint32_t channels;		/**< 1..64 (probe: 0 = no distributor) */
	uint32_t ring;			/**< records per channel ring (4096) */
	uint64_t count;			/**< stop after this many packets, 0: no */
	uint8_t ingress;		/**< enum lr_ingress (full) */
	uint16_t trim;			/**< bytes with LR_INGRESS_TRIM */
	bool l3;			/**< hash the addresses only (no) */
	bool model;			/**< firmware-model/'s backend (no: fast) */
	uint8_t key[LR_FW_KEY_MAX];	/**< hash key (symmetric) */
	uint8_t key_len;
};

void lr_dist_conf_init(struct lr_dist_conf *c);

/** The distributor's options as a table (lr_opt.h). */
extern const struct lr_opt lr_dist_opts[];

/**
 * Set one option: channels, channel-ring, hash (l3|l4), hash-key
 * (symmetric | ms | hex bytes), backend (fast|model), ingress, trim, count.
 * @return 0, -ENOENT (not a dist option) or -EINVAL.
 */
int lr_dist_conf_set(struct lr_dist_conf *c, const char *key, const char *val);

/** Parse "full", "trim=B" (64..9018) or "uh". @return 0 or -EINVAL. */
int lr_ingress_parse(const char *val, uint8_t *ingress, uint16_t *trim);

/**
 * Option @p key "ingress" (lr_ingress_parse()) or "trim" (B, as
 * "trim=B"; 0: full) into *@p ingress and *@p trim, as the distributor
 * and the probe both take them. @return 0 or -EINVAL.
 */
int lr_ingress_set(const char *key, const char *val, uint8_t *ingress,
		   uint16_t *trim);

extern const char *const lr_ingress_names[3];

extern const struct lr_role lr_dist_role;

/** One channel of a running distributor, as a probe task takes it. */
struct lr_dist_channel {
	struct rte_ring *ring;		/**< mbufs, or struct lr_fw_uh with uh */
	const struct lr_task *dist;	/**< done and ring empty: no more */
	uint8_t ingress;		/**< enum lr_ingress */
	uint16_t trim;
	/** The stamp the distributor gives every mbuf it hands on (not with
	 *  uh: a record's ts_ns): Unix ns in the rx timestamp dynfield. With
	 *  rx.trace it replays a capture: every packet's stamp is its capture
	 *  time, and time moves only with the trace. */
	struct lr_clock_rx rx;
	/** Trace time the distributor has handed on every packet up to
	 *  (Unix ns, atomic, release after the enqueue): a probe whose ring
	 *  is empty has seen all of its channel's packets to then. */
	const uint64_t *clock;
};

/**
 * Channel @p ch of dist task @p dist, for a probe task to read: the
 * probe's side of the interface. The ring stays valid until the dist task
 * is freed (lr_engine_cleanup), and the probe is its only consumer.
 * Control path.
 *
 * @return 0, -EINVAL (@p dist is not a dist task) or -ENOENT (it has
 *   fewer channels).
 */
int lr_dist_channel(const struct lr_task *dist, unsigned int ch,
		    struct lr_dist_channel *out);

/**
 * The dist task made last on @p port, or NULL: the one a probe given a
 * channel but no dist task reads (the scripts' documented form; at most
 * one runs per port). Control path.
 */
struct lr_task *lr_dist_last(uint16_t port);

/*
 * A dist task's counters, each named once: X(field, JSON key or NULL,
 * metric or NULL, kind, unit, help) (lr_counter.h's rows); parsed[]
 * (malformed, by reason) and channel[] (handed, per channel) apart.
 */
#define LR_DIST_COUNTERS(X) \
	X(ring_full, "channel_ring_full", NULL, NONE, "frames", \
	  "refused by a channel's full ring") \
	X(nic_hash, "nic_hash", NULL, NONE, "frames", \
	  "channel by the NIC's RSS hash") \
	X(nic_ts, "nic_timestamps", NULL, NONE, "frames", \
	  "time from the NIC's stamp") \
	X(frag_steered, "fragments_steered", NULL, NONE, "frames", \
	  "later fragment to its first's channel") \
	X(frag_unmatched, "fragments_unmatched", NULL, NONE, "frames", \
	  "later fragment, its first unseen") \
	X(busy_tsc, NULL, NULL, NONE, "cycles", \
	  "TSC cycles spent on bursts (cycles_per_packet)")

/** Add the packets dist task @p t found malformed, by reason. */
void lr_dist_add_parsed(const struct lr_task *t, uint64_t parsed[LR_PARSE_REASONS]);

/** The packet fields of a UH record, as the flow cache takes them. */
static inline void
lr_parsed_from_uh(const struct lr_fw_uh *uh, struct lr_parsed *p)
{
	__builtin_memcpy(p->src, uh->src, 16);
	__builtin_memcpy(p->dst, uh->dst, 16);
	p->sport = uh->sport;
	p->dport = uh->dport;
	p->vlan = uh->vlan;
	p->vlan_inner = uh->vlan_inner;
	p->tcp_flags = uh->tcp_flags;
	p->ip_bytes = uh->ip_bytes;
	p->frag_id = uh->frag_id;
	p->l4_off = 0;
	p->ipv6 = uh->ip_ver == 6;
	p->proto = uh->proto;
	p->tos = uh->tos;
	p->ttl = uh->ttl;
	p->frag = uh->frag;
	p->mpls = 0;
}

#endif
