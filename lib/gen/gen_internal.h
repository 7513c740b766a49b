/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A gen task's state and the fast path's steps that gen.c (the role:
 * template, flows, pacing, the tx loop) and replay.c (--pcap) share, with
 * gen_conf.c's defaults. Header only, so that the three files' includes
 * form a tree: gen.c -> replay.c (gen_replay.h) -> gen_conf.c (gen_conf.h).
 * Not a public header.
 */
#ifndef LR_GEN_INTERNAL_H
#define LR_GEN_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lr_change.h"
#include "lr_engine.h"
#include "lr_gen_conf.h"
#include "gen_conf.h"
#include "lr_gen_sched.h"

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
	uint8_t l2[8];		/* frame bytes 12..19: the tags with this
				 * flow's VIDs (untagged: the EtherType and
				 * the IP header's first bytes, as the
				 * template has them), written per packet as
				 * one store: no branch on "tagged" */
};

struct gen_size {
	uint32_t len;		/* frame without FCS */
	uint32_t pay_sum;	/* payload after lr_wire_hdr, for the UDP sum */
	double cost;		/* TSC cycles this frame takes at the rate */
};

/*
 * A pacing: the rate and what it costs each size in TSC cycles (a replay's
 * frames: the capture's gap times gap_k, plus per_pkt_tsc and per_byte_tsc
 * per frame under --rate). gen.pace0 is the task's start's; each
 * task:set{rate=} (a replay's: multiplier= or rate=) makes a new block on
 * the control path and publishes it (lr_change.h); the worker takes it at
 * a due burst (an acquire load per burst), writes where the schedule
 * stood, then applied_tsc (a release store) and is the block's only writer
 * from then on. lr_gen_pace_use() copies what the fast path reads: a block
 * is read by the worker only while it switches to it.
 */
struct gen_pace {
	struct lr_change ch;		/* first: the change's head */
	struct lr_rate rate;
	double rate_pps;		/* this task's share, 0: unlimited */
	double mean_cost;		/* cycles per packet on average */
	double per_pkt_tsc;		/* cost of a frame: per_pkt + per_byte x */
	double per_byte_tsc;
	double gap_k;			/* replay at the capture's timing: 1 /
					 * multiplier, 0: not */
	double multiplier;		/* and the multiplier, 0: not */
	/* the worker's, at the switch */
	uint64_t slot_tsc;		/* the schedule's next slot: the first
					 * paced at this rate */
	double slot_frac;
	uint64_t late_tsc;		/* the schedule's late_tsc then */
	uint64_t pkts_before;		/* packets sent at the rates before */
	double cost[];			/* per size, as gen.sizes */
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
	uint16_t l3;			/* IP header: 14 + 4 per VLAN tag */
	uint16_t l4;			/* UDP header */
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
	uint64_t done_tsc;		/* its last frame taken by the queue
					 * (count, bytes or loops done), 0:
					 * not yet */
	uint64_t max_lag_tsc;		/* the catch-up bound */
	uint64_t max_lag_seen_tsc;	/* longest lag past the catch-up bound */
	/* What the port refused: of the schedule given up (late_tsc), the
	 * part the worker polled through (its frames refused by the queue,
	 * or no mbuf to build them in), not the host's stalls of it. */
	uint64_t refused_tsc;
	uint64_t caught_up;		/* frames sent more than two bursts
					 * behind their slots (making up a
					 * stall) */
	uint64_t last_poll_tsc;		/* the worker's polls, for that */
	uint64_t poll_gap_tsc;
	double mean_cost;		/* TSC cycles per packet on average */
	double gap_k;			/* replay: its frames' capture gaps
					 * (cycles) to their slots, 1 /
					 * multiplier; 0: --rate */
	uint16_t nb_pend;		/* built but not yet taken by the queue */
	struct rte_mbuf *pend[LR_BURST];
	/* control path only */
	struct gen_pace *pace0;			/* the start's pacing */
	/* task:set{}'s pacings: the worker loads changes.pub once per due
	 * burst (lr_change_peek()) */
	struct lr_changes changes;
	/* The offered ratio's pieces before the pacing in force, summed as
	 * the worker's switches are recorded (offered_of()) */
	struct {
		double from, late, m;	/* the last switch: its slot and late
					 * (cycles from the first slot), the
					 * cost of a packet after it */
		double asked, sent, late_pkts;
		uint32_t changes;
	} acc;
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
	uint64_t ctl_retry;		/* and tx_retry */
	uint64_t ctl_since_tsc;		/* since when neither moved */
	bool failed;			/* ended: the port stopped taking frames */
	char why[384];			/* and why, for the verdict */
};

struct lr_replay;

/* Pacing blocks (gen.c), for replay.c too: a new one for g's sizes on
 * @p socket; made the fast path's (at the start); taken by the worker at a
 * burst boundary with nothing pending (changes.pub). */
struct gen_pace *lr_gen_pace_new(const struct gen *g, int socket);
void lr_gen_pace_use(struct gen *g, const struct gen_pace *p);
void lr_gen_pace_switch(const struct lr_task *t, struct gen *g,
			struct gen_pace *p, uint64_t now);

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

/* Has the task sent all it was to (count, bytes, loops) and the queue
 * taken the last of it? Then its sending ended now: the offered ratio's
 * window ends here, not at the task's end some microseconds of polls and
 * bookkeeping later (issue 35 L5: 1000 frames at 1 Mpps were "short",
 * 99.6 %, with no frame late). Once a task. */
static inline void
lr_gen_note_done(struct gen *g)
{
	if (unlikely(g->remaining == 0) && g->nb_pend == 0 && g->done_tsc == 0)
		__atomic_store_n(&g->done_tsc, rte_rdtsc(), __ATOMIC_RELAXED);
}

/* A poll of the worker at @p now: the gap since the one before (a stall
 * of the host, when long). */
static inline void
lr_gen_polled(struct gen *g, uint64_t now)
{
	g->poll_gap_tsc = now - g->last_poll_tsc;
	g->last_poll_tsc = now;
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
		/* Polled through most of the lag: the port held it back. */
		if (g->poll_gap_tsc < (*lag - g->max_lag_tsc) / 2)
			g->refused_tsc += *lag - g->max_lag_tsc;
		sc->next_tsc = now - g->max_lag_tsc;
		*lag = g->max_lag_tsc;
	}
	return true;
}

#endif
