/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the probe role says, and its exporter's control path: the rings
 * drained on the main lcore (tick), every cache flushed into the exporter
 * once the lcores have stopped, a task's counters and JSON, the `probe`
 * section, the live line, the export check.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "lr_common.h"
#include "lr_flowcache.h"
#include "lr_port.h"
#include "probe_internal.h"

/* Control path: the exporter drains the rings (lr_exporter.h). */
void
lr_probe_tick(void)
{
	lr_exporter_poll();
}

static uint64_t
port_dropped(void)
{
	struct rte_eth_stats es;
	uint64_t d = 0;
	uint16_t p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (lr_port_info(p) != NULL && rte_eth_stats_get(p, &es) == 0)
			d += es.imissed + es.rx_nombuf;
	return d;
}

/* Add what every distributor found malformed (it never reached a probe)
 * to @p parsed, by reason. */
static void
dists_parsed(uint64_t parsed[LR_PARSE_REASONS])
{
	unsigned int it = 0;
	const struct lr_task *t;

	while ((t = lr_role_next(&lr_dist_role, &it)) != NULL)
		lr_dist_add_parsed(t, parsed);
}

/* The lcores have stopped: empty the rings, then end every flow still in a
 * cache straight into the exporter, and send it all with the statistics. */
void
lr_probe_stopped(void)
{
	uint64_t mal[LR_PARSE_REASONS] = { 0 }, ignored = 0, not_sent = 0;
	unsigned int it = 0, j;
	struct lr_task *t;
	bool any = false;

	if (!lr_exporter_up())
		return;
	dists_parsed(mal);
	for (j = 1; j < LR_PARSE_REASONS; j++)
		ignored += mal[j];
	while ((t = lr_role_next(&lr_probe_role, &it)) != NULL) {
		struct probe *p = t->priv;

		for (j = 1; j < LR_PARSE_REASONS; j++)
			ignored += p->c.parsed[j];
		/* Records a full ring refused: the collector learns of them
		 * in notSentFlowTotalCount. */
		not_sent += lr_fc_counts(p->fc)->export_drops;
		if (p->flushed || lr_task_state(t) != LR_TASK_DONE)
			continue;
		/* A channel may still hold what its distributor handed on
		 * last; the lcores are joined, so this thread may take it. */
		while (p->in != NULL && p->input(t, p) != 0)
			lr_exporter_poll();
		/* What the ring holds goes before the flows still cached. */
		lr_exporter_poll();
		p->direct = true;
		lr_fc_flush(p->fc);
		p->flushed = true;
		any = true;
	}
	if (any)
		lr_exporter_stats(ignored, port_dropped(), not_sent);
	lr_exporter_deliver();
}

int
lr_probe_export_check(void)
{
	return lr_exporter_check();
}

void
lr_probe_counts(const struct lr_task *t, struct lr_probe_counts *out)
{
	const struct probe *p = t->priv;

	*out = p->c;
}

/* A probe task's report and the probe section: what probe_counts_json()
 * writes by code, then its cache's counters, then its own. */
#define FC_ROW(f, k, m, kd, u, h) LR_COUNTER_U64(struct lr_fc_counts, f, k, m, kd, u, h),
#define OWN_ROW(f, k, m, kd, u, h) LR_COUNTER_U64(struct lr_probe_counts, f, k, m, kd, u, h),
static const struct lr_counter fc_rows[] = { LR_FC_COUNTERS(FC_ROW) };
static const struct lr_counter own_rows[] = { LR_PROBE_COUNTERS(OWN_ROW) };
#undef OWN_ROW
#undef FC_ROW

static const struct lr_counters own_counters = LR_COUNTERS(own_rows);
static const struct lr_counters fc_counters = {
	.rows = fc_rows, .nb = RTE_DIM(fc_rows), .next = &own_counters,
};

static const struct lr_counter code_rows[] = {
	LR_COUNTER_CODE("parsed.ok", "probe_parsed_packets_total", COUNTER, "frames",
			"Frames the probe parsed into a flow."),
	LR_COUNTER_CODE("cycles_per_packet", NULL, NONE, "cycles",
			"TSC cycles a packet costs the probe (parse, cache, "
			"free), the PMD's rx aside."),
	LR_COUNTER_CODE("mpps_per_lcore", NULL, NONE, "Mpps",
			"The rate one lcore could take alone at that cost."),
};

const struct lr_counters lr_probe_counters = {
	.rows = code_rows, .nb = RTE_DIM(code_rows), .next = &fc_counters,
};

/* The probe section's values that are the role's over all its tasks:
 * the exporter's (lr_exporter_report() writes them). */
static const struct lr_counter section_rows[] = {
	LR_COUNTER_CODE("exporter.records", "exporter_records_total", COUNTER,
			"records", "IPFIX records delivered: written whole to "
			"the file or socket."),
	LR_COUNTER_CODE("exporter.records_lost", "exporter_records_lost_total",
			COUNTER, "records", "IPFIX records never delivered "
			"(refused, dropped, left at the end)."),
	LR_COUNTER_CODE("exporter.records_waiting", "exporter_records_waiting",
			GAUGE, "records", "IPFIX records handed to the "
			"exporter, not yet delivered."),
	LR_COUNTER_CODE("exporter.messages", "exporter_messages_total", COUNTER,
			"messages", "IPFIX messages sent."),
	LR_COUNTER_CODE("exporter.bytes", "exporter_bytes_total", COUNTER,
			"bytes", "IPFIX message bytes sent."),
	LR_COUNTER_CODE("exporter.send_errors", "exporter_send_errors_total",
			COUNTER, "sends", "Sends of the exporter that failed."),
	LR_COUNTER_CODE("exporter.tcp_connected", "exporter_connected", GAUGE,
			"bool", "1 while the TCP exporter is connected to its "
			"collector."),
	LR_COUNTER_CODE("exporter.tcp_connects", "exporter_connects_total",
			COUNTER, "connections", "Connections the TCP exporter "
			"made."),
};

const struct lr_counters lr_probe_section_counters = LR_COUNTERS(section_rows);

static void
probe_counts_json(json_t *o, const struct lr_probe_counts *c,
	    const struct lr_fc_counts *f)
{
	static const char *const ends[] = { NULL, "idle", "active", "end_detected",
					    "forced", "lack_of_resources" };
	json_t *parsed = json_object(), *ended = json_object();
	unsigned int j;

	for (j = 0; j < LR_PARSE_REASONS; j++)
		json_object_set_new(parsed, lr_parse_reason_names[j],
				    json_integer((json_int_t)c->parsed[j]));
	for (j = 1; j < RTE_DIM(ends); j++)
		json_object_set_new(ended, ends[j],
				    json_integer((json_int_t)f->ended[j]));
	json_object_set_new(o, "parsed", parsed);
	json_object_set_new(o, "flows_ended", ended);
	lr_counters_json(o, &fc_counters, f, 0);
	lr_counters_json(o, &own_counters, c, 0);
	/* What a packet costs the probe (parse, cache, free), not counting
	 * the PMD's rx: the rate one lcore could take alone is tsc_hz / it. */
	json_object_set_new(o, "cycles_per_packet", json_real(f->packets ?
		(double)c->busy_tsc / (double)f->packets : 0));
	json_object_set_new(o, "mpps_per_lcore", json_real(c->busy_tsc ?
		(double)f->packets * (double)rte_get_tsc_hz() / (double)c->busy_tsc / 1e6 : 0));
}

void
lr_probe_report(const struct lr_task *t, json_t *o)
{
	const struct probe *p = t->priv;

	probe_counts_json(o, &p->c, lr_fc_counts(p->fc));
	json_object_set_new(o, "flow_capacity", json_integer(lr_fc_capacity(p->fc)));
	json_object_set_new(o, "bytes_per_entry", json_integer((json_int_t)lr_fc_entry_bytes(p->biflow)));
	if (p->ext != NULL)
		lr_probe_ext_json(p->ext, o);
	if (p->pcap.map != NULL) {
		json_object_set_new(o, "pcap_frames",
				    json_integer((json_int_t)p->pcap.frames));
		json_object_set_new(o, "pcap_bytes",
				    json_integer((json_int_t)p->pcap.bytes));
		json_object_set_new(o, "pcap_cut_bytes",
				    json_integer((json_int_t)p->pcap.cut_bytes));
		json_object_set_new(o, "pcap_ts_precision",
				    json_string(p->pcap.nsec ? "ns" : "us"));
		if (p->pcap_end)
			json_object_set_new(o, "end_of_capture",
					    json_integer((json_int_t)p->pcap.frames));
	}
}

/* Every probe task's counters summed into @p tot and @p ft, each of the
 * tables' counters (and the distributors' parse results); @return how many
 * probe tasks there are. The result section and the live line both read
 * this sum. */
static unsigned int
sum_probes(struct lr_probe_counts *tot, struct lr_fc_counts *ft)
{
	unsigned int it = 0, j, nb = 0;
	const struct lr_task *t;

	memset(tot, 0, sizeof(*tot));
	memset(ft, 0, sizeof(*ft));
	dists_parsed(tot->parsed);
	while ((t = lr_role_next(&lr_probe_role, &it)) != NULL) {
		const struct probe *p = t->priv;
		const struct lr_fc_counts *f = lr_fc_counts(p->fc);

		nb++;
		for (j = 0; j < LR_PARSE_REASONS; j++)
			tot->parsed[j] += p->c.parsed[j];
#define PROBE_ADD(name, ...) tot->name += p->c.name;
#define FC_ADD(name, ...) ft->name += f->name;
		LR_PROBE_COUNTERS(PROBE_ADD)
		LR_FC_COUNTERS(FC_ADD)
#undef FC_ADD
#undef PROBE_ADD
		for (j = 0; j < RTE_DIM(ft->ended); j++)
			ft->ended[j] += f->ended[j];
	}
	return nb;
}

void
lr_probe_results(json_t *doc)
{
	struct lr_probe_counts tot;
	struct lr_fc_counts ft;
	unsigned int nb = sum_probes(&tot, &ft);
	json_t *o, *e;

	if (nb == 0)
		return;
	o = json_object();
	json_object_set_new(o, "tasks", json_integer(nb));
	probe_counts_json(o, &tot, &ft);
	e = json_object();
	lr_exporter_report(e);
	json_object_set_new(o, "exporter", e);
	json_object_set_new(doc, "probe", o);
}

void
lr_probe_live(char *buf, size_t len)
{
	struct lr_probe_counts tot;
	struct lr_fc_counts ft;

	buf[0] = '\0';
	if (sum_probes(&tot, &ft) != 0)
		snprintf(buf, len, "flows %" PRIu64 " active, %" PRIu64 " made, "
			 "%" PRIu64 " exported", ft.active, ft.created,
			 lr_exporter_records());
}
