/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Sums of the per-task counters: the live line once a second, the JSON
 * result document, and rte_telemetry commands under /linerate/.
 *
 * Threading: lr_stats_tick() and lr_stats_results() run on the main lcore;
 * the telemetry callbacks run on DPDK's telemetry thread and take the engine's
 * task-list lock. Workers are never stopped or locked to be read: a reader
 * may see a counter one burst old.
 */
#ifndef LR_STATS_H
#define LR_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/** Everything summed over all tasks and set-up ports. */
struct lr_stats_totals {
	uint64_t tx_pkts;
	uint64_t tx_bytes;	/**< without FCS */
	uint64_t rx_pkts;
	uint64_t rx_bytes;	/**< without FCS */
	uint64_t drops;		/**< tasks' drops + ports' imissed, ierrors,
				 *   oerrors and rx_nombuf */
};

/** Start the clock of the run and register the telemetry commands. */
void lr_stats_init(void);

/** Sum the counters now. */
void lr_stats_totals(struct lr_stats_totals *out);

/** Switch the per-second live line on or off (default on), and its stream. */
void lr_stats_live(bool on, FILE *out);

#define LR_STATS_SERIES_MIN_S 0.001	/**< shortest period of the series */
#define LR_STATS_SERIES_MAX 1000000	/**< samples kept; later ones are
					 *   counted in series_dropped */

/**
 * Keep a time series in the result document ("series"), a sample each
 * @p period_s seconds while the main lcore waits (lr_stats_tick()): t_s,
 * interval_s, tx_pps, rx_pps, tx_bps, rx_bps (L2 with FCS), local_drops,
 * and each role's own over the interval (rx: received, lost, per and
 * latency quantiles). 0 stops it. Starts a new series.
 * @return 0, or -EINVAL for a period outside 1 ms .. 1 h.
 */
int lr_stats_series(double period_s);

/** Take the series' last sample now, over a shorter interval: at the end
 *  of a run, so that the series holds all of it. */
void lr_stats_series_flush(void);

/** Print the live line if a second has passed and take the series' sample
 *  if a period has; called by the engine's waits. */
void lr_stats_tick(void);

/**
 * The result document: version, elapsed time, ports with their ethdev
 * counters, tasks with theirs, totals. The caller owns the reference.
 */
json_t *lr_stats_results(void);

/** Write lr_stats_results() to @p path ("-": stdout). @return 0 or -errno. */
int lr_stats_write_json(const char *path);

#endif
