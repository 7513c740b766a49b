/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the probe role share, inside lib/probe only: a task's
 * state and the functions one file gives the others. Not a public header
 * (lr_probe.h is).
 *
 *   probe.c         the fast path: a burst in (port, capture, channel or
 *                   Unified Header records), parsed into the cache, the
 *                   expiry walk, records to the exporter's ring; its poll
 *                   last
 *   probe_setup.c   options, setup and free of a task, the plan, the role
 *   probe_report.c  the exporter's tick and flush at the stop, a task's
 *                   JSON, the `probe` section, live line, the export check
 */
#ifndef LR_PROBE_INTERNAL_H
#define LR_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_ring.h>

#include "lr_clock.h"
#include "lr_engine.h"
#include "lr_flowcache.h"
#include "lr_pcapmap.h"
#include "lr_probe.h"

#define EXPIRE_EVERY_US 100	/* the expiry walk's step */
#define EXPIRE_EVERY_NS (EXPIRE_EVERY_US * 1000ull)

struct probe;
struct probe_ext;
typedef unsigned int (*input_fn)(struct lr_task *t, struct probe *p);

/* What the flow extensions did (probe_ext.c). */
struct lr_probe_ext_counts {
	uint64_t parsed[4];		/* payloads by enum lr_ext_result */
	uint64_t flows[LR_APP_KINDS];	/* records with the application's
					 * fields, by enum lr_app */
	uint64_t partial[LR_APP_KINDS];	/* of those, not whole (a hello
					 * without its answer, cut, broken) */
	uint64_t pool_full;		/* hellos not put together: no
					 * buffer free */
	uint64_t xtra[3];		/* records with basicplus fields, with
					 * a pstats sequence, with a label */
};

/* probe_ndpi.c: nDPI's labels (--flow-ext app). A flow's side: its
 * label, its loan of nDPI's state (pool index + 1, 0: none). */
struct lr_ndpi;
struct lr_ndpi_side {
	struct lr_label l;
	uint16_t flow;
	uint8_t looked;			/* packets nDPI read */
	uint8_t done;			/* named, or not to be */
};

struct lr_ndpi_counts {
	uint64_t packets;		/* packets nDPI read */
	uint64_t named, guessed, unknown;	/* labels given */
	uint64_t pool_full;		/* flows not named: no state free */
};

#define LR_NDPI_FLOWS_DEFAULT 16384
struct lr_ndpi *lr_ndpi_new(uint32_t flows, int socket);
void lr_ndpi_free(struct lr_ndpi *n);
bool lr_ndpi_packet(struct lr_ndpi *n, struct lr_ndpi_side *s,
		    const struct lr_fc_ext_pkt *k);
void lr_ndpi_end(struct lr_ndpi *n, struct lr_ndpi_side *s);
const struct lr_ndpi_counts *lr_ndpi_counts(const struct lr_ndpi *n);
const char *lr_ndpi_version(void);	/* NULL: built without */

/* --flow-ext's bits (lr_probe_conf's flow_ext): 1 << enum lr_app, and the
 * flow-wide extensions' enum lr_xtra above them. */
#define LR_EXT_APPS 0x1e
#define LR_EXT_XTRA_SHIFT 5

struct probe {
	struct lr_fc *fc;
	input_fn input;			/* one burst in: port, channel or UH */
	struct rte_ring *in;		/* the channel's ring, NULL: the port */
	const struct lr_task *dist;	/* the channel's distributor */
	struct rte_ring *ring;		/* ended records to the exporter */
	struct lr_probe_counts c;	/* written by the task's lcore */
	struct lr_clock clk;		/* packet times from the TSC */
	uint64_t expire_tsc;		/* next expiry walk */
	uint64_t expire_step;
	uint64_t remaining;		/* packets until done, UINT64_MAX: no limit */
	uint32_t trim;			/* bytes the parser sees, UINT32_MAX: all */
	/* The packets' own stamps: a NIC's, the distributor's, or a
	 * capture's. rx.trace: the packets are a capture's, replayed; each
	 * one keeps its own stamp, and the expiry walk follows the trace,
	 * not the clock on the wall. */
	struct lr_clock_rx rx;
	uint64_t trace_ns;		/* latest packet time seen */
	uint64_t walk_ns;		/* next expiry walk, in trace time */
	const uint64_t *dist_clock;	/* a channel's distributor's trace time */
	/* --pcap: the capture, loaded; its frames go into the cache from
	 * memory at their own stamps (ns where the file has them), with no
	 * PMD, no libpcap, no mbuf. */
	struct lr_pcapmap pcap;
	bool pcap_end;			/* its last frame read */
	struct probe_ext *ext;		/* --flow-ext, NULL: none */
	bool direct;			/* stopped: export without the ring */
	bool biflow;
	bool flushed;
};

/* probe.c: a burst in and the expiry walk (lr_engine.h's poll); the
 * cache's export callback; the inputs probe_init() picks from. */
int lr_probe_poll(struct lr_task *t, uint64_t now);
int lr_probe_to_exporter(void *arg, const struct lr_flow_rec *r);
unsigned int lr_probe_input_port(struct lr_task *t, struct probe *p);
unsigned int lr_probe_input_port_trace(struct lr_task *t, struct probe *p);
unsigned int lr_probe_input_channel(struct lr_task *t, struct probe *p);
unsigned int lr_probe_input_uh(struct lr_task *t, struct probe *p);
unsigned int lr_probe_input_pcap(struct lr_task *t, struct probe *p);

/* probe_ext.c: --flow-ext's list into its bits (LR_EXT_APPS, the
 * xtra's); the side table and its hooks for the flow cache
 * (lr_flowcache.h's ext). */
int lr_probe_ext_parse(const char *val, uint8_t *ext);
size_t lr_probe_ext_bytes(uint8_t ext);
struct probe_ext *lr_probe_ext_new(uint8_t ext, uint32_t ndpi_flows, bool biflow,
				   uint32_t capacity,
				   int socket);
void lr_probe_ext_free(struct probe_ext *x);
bool lr_probe_ext_packet(void *arg, uint32_t slot, const struct lr_fc_ext_pkt *k);
void lr_probe_ext_end(void *arg, uint32_t slot, struct lr_flow_rec_app *out);
void lr_probe_ext_json(const struct probe_ext *x, json_t *o);

/* probe_report.c (lr_engine.h's tick, stopped, report, results, live;
 * check is lr_probe_export_check()). */
void lr_probe_tick(void);
void lr_probe_stopped(void);
void lr_probe_report(const struct lr_task *t, json_t *o);
void lr_probe_results(json_t *doc);
/* What they count (lr_counter.h): a task's, and its section's (the
 * exporter's). */
extern const struct lr_counters lr_probe_counters;
extern const struct lr_counters lr_probe_section_counters;
void lr_probe_live(char *buf, size_t len);

#endif
