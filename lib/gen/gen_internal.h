/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What gen.c (the role: template, flows, pacing, the tx loop) and
 * gen_conf.c (its options: parsing, checks, the flow and size tables a conf
 * describes) share. Not a public header.
 */
#ifndef LR_GEN_INTERNAL_H
#define LR_GEN_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lr_engine.h"
#include "lr_gen.h"

/* A stalled sender catches up at most this far by default: never an
 * unbounded burst. What it owes beyond is counted late, not hidden. */
#define GEN_CATCH_UP_S 100e-6
#define GEN_RATE_TOLERANCE 0.999
/* No tx progress this long while packets wait: the port has stopped
 * taking them (link down, memif peer gone). */
#define GEN_STALL_TIMEOUT_S 1.0

/* splitmix64: a seeded, repeatable sequence for shuffles and sizes. */
static inline uint64_t
next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One flow as the fast path writes it: all network order, with the parts of
 * the checksums that do not change from packet to packet. */
struct gen_flow {
	uint32_t id;		/* flow id, host order */
	uint32_t seq;		/* next sequence number */
	rte_be32_t src_lo;	/* IPv4 address, or an IPv6 address's last 32 bits */
	rte_be32_t dst_lo;
	rte_be16_t src_port;
	rte_be16_t dst_port;
	uint32_t ip_sum;	/* IPv4 header without length and checksum */
	uint32_t udp_sum;	/* pseudo-header addresses and protocol, ports,
				 * magic and flow id */
};

struct gen_size {
	uint32_t len;		/* frame without FCS */
	uint32_t pay_sum;	/* payload after lr_pkt_hdr, for the UDP sum */
	double cost;		/* TSC cycles this frame takes at the rate */
};

struct gen {
	struct rte_mempool *pool;	/* mbufs pre-filled with the template */
	struct gen_flow *flows;
	uint32_t nb_flows;
	uint32_t next_flow;
	struct gen_size *sizes;
	uint32_t nb_sizes;
	uint32_t next_size;
	uint16_t burst;
	bool ipv6;
	bool cksum;			/* UDP checksum per packet */
	bool fixed;
	struct lr_replay *rp;		/* --pcap: the capture, NULL: none */
	uint64_t remaining;		/* packets still to build */
	uint64_t bytes_left;		/* frame bytes still to build */
	bool paced;
	/* The schedule is kept in whole cycles plus a fraction: a double
	 * holding the TSC itself loses the fraction once the TSC is large
	 * (past 2^53, after some 40 days at 2.5 GHz, it cannot even hold
	 * whole cycles) and rounds every slot the same way: a rate error
	 * that grows with the uptime. */
	struct lr_gen_sched sched;	/* written by the lcore */
	uint64_t max_lag_tsc;		/* the catch-up bound */
	uint64_t max_lag_seen_tsc;	/* longest lag past the catch-up bound */
	double mean_cost;		/* TSC cycles per packet on average */
	uint16_t nb_pend;		/* built but not yet taken by the queue */
	struct rte_mbuf *pend[LR_BURST];
	/* control path only */
	struct lr_gen_conf conf;
	uint32_t first_flow;		/* global id of flows[0]'s slice start */
	uint32_t max_len;
	double mean_frame;
	double rate_pps;		/* this task's, 0: unlimited */
	double per_pkt_tsc;		/* cost of a frame: per_pkt + per_byte x */
	double per_byte_tsc;		/* frame bytes with FCS, in cycles */
	uint64_t want_pkts;		/* its count share, 0: no limit */
	uint64_t ctl_tx;		/* stall watch: tx_pkts last seen */
	uint64_t ctl_alloc_fail;	/* and alloc_fail */
	uint64_t ctl_since_tsc;		/* since when neither moved */
	bool failed;			/* ended: the port stopped taking frames */
	char why[384];			/* and why, for the verdict */
};

struct lr_task;
struct lr_replay;

/* The fast path's shared steps (gen.c and replay.c). */
/* Move the schedule on by @p cost cycles: the whole ones into the
 * integer, the fraction kept apart so that no slot is ever rounded. */
static inline void
lr_gen_advance(struct lr_gen_sched *sc, double cost)
{
	uint64_t whole;

	cost += sc->next_frac;
	whole = (uint64_t)cost;
	sc->next_tsc += whole;
	sc->next_frac = cost - (double)whole;
}

/* Send what is pending; @return true when the queue took all of it. */
static inline bool
lr_gen_flush(struct lr_task *t, struct gen *g)
{
	uint16_t sent = rte_eth_tx_burst(t->port, t->queue, g->pend, g->nb_pend);
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < sent; i++)
		bytes += g->pend[i]->pkt_len;
	t->st.tx_pkts += sent;
	t->st.tx_bytes += bytes;
	if (sent == g->nb_pend) {
		g->nb_pend = 0;
		return true;
	}
	/* The queue is full: keep the rest for the next turn, in order. */
	memmove(g->pend, g->pend + sent, (g->nb_pend - sent) * sizeof(g->pend[0]));
	g->nb_pend -= sent;
	t->st.tx_retry++;
	return false;
}

/* Is a paced task due at @p now? The first call starts the schedule. A
 * task behind by more than the catch-up bound (the lcore taken away, or
 * slower than the rate) makes up at most the bound; what it gives up is
 * counted late. *@p lag: how far behind it is. */
static inline bool
lr_gen_due(struct gen *g, uint64_t now, uint64_t *lag)
{
	struct lr_gen_sched *sc = &g->sched;

	if (unlikely(sc->first_tsc == 0))
		sc->first_tsc = sc->next_tsc = now;	/* first burst */
	if (sc->next_tsc > now)
		return false;
	*lag = now - sc->next_tsc;
	if (unlikely(*lag > g->max_lag_tsc)) {
		if (*lag > g->max_lag_seen_tsc)
			g->max_lag_seen_tsc = *lag;
		sc->late_tsc += *lag - g->max_lag_tsc;
		sc->next_tsc = now - g->max_lag_tsc;
		*lag = g->max_lag_tsc;
	}
	return true;
}

/* gen's log type (gen.c), for replay.c's warnings at load. */
extern int lr_gen_logtype;

/* --pcap (replay.c): load the capture into the task's memory, send it.
 * init: 0 or -errno (lr_errmsg says why); g->rp set. */
int lr_replay_init(struct lr_task *t, struct gen *g, double hz);
int lr_replay_poll(struct lr_task *t, struct gen *g, uint64_t now);
void lr_replay_report(const struct gen *g, json_t *o);
void lr_replay_free(struct gen *g);

/* For tests/fuzz/fuzz_replay (not the fast path): where parse() found a
 * frame's headers, and what a replay would rewrite. */
struct lr_replay_frame_info {
	uint16_t l3;		/* IP header, 0: not IP */
	uint16_t l4csum;	/* UDP/TCP checksum field, 0: none to fix */
	uint16_t stamp;		/* UDP data stamped, 0: none */
	uint8_t l3type;		/* 0 none, 1 IPv4, 2 IPv6 */
	bool udp;
	bool has_key;		/* a 5-tuple (a flow to stamp) */
	bool shifted;		/* the source address was shifted */
	bool stamped;		/* linerate's header was written */
};

/* Parse frame @p d of @p len bytes as a capture's frame is, then into
 * @p out (len bytes) the frame as a replay sends it: the source shifted
 * by @p delta (when not 0 and IP), stamped when @p stamp and it has room. */
void lr_replay_check_frame(const uint8_t *d, uint32_t len, uint32_t delta,
			   bool stamp, uint8_t *out,
			   struct lr_replay_frame_info *fi);

/* The capture at @p path read as lr_replay_init() reads it (one pass;
 * flows numbered when @p stamp), frames longer than @p max_frame refused,
 * then @p each called on every frame loaded; all freed again. EAL needed
 * (the flow table). @return 0, or the error lr_replay_init() would give,
 * or -ERANGE: a frame loaded lies outside what was read (a bug). */
int lr_replay_check_file(const char *path, uint32_t max_frame, bool stamp,
			 void (*each)(const uint8_t *d, uint32_t len,
				      const struct lr_replay_frame_info *fi,
				      uint32_t flow, void *arg),
			 void *arg);

/* The same from the stream @p f (closed here; @p name for messages): a
 * capture that changes while it is read, for fuzz_replay. */
int lr_replay_check_stream(FILE *f, const char *name, uint32_t max_frame,
			   bool stamp,
			   void (*each)(const uint8_t *d, uint32_t len,
					const struct lr_replay_frame_info *fi,
					uint32_t flow, void *arg),
			   void *arg);

/* The conf's source and destination ranges, IPv6 defaults applied.
 * @return 0, or -EINVAL for mixed families (lr_errmsg says which). */
int lr_gen_ranges(const struct lr_gen_conf *c, struct lr_ip_range *src,
		  struct lr_ip_range *dst);

/* gen's option table (lr_opt.h). */
extern const struct lr_opt lr_gen_opts[];

/* The role's conf hooks (struct lr_role). */
void lr_gen_conf_init_any(void *conf);
int lr_gen_conf_set_key(void *conf, const char *key, const char *val);
int lr_gen_conf_check(const void *conf);

#endif
