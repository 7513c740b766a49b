/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The probe role: one flow cache shard per rx queue (RSS picks the shard:
 * with the symmetric key both directions of a flow meet on one lcore),
 * tables on the port's NUMA socket, expired records handed through a
 * per-task rte_ring to the process's one IPFIX exporter (lr_exporter.h).
 *
 * Threading: the poll runs on the task's lcore and writes only its cache,
 * its counters and its ring. The exporter drains the rings (the role's
 * tick hook on the main lcore, and its own alarm) and, once the lcores
 * have stopped, the main lcore flushes every cache into it (the stopped
 * hook).
 */
#ifndef LR_PROBE_H
#define LR_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "lr_distributor.h"
#include "lr_engine.h"
#include "lr_exporter.h"
#include "lr_parse.h"

struct lr_probe_conf {
	/* Defaults: the flow cache's own (LR_FC_*_DEFAULT, lr_flowcache.h). */
	uint32_t entries;		/**< flow cache capacity per task */
	uint32_t active_s;		/**< active timeout, s */
	uint32_t inactive_s;		/**< inactive timeout, s */
	uint32_t ring;			/**< export ring records per task (16384) */
	uint64_t count;			/**< stop after this many packets, 0: no */
	uint32_t trim;			/**< parse only this many bytes, 0: all */
	uint8_t ingress;		/**< enum lr_ingress (full; trim with trim) */
	int32_t channel;		/**< take packets from this channel of a
					 *   dist task, -1: from the queue */
	int32_t dist_task;		/**< that dist task's id; -1: the one
					 *   made last on the port */
	uint32_t ndpi_flows;		/**< nDPI flow states per task (app) */
	uint8_t flow_ext;		/**< what the flow extensions look
					 *   for: 1 << enum lr_app, enum lr_xtra
					 *   << 5 (probe_internal.h) */
	char pcap[256];			/**< read this capture file loaded in
					 *   memory (lr_pcapmap.h) instead of
					 *   the port's queue, "": the queue */
	/** The exporter's options (lr_exporter_conf_set): every probe
	 *  task of a process gives the same. */
	struct lr_exporter_conf export;
};

void lr_probe_conf_init(struct lr_probe_conf *c);

/**
 * The probe role. Its companion (with) is the distributor: its plan
 * (lr_role_plan(), the CLI's --role probe, linerate.plan{}) lays, with
 * the distributor's conf at channels == 0, one task per rx queue (RSS
 * picks the shard), lcores taken in turn; else a dist task of that conf
 * on queue 0 on lcores[0] and one probe task per channel on the lcores
 * after it (channel i on lcores[(i + 1) % n]). More channels than lcores
 * is an error.
 */
extern const struct lr_role lr_probe_role;

/** Counters of a probe task beyond struct lr_task_stats. */
/* A probe task's own counters, each named once: X(field, JSON key or
 * NULL, metric or NULL, kind, unit, help) (lr_counter.h's rows);
 * parsed[] (by parse result) apart. */
#define LR_PROBE_COUNTERS(X) \
	X(ring_full, "export_ring_full", NULL, NONE, "records", \
	  "records the ring refused") \
	X(past_count, "past_count_packets", NULL, NONE, "frames", \
	  "received past --count, freed unread") \
	X(busy_tsc, NULL, NULL, NONE, "cycles", \
	  "TSC cycles spent on bursts (cycles_per_packet)")

struct lr_probe_counts {
	uint64_t parsed[LR_PARSE_REASONS];	/**< packets by parse result */
#define LR_PROBE_FIELD(name, ...) uint64_t name;
	LR_PROBE_COUNTERS(LR_PROBE_FIELD)
#undef LR_PROBE_FIELD
};

void lr_probe_counts(const struct lr_task *t, struct lr_probe_counts *out);

/**
 * After the tasks have stopped: did the exporter deliver every record the
 * probes gave it? For the application's exit status; the exporter's own
 * lr_exporter_check().
 *
 * @return 0, or -EIO with lr_errmsg() saying how many records were lost
 *   and where to (records_lost in the result document).
 */
int lr_probe_export_check(void);

#endif
