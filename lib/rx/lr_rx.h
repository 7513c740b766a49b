/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The rx role: receives from one (port, queue) and accounts for every flow
 * of linerate's traffic (lr_wire_hdr after Ethernet, an optional 802.1Q tag,
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
/** A TX timestamp this long before the rx task was made is another
 *  clock's: frames reach an rx queue only once its port has started, and
 *  the sender's stamps on one TSC come after that less what a ring holds
 *  (microseconds to milliseconds). A capture read back stamps its frames
 *  with the TSC of the run that sent them (314956736.9 us "latency"). */
#define LR_RX_CLOCK_SLACK_S 1.0

struct lr_rx_conf {
	uint64_t count;		/**< stop after this many packets, 0: no limit */
	uint32_t flows;		/**< flow table entries */
	uint32_t flow_base;	/**< flow id of entry 0 */
	bool latency;		/**< TX timestamps share this TSC (default on) */
	bool flow_latency;	/**< latency and jitter per flow (off) */
	uint32_t samples;	/**< latency samples kept for samples-out and
				 *   dist-out: the first N of each task (1M) */
	char samples_out[256];	/**< write them there, one ns a line ("": no) */
	char dist_out[256];	/**< write them as a netem distribution table
				 *   (iproute2's maketable) there ("": no) */
	/* Not options: what the rtt role's plan asks of its rx tasks. */
	bool keep_samples;	/**< keep the samples for lr_rx_samples() */
	bool residence;		/**< histograms of the reflector's residence
				 *   (its stamps) and the RTT less it */
	uint8_t sent_src_mac[6];	/**< rtt: the Ethernet source its gen
					 *   sends with: a frame back with it
					 *   and no reflector's mark is its own
					 *   frame looped (unreflected) */
};

void lr_rx_conf_init(struct lr_rx_conf *c);

extern const struct lr_role lr_rx_role;

/**
 * Totals of one rx task beyond struct lr_task_stats: its frame categories,
 * each named once, X(field, JSON key, metric or NULL, kind, unit, help)
 * (lr_counter.h's rows); with LR_SEQ_COUNTERS (summed over the flows) and
 * lost, the totals.
 */
#define LR_RX_FRAMES(X) \
	X(own, "own_packets", NULL, NONE, "frames", \
	  "Frames with a valid linerate header.") \
	/* not UDP over IPv4/IPv6, or no magic */ \
	X(foreign, "foreign_packets", "rx_foreign_packets_total", COUNTER, "frames", \
	  "Frames that were not linerate's.") \
	X(untracked, "untracked_packets", NULL, NONE, "frames", \
	  "Own frames of flow LR_FLOW_NONE (gen's fixed mode).") \
	/* own, flow id outside the table */ \
	X(unknown_flow, "unknown_flow_packets", "rx_unknown_flow_packets_total", \
	  COUNTER, "frames", "Frames of a flow outside rx's table.") \
	/* own magic, lengths that do not fit the frame */ \
	X(malformed, "malformed_packets", "rx_malformed_packets_total", COUNTER, \
	  "frames", "Frames of linerate's too short or broken to account.") \
	X(latency_invalid, "latency_invalid", NULL, NONE, "frames", \
	  "Frames whose TX timestamp is after the receive time.") \
	X(latency_foreign_clock, "latency_foreign_clock", NULL, NONE, "frames", \
	  "Frames whose TX timestamp is of another clock: over " \
	  "LR_RX_CLOCK_SLACK_S before the rx task, or any read from a capture.") \
	X(past_count, "past_count_packets", NULL, NONE, "frames", \
	  "Frames received past --count, freed unread.")

struct lr_rx_counts {
#define LR_RX_FIELD(name, ...) uint64_t name;
	LR_RX_FRAMES(LR_RX_FIELD)
	LR_SEQ_COUNTERS(LR_RX_FIELD)
#undef LR_RX_FIELD
	int64_t lost;		/**< sum over the flows */
};

/** Read them (control path; a snapshot while the task runs). */
void lr_rx_counts(const struct lr_task *t, struct lr_rx_counts *out);

/** The flow with id @p flow in task @p t, or NULL. */
const struct lr_seq *lr_rx_flow(const struct lr_task *t, uint32_t flow);

/** The task's latency histogram (ns), or NULL without latency. */
const struct lr_hist *lr_rx_latency(const struct lr_task *t);

/**
 * The reflector's residence time (ns) from its stamps (lr_wire.h) and the
 * latency less it, for a task made with conf.residence; NULL otherwise.
 * @param net gets the latency less the residence
 * @param unstamped gets the frames that came back without stamps
 */
const struct lr_hist *lr_rx_residence(const struct lr_task *t,
				      const struct lr_hist **net,
				      uint64_t *unstamped);

/** rtt: frames that came back as they were sent: no reflector's mark
 *  (LR_HDR_REFLECTED, lr_wire.h) and the Ethernet source gen sent them
 *  with (a looped port; a kernel's UDP echo answers from its own
 *  address), for a task made with conf.residence. */
uint64_t lr_rx_unreflected(const struct lr_task *t);

/** The latency samples kept (ns, in arrival order, at most conf.samples):
 *  *@p n of them, or NULL when none are kept. Control path, after the run. */
const uint64_t *lr_rx_samples(const struct lr_task *t, uint32_t *n);

/**
 * Write the per-flow table merged over every rx task as CSV: one line per
 * flow that received or lost packets. @return 0 or -errno.
 */
int lr_rx_write_csv(const char *path);

#endif
