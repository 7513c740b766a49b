/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The rx role: receives from one (port, queue) and accounts for every flow
 * of linerate's traffic (lr_pkt_hdr after Ethernet, an optional 802.1Q tag,
 * IPv4 or IPv6, and UDP): packets, bytes, loss, reordering, duplicates,
 * restarts (lr_seq.h) and latency from the TX timestamp (lr_hist.h).
 *
 * Each task has its own flow table, indexed by flow id - flow_base; the
 * reports merge the tables of every rx task by flow id. RSS keeps a flow on
 * one queue, and gen keeps it on one tx queue, so one task sees all of it.
 *
 * Threading: as lr_gen.h. lr_rx_counts(), lr_rx_flow() and lr_rx_write_csv()
 * are control path; they read the lcores' counters as they run.
 */
#ifndef LR_RX_H
#define LR_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "lr_engine.h"
#include "lr_hist.h"
#include "lr_seq.h"

#define LR_RX_FLOWS_DEFAULT 65536
#define LR_RX_FLOWS_MAX (1u << 24)

struct lr_rx_conf {
	uint64_t count;		/**< stop after this many packets, 0: no limit */
	uint32_t flows;		/**< flow table entries */
	uint32_t flow_base;	/**< flow id of entry 0 */
	bool latency;		/**< TX timestamps share this TSC (default on) */
};

void lr_rx_conf_init(struct lr_rx_conf *c);

extern const struct lr_role lr_rx_role;

/** Totals of one rx task beyond struct lr_task_stats. */
struct lr_rx_counts {
	uint64_t own;		/**< frames with a valid linerate header */
	uint64_t foreign;	/**< not UDP over IPv4/IPv6, or no magic */
	uint64_t untracked;	/**< own, flow LR_FLOW_NONE (gen's fixed mode) */
	uint64_t unknown_flow;	/**< own, flow id outside the table */
	uint64_t malformed;	/**< own magic, lengths that do not fit the frame */
	int64_t lost;		/**< sum over the flows */
	uint64_t out_of_order;
	uint64_t dup;
	uint64_t seq_too_high;
	uint64_t seq_too_low;
	uint64_t late;
	uint64_t restarts;
	uint64_t latency_invalid;/**< TX timestamp after the receive time */
	uint64_t past_count;	/**< received past --count, freed unread */
};

/** Read them (control path; a snapshot while the task runs). */
void lr_rx_counts(const struct lr_task *t, struct lr_rx_counts *out);

/** The flow with id @p flow in task @p t, or NULL. */
const struct lr_seq *lr_rx_flow(const struct lr_task *t, uint32_t flow);

/** The task's latency histogram (ns), or NULL without latency. */
const struct lr_hist *lr_rx_latency(const struct lr_task *t);

/**
 * Write the per-flow table merged over every rx task as CSV: one line per
 * flow that received or lost packets. @return 0 or -errno.
 */
int lr_rx_write_csv(const char *path);

#endif
