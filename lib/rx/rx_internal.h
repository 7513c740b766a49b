/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the rx role share, inside lib/rx only: a task's state,
 * a flow's latency, and the functions one file gives the others. Not a
 * public header (lr_rx.h is).
 *
 *   rx.c         the fast path: find the header, account the sequence and
 *                the latency; its burst loop last
 *   rx_setup.c   options, setup and free of a task, the role
 *   rx_report.c  the readers of lr_rx.h, a task's JSON, the `rx` section,
 *                CSV, live line, time series, samples-out and dist-out,
 *                check, verdict
 */
#ifndef LR_RX_INTERNAL_H
#define LR_RX_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_common.h>

#include "lr_clock.h"
#include "lr_engine.h"
#include "lr_hist.h"
#include "lr_port.h"
#include "lr_rx.h"
#include "lr_seq.h"

/*
 * A flow's latency and jitter (--flow-latency): min, mean, max, a coarse
 * histogram for its p99 (lr_hist.h's layout at 8 sub-buckets a power of
 * two: within 6 %), RFC 3550's
 * interarrival jitter (J += (|D| - J) / 16, D the change of the transit
 * time between consecutive frames of the flow, in arrival order) and the
 * mean |D|. 2.1 KB a flow, apart from the sequence table.
 */
#define FLAT_SUB_BITS 3
#define FLAT_MAX_BITS 34		/* 17 s; above: the last bucket */
#define FLAT_BUCKETS LR_HIST_NB(FLAT_SUB_BITS, FLAT_MAX_BITS)

struct lr_flat {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t prev;			/* the last frame's latency */
	uint64_t dsum;			/* sum of |D| over count - 1 pairs */
	double jitter;			/* RFC 3550 J, ns */
	uint64_t b[FLAT_BUCKETS];
} __rte_cache_aligned;

struct rx {
	struct lr_rx_counts c;		/* written by the task's lcore only */
	uint64_t remaining;		/* UINT64_MAX: no limit */
	struct lr_seq *flows;
	uint32_t nb_flows;
	uint32_t flow_base;
	bool latency;
	uint64_t tsc_floor;		/* TX stamps before it: another clock */
	uint64_t ns_mult;		/* ns = cycles * ns_mult >> 32 */
	double ns_per_cycle;		/* for spans past 2^32 cycles */
	struct lr_hist *hist;		/* NULL without latency */
	struct lr_flat *flat;		/* per flow, NULL unless flow-latency */
	/* rtt: the reflector's residence (its stamps) and the RTT less it;
	 * NULL unless the conf asks for them. */
	struct lr_hist *res, *net;
	uint64_t unstamped;		/* rtt: frames without stamps */
	uint64_t unreflected;		/* rtt: frames back as they were sent */
	uint8_t sent_src_mac[6];	/* rtt: gen's Ethernet source */
	uint64_t *samp;			/* latency samples, NULL: none kept */
	uint32_t nb_samp, max_samp;
	char samples_out[256];		/* where they go after the run */
	char dist_out[256];
	uint8_t out_round;		/* lr_rx_stopped(): 1 this stop's, 2 written */
	/* The port's drops when the task was made and when it was done
	 * (control path): what the port dropped itself while the task ran
	 * is the tester's loss (lr_rx_verdict()). */
	struct lr_port_drops port_at_init;
	struct lr_port_drops port_at_end;
	bool port_end_taken;
	/* A capture replayed without latency: a flow's first and last
	 * times are the capture's (its us stamps, on the TSC's scale from
	 * the first one), so that durations and rates are the trace's. */
	bool trace;
	struct lr_clock_rx stamps;	/* what the capture's stamps mean */
	uint64_t ts0_ns;		/* first stamp seen, 0: none yet */
	uint64_t tsc0;			/* TSC at init: ts0_ns maps here */
	double tsc_per_ns;
};

/* rx.c: one burst (lr_engine.h's poll). */
int lr_rx_poll(struct lr_task *t, uint64_t now);

/* rx_report.c (lr_engine.h's report, results, live, sample, stopped,
 * check, verdict; write_csv is lr_rx_write_csv()). */
void lr_rx_report(const struct lr_task *t, json_t *o);
/* What lr_rx_report() and the rx section count (lr_counter.h). */
extern const struct lr_counters lr_rx_counters;
void lr_rx_results(json_t *doc);
void lr_rx_live(char *buf, size_t len);
void lr_rx_sample(json_t *o);
void lr_rx_stopped(void);
int lr_rx_check(void);
enum lr_verdict lr_rx_verdict(const struct lr_task *t, char *why, size_t len);

#endif
