/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "lr_common.h"
#include "lr_counter.h"
#include "lr_engine.h"
#include "lr_metrics.h"
#include "lr_out.h"
#include "lr_port.h"
#include "lr_stats.h"

static uint64_t run_start_tsc;
static bool live_on = true;
static FILE *live_out;
static uint64_t live_last_tsc;
static struct lr_stats_totals live_last;

/* The time series (lr_stats_series()): a sample a period, kept in the
 * result document's "series". */
static double series_period_s;
static uint64_t series_last_tsc;
static struct lr_stats_totals series_last;
static json_t *series;
static uint64_t series_dropped;

/* The port's drops over the run (since it was set up), not since the
 * device started. */
static uint64_t
port_drops(uint16_t p)
{
	struct lr_port_drops d;

	if (lr_port_drops_get(p, &d) != 0)
		return 0;
	return d.imissed + d.ierrors + d.oerrors + d.rx_nombuf;
}

/* Caller holds the engine lock when not on the main lcore. */
static void
sum_tasks(struct lr_stats_totals *t)
{
	unsigned int i, n = lr_engine_task_count();
	uint16_t p;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		const struct lr_task *k = lr_engine_task(i);

		t->tx_pkts += k->st.tx_pkts;
		t->tx_bytes += k->st.tx_bytes;
		t->rx_pkts += k->st.rx_pkts;
		t->rx_bytes += k->st.rx_bytes;
		t->drops += k->st.drops;
	}
	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (lr_port_info(p) != NULL)
			t->drops += port_drops(p);
}

void
lr_stats_totals(struct lr_stats_totals *out)
{
	lr_engine_lock();
	sum_tasks(out);
	lr_engine_unlock();
}

void
lr_stats_live(bool on, FILE *out)
{
	live_on = on;
	if (out != NULL)
		live_out = out;
}

static void
fmt_dir(char *buf, size_t len, const char *dir, uint64_t pkts, uint64_t bytes,
	double secs)
{
	double pps = pkts / secs;
	double l2 = (bytes + (double)LR_FCS_BYTES * pkts) * 8 / secs;
	double l1 = l2 + (double)LR_L1_EXTRA_BYTES * 8 * pkts / secs;

	snprintf(buf, len, "%s %8.3f Mpps %7.3f Gb/s L2 %7.3f Gb/s L1",
		 dir, pps / 1e6, l2 / 1e9, l1 / 1e9);
}

/* " | " and each role's live words, "" when none has any. */
static const char *
roles_live(char *buf, size_t len)
{
	const struct lr_role *r;
	char words[512];
	size_t k = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; (r = lr_role_at(i)) != NULL; i++) {
		if (r->report == NULL || r->report->live == NULL)
			continue;
		r->report->live(words, sizeof(words));
		if (words[0] != '\0' && k < len)
			k += (size_t)snprintf(buf + k, len - k, " | %s", words);
	}
	return buf;
}

/* A total's growth since @p last; 0 when it went back (a port's counters
 * that could not be read this time, tasks that went away), where the
 * unsigned difference would say about 1.8e19. */
static uint64_t
grew(uint64_t now, uint64_t last)
{
	return now >= last ? now - last : 0;
}

static void series_tick(uint64_t now, uint64_t hz, bool force);

int
lr_stats_series(double period_s)
{
	if (!(period_s == 0 || (period_s >= LR_STATS_SERIES_MIN_S &&
				period_s <= 3600)))
		return lr_err(EINVAL, "series: period %g s: want 0 (off) or %g .. "
			      "3600 s", period_s, LR_STATS_SERIES_MIN_S);
	json_decref(series);
	series = period_s > 0 ? json_array() : NULL;
	series_period_s = period_s;
	series_last_tsc = 0;
	series_dropped = 0;
	/* The baseline: now, so that the series holds all that follows. */
	if (series != NULL)
		series_tick(rte_rdtsc(), rte_get_tsc_hz(), true);
	return 0;
}

/* One sample of the series: the totals' rates over the interval since the
 * last and each role's own (struct lr_role's sample). The first call only
 * takes the baseline. */
static void
series_tick(uint64_t now, uint64_t hz, bool force)
{
	struct lr_stats_totals t;
	const struct lr_role *r;
	double secs;
	unsigned int i;
	json_t *o;

	if (series_last_tsc != 0 && !force &&
	    (double)(now - series_last_tsc) < series_period_s * (double)hz)
		return;
	lr_stats_totals(&t);
	if (series_last_tsc == 0 || t.tx_pkts < series_last.tx_pkts ||
	    t.rx_pkts < series_last.rx_pkts) {
		/* A baseline; again when tasks went away (counters fell). */
		for (i = 0; (r = lr_role_at(i)) != NULL; i++)
			if (r->report != NULL && r->report->sample != NULL)
				r->report->sample(NULL);
		goto baseline;
	}
	secs = (double)(now - series_last_tsc) / (double)hz;
	if (json_array_size(series) >= LR_STATS_SERIES_MAX) {
		series_dropped++;
		goto baseline;
	}
	o = json_object();
	json_object_set_new(o, "t_s", json_real((double)(now - run_start_tsc) / hz));
	json_object_set_new(o, "interval_s", json_real(secs));
#define RATE(key, v) json_object_set_new(o, key, json_real((double)(v) / secs))
	RATE("tx_pps", t.tx_pkts - series_last.tx_pkts);
	RATE("rx_pps", t.rx_pkts - series_last.rx_pkts);
	/* L2 bit/s with the FCS, as the live line says them. */
	RATE("tx_bps", (t.tx_bytes - series_last.tx_bytes +
			LR_FCS_BYTES * (t.tx_pkts - series_last.tx_pkts)) * 8);
	RATE("rx_bps", (t.rx_bytes - series_last.rx_bytes +
			LR_FCS_BYTES * (t.rx_pkts - series_last.rx_pkts)) * 8);
#undef RATE
	json_object_set_new(o, "local_drops", json_integer((json_int_t)
			    grew(t.drops, series_last.drops)));
	for (i = 0; (r = lr_role_at(i)) != NULL; i++)
		if (r->report != NULL && r->report->sample != NULL)
			r->report->sample(o);
	json_array_append_new(series, o);
baseline:
	series_last = t;
	series_last_tsc = now;
}

void
lr_stats_series_flush(void)
{
	struct lr_stats_totals t;

	if (series == NULL || series_last_tsc == 0)
		return;
	lr_stats_totals(&t);
	/* Nothing moved since the last sample: no sample of nothing. */
	if (t.tx_pkts == series_last.tx_pkts && t.rx_pkts == series_last.rx_pkts)
		return;
	series_tick(rte_rdtsc(), rte_get_tsc_hz(), true);
}

void
lr_stats_tick(void)
{
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct lr_stats_totals t;
	char tx[96], rx[96], extra[768];
	FILE *out;
	double secs;

	/* Scrapes are answered here, on the main lcore (lr_metrics.h). */
	lr_metrics_poll();
	if (series != NULL)
		series_tick(now, hz, false);
	if (!live_on || now - live_last_tsc < hz)
		return;
	lr_stats_totals(&t);
	if (live_last_tsc != 0) {
		secs = (double)(now - live_last_tsc) / hz;
		fmt_dir(tx, sizeof(tx), "tx", grew(t.tx_pkts, live_last.tx_pkts),
			grew(t.tx_bytes, live_last.tx_bytes), secs);
		fmt_dir(rx, sizeof(rx), "rx", grew(t.rx_pkts, live_last.rx_pkts),
			grew(t.rx_bytes, live_last.rx_bytes), secs);
		/* Looked up each time: IPFIX to stdout may have begun since. */
		out = lr_human_out(live_out ? live_out : stdout);
		fprintf(out, "[%7.1f s] %s | %s | local drops %" PRIu64 "%s\n",
			(double)(now - run_start_tsc) / hz, tx, rx,
			grew(t.drops, live_last.drops),
			roles_live(extra, sizeof(extra)));
		fflush(out);
	}
	live_last = t;
	live_last_tsc = now;
}

/* A port's own drop counters over the run (lr_port.h's LR_PORT_DROPS),
 * its "drops" object: beside the roles' counters, so that a loss in the
 * tester's port is told from a loss on the wire or in a device. */
#define DROP_ROW(f, k, u, h) \
	LR_COUNTER_U64(struct lr_port_drops, f, k, NULL, NONE, u, h " (over the run)"),
static const struct lr_counter port_drop_rows[] = {
	LR_PORT_DROPS(DROP_ROW)
	LR_COUNTER_CODE("xstats", NULL, NONE, "frames",
			"the PMD's extended statistics named for a drop, "
			"discard, miss or error that grew over the run, by name"),
};
#undef DROP_ROW
static const struct lr_counters port_drop_counters = LR_COUNTERS(port_drop_rows);

static void
add_name(void *arg, const char *name)
{
	json_array_append_new(arg, json_string(name));
}

static void
add_xdrop(void *arg, const char *name, uint64_t n)
{
	json_object_set_new(arg, name, json_integer((json_int_t)n));
}

/* Offload names of @p bits, rx's or tx's (rte_eth_dev_*_offload_name()). */
static json_t *
offload_names(uint64_t bits, bool rx)
{
	json_t *a = json_array();
	unsigned int b;

	for (b = 0; b < 64; b++)
		if (bits & RTE_BIT64(b))
			json_array_append_new(a, json_string(rx ?
				rte_eth_dev_rx_offload_name(RTE_BIT64(b)) :
				rte_eth_dev_tx_offload_name(RTE_BIT64(b))));
	return a;
}

static json_t *
offloads_json(uint64_t asked, uint64_t granted, uint64_t capa, bool rx)
{
	return json_pack("{s:o, s:o, s:o}", "asked", offload_names(asked, rx),
			 "granted", offload_names(granted, rx),
			 "capable", offload_names(capa, rx));
}

/* "rss": the hash fields and key the port hashes with, read back from it
 * (rte_eth_dev_rss_hash_conf_get()); null with "rss_none" saying why. */
static void
rss_json(json_t *o, uint16_t p, const struct lr_port_info *pi)
{
	uint8_t key[UINT8_MAX];
	struct rte_eth_rss_conf rc = { .rss_key = key, .rss_key_len = sizeof(key) };
	char hex[2 * sizeof(key) + 1], why[160];
	json_t *r, *names;
	unsigned int i;
	int ret;

	if (pi->rss_capa == 0) {
		snprintf(why, sizeof(why), "the PMD has no RSS");
		goto none;
	}
	if (pi->rss_hf == 0) {
		snprintf(why, sizeof(why), "RSS not configured: %u rx queue%s",
			 pi->nb_rxq, pi->nb_rxq == 1 ? "" : "s and none of the "
			 "fields asked the PMD hashes");
		goto none;
	}
	/* As long as the PMD's key: PMDs copy their key and leave the
	 * length as it was given (net_null); 40 B where it does not say. */
	rc.rss_key_len = pi->rss_key_size ? pi->rss_key_size : 40;
	ret = rte_eth_dev_rss_hash_conf_get(p, &rc);
	if (ret != 0) {
		snprintf(why, sizeof(why), "the PMD does not say its RSS "
			 "configuration: %s", rte_strerror(-ret));
		goto none;
	}
	r = json_object();
	names = json_array();
	lr_rss_hf_names(rc.rss_hf, add_name, names);
	json_object_set_new(r, "hash_functions", names);
	json_object_set_new(r, "rss_hf", json_integer((json_int_t)rc.rss_hf));
	for (i = 0; i < rc.rss_key_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	hex[2 * rc.rss_key_len] = '\0';
	json_object_set_new(r, "key", rc.rss_key_len ? json_string(hex) : json_null());
	json_object_set_new(r, "key_len", json_integer(rc.rss_key_len));
	json_object_set_new(o, "rss", r);
	return;
none:
	json_object_set_new(o, "rss", json_null());
	json_object_set_new(o, "rss_none", json_string(why));
}

static json_t *
drops_json(uint16_t p)
{
	struct lr_port_drops d;
	json_t *o, *x;

	if (lr_port_drops_get(p, &d) != 0)
		return json_null();
	o = json_object();
	lr_counters_json(o, &port_drop_counters, &d, 0);
	x = json_object();
	lr_port_xdrops(p, add_xdrop, x);
	json_object_set_new(o, "xstats", x);
	return o;
}

static json_t *
port_report(uint16_t p)
{
	const struct lr_port_info *pi = lr_port_info(p);
	struct rte_eth_stats es;
	struct rte_eth_link link;
	json_t *o = json_object();

	json_object_set_new(o, "id", json_integer(p));
	json_object_set_new(o, "name", json_string(pi->name));
	json_object_set_new(o, "driver", json_string(pi->driver));
	json_object_set_new(o, "socket", json_integer(pi->socket));
	json_object_set_new(o, "rx_queues", json_integer(pi->nb_rxq));
	json_object_set_new(o, "tx_queues", json_integer(pi->nb_txq));
	json_object_set_new(o, "mtu", json_integer(pi->mtu));
	json_object_set_new(o, "link_speed_mbps", json_integer(pi->link_speed_mbps));
	/* The link as the wait at setup left it (up to link_timeout_s),
	 * and whether it is still up now. */
	json_object_set_new(o, "link_up", json_boolean(pi->link_up));
	json_object_set_new(o, "link_mbps", json_integer(pi->link_mbps));
	json_object_set_new(o, "link_duplex", json_string(pi->link_full_duplex ?
							  "full" : "half"));
	json_object_set_new(o, "link_autoneg", json_boolean(pi->link_autoneg));
	json_object_set_new(o, "link_wait_s", json_real(pi->link_wait_s));
	json_object_set_new(o, "link_timeout_s", json_real(pi->link_timeout_ms / 1e3));
	memset(&link, 0, sizeof(link));
	json_object_set_new(o, "link_up_at_end", json_boolean(
		rte_eth_link_get_nowait(p, &link) == 0 &&
		link.link_status == RTE_ETH_LINK_UP));
	json_object_set_new(o, "rss_hf", json_integer((json_int_t)pi->rss_hf));
	rss_json(o, p, pi);
	json_object_set_new(o, "rx_offloads", offloads_json(pi->rx_offloads_asked,
			    pi->rx_offloads, pi->rx_offload_capa, true));
	json_object_set_new(o, "tx_offloads", offloads_json(pi->tx_offloads_asked,
			    pi->tx_offloads, pi->tx_offload_capa, false));
	/* The rx pool's mbufs out (in rings, held, in the lcores' caches):
	 * flat over a long run, or something leaks (tools/bench/soak.sh). */
	if (pi->pool != NULL) {
		json_object_set_new(o, "mempool_size", json_integer(pi->pool->size));
		json_object_set_new(o, "mempool_in_use",
				    json_integer(rte_mempool_in_use_count(pi->pool)));
	}
	if (rte_eth_stats_get(p, &es) == 0) {
		json_object_set_new(o, "ipackets", json_integer((json_int_t)es.ipackets));
		json_object_set_new(o, "opackets", json_integer((json_int_t)es.opackets));
		json_object_set_new(o, "ibytes", json_integer((json_int_t)es.ibytes));
		json_object_set_new(o, "obytes", json_integer((json_int_t)es.obytes));
		json_object_set_new(o, "imissed", json_integer((json_int_t)es.imissed));
		json_object_set_new(o, "ierrors", json_integer((json_int_t)es.ierrors));
		json_object_set_new(o, "oerrors", json_integer((json_int_t)es.oerrors));
		json_object_set_new(o, "rx_nombuf", json_integer((json_int_t)es.rx_nombuf));
	}
	json_object_set_new(o, "drops", drops_json(p));
	return o;
}

json_t *
lr_stats_results(void)
{
	json_t *doc = json_object(), *ports = json_array(), *tasks = json_array();
	json_t *tot = json_object();
	const struct lr_role *r;
	struct lr_stats_totals t;
	unsigned int i, n;
	uint16_t p;

	json_object_set_new(doc, "version", json_string(LR_VERSION));
	json_object_set_new(doc, "tsc_hz", json_integer((json_int_t)rte_get_tsc_hz()));
	json_object_set_new(doc, "elapsed_s", json_real(run_start_tsc == 0 ? 0 :
		(double)(rte_rdtsc() - run_start_tsc) / rte_get_tsc_hz()));
	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (lr_port_info(p) != NULL)
			json_array_append_new(ports, port_report(p));
	lr_engine_lock();
	n = lr_engine_task_count();
	for (i = 0; i < n; i++)
		json_array_append_new(tasks, lr_task_report(lr_engine_task(i)));
	sum_tasks(&t);
	lr_engine_unlock();
	/* The run's verdict: the worst of its tasks' (ok, short, late, invalid,
	 * failed). */
	json_object_set_new(doc, "verdict",
			    json_string(lr_verdict_name(lr_engine_verdict())));
	/* A run a signal stopped measured less than it was asked to: said
	 * in the document, as rfc2544's says it. */
	json_object_set_new(doc, "interrupted", json_boolean(lr_interrupted()));
	json_object_set_new(tot, "tx_packets", json_integer((json_int_t)t.tx_pkts));
	json_object_set_new(tot, "tx_bytes", json_integer((json_int_t)t.tx_bytes));
	json_object_set_new(tot, "rx_packets", json_integer((json_int_t)t.rx_pkts));
	json_object_set_new(tot, "rx_bytes", json_integer((json_int_t)t.rx_bytes));
	json_object_set_new(tot, "local_drops", json_integer((json_int_t)t.drops));
	json_object_set_new(doc, "ports", ports);
	json_object_set_new(doc, "tasks", tasks);
	json_object_set_new(doc, "totals", tot);
	if (series != NULL) {
		json_object_set_new(doc, "series_period_s", json_real(series_period_s));
		json_object_set_new(doc, "series_dropped",
				    json_integer((json_int_t)series_dropped));
		json_object_set_new(doc, "series", json_deep_copy(series));
	}
	for (i = 0; (r = lr_role_at(i)) != NULL; i++)
		if (r->report != NULL && r->report->results != NULL)
			r->report->results(doc);
	return doc;
}

int
lr_stats_write_json(const char *path)
{
	struct lr_out out;
	json_t *doc;
	FILE *f;
	int ret, err;

	if (strcmp(path, "-") == 0 && lr_stdout_binary())
		return lr_err(EINVAL, "json: stdout carries the IPFIX export "
			      "(file:-): give a file");
	/* Whole or not at all (lr_out.h): a run stopped while it writes
	 * leaves no half document. */
	ret = lr_out_open(&out, "json", path);
	if (ret != 0)
		return ret;
	f = lr_out_stream(&out);
	if (f == NULL) {
		lr_out_discard(&out);
		return -ENOMEM;
	}
	doc = lr_stats_results();
	errno = 0;
	ret = json_dumpf(doc, f, JSON_INDENT(2));
	err = errno ? errno : EIO;
	json_decref(doc);
	if (out.is_stdout)
		fputc('\n', f);
	if (ret != 0) {
		lr_out_discard(&out);
		return lr_err(err, "json: cannot write %s", out.path);
	}
	return lr_out_close(&out);
}

/* Telemetry: a flat JSON object as a telemetry dict (numbers as u64 or
 * int, reals as strings: DPDK 22.11 telemetry has no floating point). */
static void
tel_from_json(struct rte_tel_data *d, json_t *o)
{
	const char *k;
	json_t *v;
	char buf[64];

	rte_tel_data_start_dict(d);
	json_object_foreach(o, k, v) {
		if (json_is_integer(v)) {
			rte_tel_data_add_dict_u64(d, k, (uint64_t)json_integer_value(v));
		} else if (json_is_real(v)) {
			snprintf(buf, sizeof(buf), "%.6g", json_real_value(v));
			rte_tel_data_add_dict_string(d, k, buf);
		} else if (json_is_string(v)) {
			rte_tel_data_add_dict_string(d, k, json_string_value(v));
		}
	}
}

/* Every port's rx pool's mbufs out of it, summed (the telemetry's figure
 * for a soak: flat, or something leaks). */
static uint64_t
pools_in_use(void)
{
	const struct lr_port_info *pi;
	uint64_t n = 0;
	uint16_t p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		pi = lr_port_info(p);
		if (pi != NULL && pi->pool != NULL)
			n += rte_mempool_in_use_count(pi->pool);
	}
	return n;
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lr_stats_totals t;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	lr_stats_totals(&t);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "tasks", lr_engine_task_count());
	rte_tel_data_add_dict_u64(d, "tx_packets", t.tx_pkts);
	rte_tel_data_add_dict_u64(d, "tx_bytes", t.tx_bytes);
	rte_tel_data_add_dict_u64(d, "rx_packets", t.rx_pkts);
	rte_tel_data_add_dict_u64(d, "rx_bytes", t.rx_bytes);
	rte_tel_data_add_dict_u64(d, "local_drops", t.drops);
	rte_tel_data_add_dict_u64(d, "mempool_in_use", pools_in_use());
	return 0;
}

static int
tel_task(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char *end;
	unsigned long id;
	json_t *o;

	RTE_SET_USED(cmd);
	if (params == NULL || *params == '\0')
		return -EINVAL;
	id = strtoul(params, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	lr_engine_lock();
	if (id >= lr_engine_task_count()) {
		lr_engine_unlock();
		return -EINVAL;
	}
	o = lr_task_report(lr_engine_task((unsigned int)id));
	lr_engine_unlock();
	tel_from_json(d, o);
	json_decref(o);
	return 0;
}

static int
tel_tasks(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i, n = lr_engine_task_count();

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (i = 0; i < n; i++)
		rte_tel_data_add_array_int(d, (int)i);
	return 0;
}

void
lr_stats_init(void)
{
	run_start_tsc = rte_rdtsc();
	live_last_tsc = 0;
	rte_telemetry_register_cmd("/linerate/stats", tel_stats,
		"Totals over all tasks: packets, bytes, drops. No parameters");
	rte_telemetry_register_cmd("/linerate/tasks", tel_tasks,
		"Ids of all tasks. No parameters");
	rte_telemetry_register_cmd("/linerate/task", tel_task,
		"Counters and rates of one task. Parameter: task id");
}
