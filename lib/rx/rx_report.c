/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the rx role says: the readers of lr_rx.h, a task's JSON, the `rx`
 * section (every task's counts, latency and flow tables merged by flow
 * id), the CSV, the live line, the time series, the samples-out and
 * dist-out files, the check and the verdict. Control path only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "lr_common.h"
#include "lr_netem.h"
#include "lr_out.h"
#include "lr_port.h"
#include "rx_internal.h"

void
lr_rx_counts(const struct lr_task *t, struct lr_rx_counts *out)
{
	const struct rx *r = t->priv;

	*out = r->c;
}

const struct lr_seq *
lr_rx_flow(const struct lr_task *t, uint32_t flow)
{
	const struct rx *r = t->priv;
	uint32_t idx = flow - r->flow_base;

	return idx < r->nb_flows ? &r->flows[idx] : NULL;
}

const struct lr_hist *
lr_rx_latency(const struct lr_task *t)
{
	const struct rx *r = t->priv;

	return r->hist;
}

uint64_t
lr_rx_unreflected(const struct lr_task *t)
{
	const struct rx *r = t->priv;

	return r->unreflected;
}

const struct lr_hist *
lr_rx_residence(const struct lr_task *t, const struct lr_hist **net,
		uint64_t *unstamped)
{
	const struct rx *r = t->priv;

	*net = r->net;
	*unstamped = r->unstamped;
	return r->res;
}

const uint64_t *
lr_rx_samples(const struct lr_task *t, uint32_t *n)
{
	const struct rx *r = t->priv;

	*n = r->nb_samp;
	return r->samp;
}

/* Quantile @p q of a flow: the middle of its bucket, within [min, max]. */
static uint64_t
flat_quantile(const struct lr_flat *f, double q)
{
	return lr_hist_quantile_of(f->b, FLAT_BUCKETS, FLAT_SUB_BITS, f->count,
				   f->min, f->max, q);
}

static void
set_int(json_t *o, const char *k, int64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)v));
}

/*
 * PER, or an error where the counts contradict themselves: sequence
 * accounting never takes back more than it counted lost, so lost < 0
 * means a bug or frames that are not what they claim (a link that
 * invents frames). That is reported, never printed as a PER.
 */
static void
per_json(json_t *o, uint64_t unique, int64_t lost)
{
	char why[96];

	if (lost == 0 && unique == 0) {
		/* Nothing to count loss against: "PER 0" would say none
		 * was lost of frames that never came. */
		json_object_set_new(o, "per", json_null());
		json_object_set_new(o, "per_none", json_string(
				    "no linerate frame of a tracked flow arrived"));
		return;
	}
	if (lost >= 0) {
		json_object_set_new(o, "per", json_real(lr_seq_per(unique, lost)));
		return;
	}
	snprintf(why, sizeof(why), "lost %" PRId64 " < 0: impossible counts",
		 lost);
	json_object_set_new(o, "per", json_null());
	json_object_set_new(o, "invalid", json_string(why));
}

/* Packets received once: own tracked packets less duplicates. */
static uint64_t
unique_of(const struct lr_rx_counts *c)
{
	return c->own - c->untracked - c->unknown_flow - c->dup;
}

static void
put_received(json_t *o, const struct lr_counter *row, const void *c)
{
	set_int(o, row->key, (int64_t)unique_of(c));
}

static void
put_per(json_t *o, const struct lr_counter *row, const void *base)
{
	const struct lr_rx_counts *c = base;

	RTE_SET_USED(row);
	per_json(o, unique_of(c), c->lost);
}

/* A task's counters and the rx section's totals: struct lr_rx_counts. */
#define FRAME_ROW(f, k, m, kd, u, h) \
	LR_COUNTER_U64(struct lr_rx_counts, f, k, m, kd, u, h),
#define SEQ_ROW(f, m, kd, u, h) \
	LR_COUNTER_U64(struct lr_rx_counts, f, #f, m, kd, u, h),
static const struct lr_counter rx_rows[] = {
	LR_RX_FRAMES(FRAME_ROW)
	LR_COUNTER_PUT(put_received, "received", "rx_received_total", COUNTER,
		       "frames", "Tracked frames received once."),
	LR_COUNTER_I64(struct lr_rx_counts, lost, "lost", "rx_lost_total", COUNTER,
		       "frames", "Frames lost: sequence numbers that never came."),
	LR_COUNTER_PUT(put_per, "per", "rx_per_ratio", GAUGE, "ratio",
		       "Packet error ratio: lost over lost and received (none "
		       "until a tracked frame came)."),
	LR_SEQ_COUNTERS(SEQ_ROW)
	LR_COUNTER_CODE("latency", "rx_latency_seconds", HISTOGRAM, "s",
			"One-way latency of tracked frames (in rtt's rx: the "
			"round trip)."),
};
#undef SEQ_ROW
#undef FRAME_ROW

const struct lr_counters lr_rx_counters = LR_COUNTERS(rx_rows);

static void
rx_counts_json(json_t *o, const struct lr_rx_counts *c)
{
	lr_counters_json(o, &lr_rx_counters, c, 0);
}

/*
 * Latency none, and why (@p why, @p len bytes): TX stamps came that rx
 * cannot set against its receive time, and not one that it can. Another
 * run's stamps (a capture read back) gave "lat p50 314956736.9 us".
 */
static bool
latency_none(const struct lr_rx_counts *c, const struct lr_hist *h,
	     bool capture, char *why, size_t len)
{
	if (h == NULL || h->count != 0 ||
	    c->latency_invalid + c->latency_foreign_clock == 0)
		return false;
	if (capture)
		snprintf(why, len, "the port reads a capture: its %" PRIu64
			 " TX timestamps are the sending run's clock and its "
			 "frames are received when read; latency needs the "
			 "sender's TSC at the arrival (--latency 0 does "
			 "without)", c->latency_foreign_clock + c->latency_invalid);
	else
		snprintf(why, len, "no TX timestamp of this TSC since rx "
			 "began: %" PRIu64 " from another clock (more than "
			 "%.0f s before rx began: another run's or host's), %"
			 PRIu64 " ahead of the receive time; latency needs the "
			 "sender's TSC (--latency 0 does without)",
			 c->latency_foreign_clock, LR_RX_CLOCK_SLACK_S,
			 c->latency_invalid);
	return true;
}

static void
latency_json(json_t *o, const struct lr_rx_counts *c, const struct lr_hist *h,
	     bool capture)
{
	char why[320];

	if (latency_none(c, h, capture, why, sizeof(why))) {
		json_object_set_new(o, "latency", json_null());
		json_object_set_new(o, "latency_none", json_string(why));
	} else {
		json_object_set_new(o, "latency", lr_hist_json(h));
	}
}

/* Does every rx task (rtt's aside) read a capture? */
static bool
all_capture(void)
{
	unsigned int it = 0, n = 0;
	const struct lr_task *t;

	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *r = t->priv;

		if (r == NULL || r->res != NULL)
			continue;
		if (!t->capture)
			return false;
		n++;
	}
	return n > 0;
}

static void
counts_add(struct lr_rx_counts *d, const struct lr_rx_counts *c)
{
#define FRAME_ADD(name, ...) d->name += c->name;
#define SEQ_ADD(name, ...) d->name += c->name;
	LR_RX_FRAMES(FRAME_ADD)
	LR_SEQ_COUNTERS(SEQ_ADD)
	d->lost += c->lost;
}

/* Every rx task's totals summed and histograms merged (@p lat may be NULL).
 * @return how many rx tasks there are. */
static unsigned int
sum_rx_of(struct lr_rx_counts *tot, struct lr_hist *lat, bool skip_rtt)
{
	unsigned int it = 0, nb = 0;
	const struct lr_task *t;

	memset(tot, 0, sizeof(*tot));
	if (lat != NULL)
		lr_hist_init(lat);
	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *r = t->priv;

		/* rtt's own rx tasks (residence kept): their loss is the
		 * rtt line's, which counts the frames that never came back
		 * as rx cannot (no later frame shows their gap). */
		if (skip_rtt && r->res != NULL)
			continue;
		nb++;
		counts_add(tot, &r->c);
		if (lat != NULL && r->hist != NULL)
			lr_hist_merge(lat, r->hist);
	}
	return nb;
}

static unsigned int
sum_rx(struct lr_rx_counts *tot, struct lr_hist *lat)
{
	return sum_rx_of(tot, lat, false);
}

/* Every rx task's flow table, merged by flow id into one array that covers
 * [*base, *base + *n). NULL without rx tasks or memory. */
#define SEQ_MERGE(name, ...) d->name += s->name;

static struct lr_seq *
merge_flows(uint32_t *base, uint32_t *n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	const struct lr_task *t;
	unsigned int it = 0;
	struct lr_seq *m;
	uint32_t j;

	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *r = t->priv;

		lo = RTE_MIN(lo, (uint64_t)r->flow_base);
		hi = RTE_MAX(hi, (uint64_t)r->flow_base + r->nb_flows);
	}
	if (lo >= hi || hi - lo > LR_RX_FLOWS_MAX)
		return NULL;
	m = calloc(hi - lo, sizeof(*m));
	if (m == NULL)
		return NULL;
	it = 0;
	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *r = t->priv;

		for (j = 0; j < r->nb_flows; j++) {
			const struct lr_seq *s = &r->flows[j];
			struct lr_seq *d = &m[r->flow_base + j - lo];

			if (s->pkts == 0)
				continue;
			d->first_tsc = d->pkts ? RTE_MIN(d->first_tsc, s->first_tsc) :
				       s->first_tsc;
			d->last_tsc = RTE_MAX(d->last_tsc, s->last_tsc);
			d->pkts += s->pkts;
			d->bytes += s->bytes;
			d->lost += s->lost;
			LR_SEQ_COUNTERS(SEQ_MERGE)
		}
	}
	*base = (uint32_t)lo;
	*n = (uint32_t)(hi - lo);
	return m;
}

/* Every rx task's per-flow latency merged as merge_flows() merges the
 * flows, over [base, base + n). NULL when no task keeps it (or no memory:
 * the caller says so). */
static struct lr_flat *
merge_flat(uint32_t base, uint32_t n, bool *nomem)
{
	struct lr_flat *m = NULL;
	const struct lr_task *t;
	unsigned int it = 0, b;
	uint32_t j;

	*nomem = false;
	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *r = t->priv;

		if (r->flat == NULL)
			continue;
		if (m == NULL) {
			m = calloc(n, sizeof(*m));
			if (m == NULL) {
				*nomem = true;
				return NULL;
			}
		}
		for (j = 0; j < r->nb_flows; j++) {
			const struct lr_flat *f = &r->flat[j];
			struct lr_flat *d = &m[r->flow_base + j - base];
			uint64_t c = d->count + f->count;

			if (f->count == 0)
				continue;
			/* One flow on two tasks: its jitter weighted. */
			d->jitter = (d->jitter * (double)d->count +
				     f->jitter * (double)f->count) / (double)c;
			d->min = d->count ? RTE_MIN(d->min, f->min) : f->min;
			d->max = RTE_MAX(d->max, f->max);
			d->count = c;
			d->sum += f->sum;
			d->dsum += f->dsum;
			for (b = 0; b < FLAT_BUCKETS; b++)
				d->b[b] += f->b[b];
		}
	}
	return m;
}

/* Consecutive pairs of a flow's frames that gave a |D|. */
static uint64_t
flat_pairs(const struct lr_flat *f)
{
	return f->count > 1 ? f->count - 1 : 0;
}

static json_t *
flat_json(const struct lr_flat *f)
{
	json_t *o = json_object();

	set_int(o, "count", (int64_t)f->count);
	set_int(o, "min_ns", (int64_t)f->min);
	json_object_set_new(o, "mean_ns", json_real((double)f->sum /
						    (double)f->count));
	set_int(o, "p99_ns", (int64_t)flat_quantile(f, 0.99));
	set_int(o, "max_ns", (int64_t)f->max);
	json_object_set_new(o, "jitter_ns", json_real(f->jitter));
	json_object_set_new(o, "mean_delta_ns", json_real(flat_pairs(f) ?
			    (double)f->dsum / (double)flat_pairs(f) : 0));
	return o;
}

/* The jitter over the flows: the mean and the highest of their RFC 3550
 * jitter, and the mean |D| over all their pairs. */
static json_t *
jitter_json(const struct lr_flat *m, uint32_t n)
{
	double sum = 0, max = 0;
	uint64_t flows = 0, pairs = 0, dsum = 0;
	json_t *o = json_object();
	uint32_t j;

	for (j = 0; j < n; j++) {
		if (flat_pairs(&m[j]) == 0)
			continue;
		flows++;
		sum += m[j].jitter;
		max = RTE_MAX(max, m[j].jitter);
		pairs += flat_pairs(&m[j]);
		dsum += m[j].dsum;
	}
	set_int(o, "flows", (int64_t)flows);
	json_object_set_new(o, "rfc3550_mean_ns", json_real(flows ? sum / flows : 0));
	json_object_set_new(o, "rfc3550_max_ns", json_real(max));
	json_object_set_new(o, "mean_delta_ns", json_real(pairs ?
			    (double)dsum / (double)pairs : 0));
	return o;
}

void
lr_rx_report(const struct lr_task *t, json_t *o)
{
	const struct rx *r = t->priv;
	struct lr_rx_counts c;

	lr_rx_counts(t, &c);
	rx_counts_json(o, &c);
	set_int(o, "flow_table", r->nb_flows);
	set_int(o, "flow_base", r->flow_base);
	if (r->hist != NULL)
		latency_json(o, &c, r->hist, t->capture != NULL);
	if (r->flat != NULL)
		json_object_set_new(o, "jitter", jitter_json(r->flat, r->nb_flows));
}

static double
flow_secs(const struct lr_seq *s)
{
	return (double)(s->last_tsc - s->first_tsc) / (double)rte_get_tsc_hz();
}

static json_t *
flow_json(uint32_t id, const struct lr_seq *s, const struct lr_flat *fl)
{
	json_t *o = json_object();
	double secs = flow_secs(s);

	set_int(o, "flow", id);
	set_int(o, "packets", (int64_t)s->pkts);
	set_int(o, "bytes", (int64_t)s->bytes);
	set_int(o, "lost", s->lost);
	per_json(o, lr_seq_unique(s), s->lost);
#define FLOW_JSON(name, ...) set_int(o, #name, (int64_t)s->name);
	LR_SEQ_COUNTERS(FLOW_JSON)
	json_object_set_new(o, "duration_s", json_real(secs));
	json_object_set_new(o, "pps", json_real(secs > 0 ? (s->pkts - 1) / secs : 0));
	if (fl != NULL && fl->count != 0)
		json_object_set_new(o, "latency", flat_json(fl));
	return o;
}

/* What the rx tasks' ports (rtt's aside) dropped themselves over the run:
 * imissed, rx_nombuf and ierrors summed over each port once. */
static uint64_t
ports_rx_drops(void)
{
	static bool seen[RTE_MAX_ETHPORTS];
	unsigned int it = 0;
	const struct lr_task *t;
	struct lr_port_drops d;
	uint64_t n = 0;

	memset(seen, 0, sizeof(seen));
	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *r = t->priv;

		if (r == NULL || r->res != NULL || t->port >= RTE_MAX_ETHPORTS ||
		    seen[t->port])
			continue;
		seen[t->port] = true;
		if (lr_port_drops_get(t->port, &d) == 0)
			n += lr_port_rx_drops(&d);
	}
	return n;
}

/* The section's loss placed: frames the receiving ports dropped
 * themselves are the tester's loss, not the device's or the wire's
 * ("limited_by": "port"; the tasks' verdicts say it too). */
static void
port_loss_json(json_t *o)
{
	uint64_t n = ports_rx_drops();

	set_int(o, "port_rx_drops", (int64_t)n);
	json_object_set_new(o, "limited_by", n != 0 ? json_string("port") :
			    json_null());
}

/* The "rx" section of the result document. */
void
lr_rx_results(json_t *doc)
{
	struct lr_rx_counts tot;
	struct lr_hist *lat = malloc(sizeof(*lat));
	json_t *o, *flows;
	struct lr_flat *fl = NULL;
	struct lr_seq *m;
	uint32_t base, n, j, seen = 0;
	unsigned int nb_rx;
	bool nomem = false;

	if (lat == NULL)
		return;
	nb_rx = sum_rx(&tot, lat);
	m = nb_rx ? merge_flows(&base, &n) : NULL;
	if (m == NULL) {
		free(lat);
		return;
	}
	fl = merge_flat(base, n, &nomem);
	o = json_object();
	flows = json_array();
	for (j = 0; j < n; j++) {
		if (m[j].pkts == 0)
			continue;
		seen++;
		json_array_append_new(flows, flow_json(base + j, &m[j],
						       fl ? &fl[j] : NULL));
	}
	set_int(o, "tasks", nb_rx);
	set_int(o, "flows_seen", seen);
	rx_counts_json(o, &tot);
	port_loss_json(o);
	latency_json(o, &tot, lat, all_capture());
	if (fl != NULL)
		json_object_set_new(o, "jitter", jitter_json(fl, n));
	else if (nomem)
		json_object_set_new(o, "jitter_error", json_string(
				    "no memory to merge the per-flow latency"));
	json_object_set_new(o, "flows", flows);
	json_object_set_new(doc, "rx", o);
	free(fl);
	free(m);
	free(lat);
}

int
lr_rx_write_csv(const char *path)
{
	struct lr_flat *fl = NULL;
	struct lr_seq *m;
	uint32_t base = 0, n = 0, j;
	struct lr_out out;
	bool nomem = false;
	FILE *f;
	int ret = 0;

	if (strcmp(path, "-") == 0 && lr_stdout_binary())
		return lr_err(EINVAL, "csv: stdout carries the IPFIX export "
			      "(file:-): give a file");
	m = merge_flows(&base, &n);
	if (m != NULL)
		fl = merge_flat(base, n, &nomem);
	if (nomem) {
		free(m);
		return lr_err(ENOMEM, "csv: no memory to merge the flows' latency");
	}
	/* Whole or not at all (lr_out.h). */
	ret = lr_out_open(&out, "csv", path);
	f = ret == 0 ? lr_out_stream(&out) : NULL;
	if (f == NULL) {
		if (ret == 0)
			lr_out_discard(&out);
		free(m);
		free(fl);
		return ret != 0 ? ret : -ENOMEM;
	}
#define CSV_HEAD(name, ...) "," #name
#define CSV_COL(name, ...) fprintf(f, ",%" PRIu64, s->name);
	fputs("flow,packets,bytes,lost,per" LR_SEQ_COUNTERS(CSV_HEAD)
	      ",duration_s", f);
	fputs(fl ? ",lat_min_ns,lat_mean_ns,lat_p99_ns,lat_max_ns,jitter_ns,"
	      "mean_delta_ns\n" : "\n", f);
	for (j = 0; m != NULL && j < n; j++) {
		const struct lr_seq *s = &m[j];

		if (s->pkts == 0)
			continue;
		fprintf(f, "%u,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%.9g",
			base + j, s->pkts, s->bytes, s->lost,
			lr_seq_per(lr_seq_unique(s), s->lost));
		LR_SEQ_COUNTERS(CSV_COL)
		fprintf(f, ",%.9f", flow_secs(s));
		if (fl != NULL && fl[j].count != 0)
			fprintf(f, ",%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64
				",%.1f,%.1f\n", fl[j].min, (double)fl[j].sum /
				(double)fl[j].count, flat_quantile(&fl[j], 0.99),
				fl[j].max, fl[j].jitter, flat_pairs(&fl[j]) ?
				(double)fl[j].dsum / (double)flat_pairs(&fl[j]) : 0);
		else
			fputs(fl != NULL ? ",,,,,,\n" : "\n", f);
	}
	ret = lr_out_close(&out);
	free(m);
	free(fl);
	return ret;
}

static uint64_t ports_rx_drops(void);

/* Live line: loss and latency over every rx task so far, and what rx's
 * ports dropped themselves (the tester's loss). */
void
lr_rx_live(char *buf, size_t len)
{
	struct lr_rx_counts tot;
	struct lr_hist *lat = malloc(sizeof(*lat));
	uint64_t drops;

	buf[0] = '\0';
	if (lat == NULL)
		return;
	if (sum_rx_of(&tot, lat, true) != 0) {
		int k = tot.lost < 0 ?
			snprintf(buf, len, "INVALID lost %" PRId64 " < 0", tot.lost) :
			unique_of(&tot) == 0 && tot.lost == 0 ?
			snprintf(buf, len, "no linerate frames (%" PRIu64
				 " foreign) PER none", tot.foreign) :
			snprintf(buf, len, "lost %" PRId64 " PER %.3g", tot.lost,
				 lr_seq_per(unique_of(&tot), tot.lost));

		if (lat->count != 0 && k > 0 && (size_t)k < len)
			snprintf(buf + k, len - k, " lat p50 %.1f p99 %.1f us",
				 lr_hist_quantile(lat, 0.5) / 1e3,
				 lr_hist_quantile(lat, 0.99) / 1e3);
		else if (tot.latency_invalid + tot.latency_foreign_clock != 0 &&
			 k > 0 && (size_t)k < len)
			snprintf(buf + k, len - k, " lat none (%" PRIu64 " TX "
				 "stamps of another clock, %" PRIu64 " ahead)",
				 tot.latency_foreign_clock, tot.latency_invalid);
		drops = ports_rx_drops();
		k = (int)strlen(buf);
		if (drops != 0 && (size_t)k < len)
			snprintf(buf + k, len - k, ", port dropped %" PRIu64
				 " itself (the tester's loss)", drops);
	}
	free(lat);
}

/* The time series: what every rx task received and lost, and the latency
 * quantiles of the frames received, over the interval since the last call
 * (the difference of the merged histograms; its extremes to a bucket). */
static struct {
	struct lr_rx_counts c;
	struct lr_hist *h;
	bool have;
} prev;

void
lr_rx_sample(json_t *o)
{
	struct lr_rx_counts tot;
	struct lr_hist *lat = malloc(sizeof(*lat)), *d = malloc(sizeof(*d));
	uint64_t w, recv;
	int64_t lost;
	unsigned int i, first = LR_HIST_BUCKETS, last = 0;

	if (lat == NULL || d == NULL || (prev.h == NULL &&
			    (prev.h = malloc(sizeof(*prev.h))) == NULL)) {
		if (o != NULL)
			json_object_set_new(o, "rx_error", json_string("no memory"));
		goto out;
	}
	if (sum_rx(&tot, lat) == 0)
		goto keep;
	if (o == NULL || !prev.have || tot.own < prev.c.own)
		goto keep;		/* a baseline */
	recv = unique_of(&tot) - unique_of(&prev.c);
	lost = tot.lost - prev.c.lost;
	set_int(o, "received", (int64_t)recv);
	/* An interval's loss may be negative: frames counted lost in an
	 * earlier one arrived late in this one. Given as it is. */
	set_int(o, "lost", lost);
	/* Nothing arrived and nothing went missing in the interval (the
	 * other roles' frames moved): no PER, as per_json() says it, not
	 * "PER 0" of frames that never came. */
	if (recv == 0 && lost <= 0) {
		json_object_set_new(o, "per", json_null());
		json_object_set_new(o, "per_none", json_string(
				    "no linerate frame of a tracked flow arrived "
				    "in the interval"));
	} else {
		json_object_set_new(o, "per", json_real(lost > 0 ?
				    (double)lost / (double)(recv + (uint64_t)lost) : 0));
	}
	/* The interval's histogram: its buckets and count, what
	 * lr_hist_quantile() reads, with min and max the edges of the
	 * first and last non-empty bucket. */
	lr_hist_init(d);
	for (i = 0; i < LR_HIST_BUCKETS; i++) {
		d->b[i] = lat->b[i] >= prev.h->b[i] ? lat->b[i] - prev.h->b[i] : 0;
		if (d->b[i] == 0)
			continue;
		d->count += d->b[i];
		first = RTE_MIN(first, i);
		last = i;
	}
	if (d->count != 0) {
		d->min = lr_hist_bucket_low(first, &w);
		d->max = lr_hist_bucket_low(last, &w) + w - 1;
		set_int(o, "latency_count", (int64_t)d->count);
		set_int(o, "lat_p50_ns", (int64_t)lr_hist_quantile(d, 0.5));
		set_int(o, "lat_p99_ns", (int64_t)lr_hist_quantile(d, 0.99));
		set_int(o, "lat_max_ns", (int64_t)d->max);
	}
keep:
	prev.c = tot;
	memcpy(prev.h, lat, sizeof(*lat));
	prev.have = true;
out:
	free(lat);
	free(d);
}

/* Every rx task's samples that go to @p path (the samples-out or dist-out
 * of @p which), in task order; *@p n of them, malloc'd. */
static double *
samples_for(const char *path, bool dist, size_t *n)
{
	unsigned int it = 0;
	struct lr_task *t;
	double *v = NULL;
	size_t k = 0;

	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *r = t->priv;
		double *nv;
		uint32_t i;

		if (r->samp == NULL ||
		    strcmp(dist ? r->dist_out : r->samples_out, path) != 0)
			continue;
		nv = realloc(v, sizeof(*v) * (k + r->nb_samp + 1));
		if (nv == NULL) {
			free(v);
			return NULL;
		}
		v = nv;
		for (i = 0; i < r->nb_samp; i++)
			v[k++] = (double)r->samp[i];
	}
	*n = k;
	return v;
}

/* The first samples-out or dist-out file that could not be written, said
 * once at the end (lr_rx_check(), lr_roles_check()): the run fails. */
static char out_failed[256];

static void
out_fail(const char *msg)
{
	if (out_failed[0] == '\0')
		snprintf(out_failed, sizeof(out_failed), "%s", msg);
}

static void
write_samples(const char *path, bool dist)
{
	struct lr_out out;
	double mu, sigma;
	double *v;
	size_t n, i;
	FILE *f;

	v = samples_for(path, dist, &n);
	if (v == NULL) {
		lr_err(ENOMEM, "rx: %s %s: no memory for the samples",
		       dist ? "dist-out" : "samples-out", path);
		out_fail(lr_errmsg());
		return;
	}
	if (dist) {
		if (n < 2)
			lr_err(0, "rx: dist-out %s: fewer than 2 latency samples: "
			       "no table written", path);
		if (n < 2) {
			out_fail(lr_errmsg());
		} else if (lr_netem_maketable(v, n, path, &mu, &sigma) != 0) {
			char msg[sizeof(out_failed)];

			snprintf(msg, sizeof(msg), "rx: dist-out %s: %s", path,
				 lr_errmsg());
			out_fail(msg);
		} else {
			fprintf(stderr, "rx: %s: netem table of %zu latency "
				"samples, mean %.3f us, deviation %.3f us: use "
				"'delay %.0fns %.0fns distribution %s'\n", path, n,
				mu / 1e3, sigma / 1e3, mu, sigma, path);
		}
	} else if (lr_out_open(&out, "rx: samples-out", path) != 0) {
		out_fail(lr_errmsg());
	} else if ((f = lr_out_stream(&out)) == NULL) {
		out_fail(lr_errmsg());
		lr_out_discard(&out);
	} else {
		for (i = 0; i < n; i++)
			fprintf(f, "%.0f\n", v[i]);
		if (lr_out_close(&out) != 0)
			out_fail(lr_errmsg());
	}
	free(v);
}

/* Does an rx task of this stop's round before @p t name @p path? */
static bool
named_before(const struct lr_task *t, const char *path, bool dist)
{
	unsigned int it = 0;
	struct lr_task *u;

	while ((u = lr_role_next(&lr_rx_role, &it)) != t) {
		const struct rx *o = u->priv;

		if (o->out_round == 1 &&
		    strcmp(dist ? o->dist_out : o->samples_out, path) == 0)
			return true;
	}
	return false;
}

/*
 * After a stop: each samples-out and dist-out file of the tasks this stop
 * ended, once, with the samples of every task that names it. Never again
 * for the same tasks: lr_engine_stop() runs at every stop and at exit
 * (three times for --role), and a scenario may remove or reuse a file once
 * it has read it.
 */
void
lr_rx_stopped(void)
{
	unsigned int it = 0;
	struct lr_task *t;
	int dist;

	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		struct rx *r = t->priv;

		if (r->samp != NULL && r->out_round == 0 &&
		    lr_task_state(t) == LR_TASK_DONE)
			r->out_round = 1;
		if (!r->port_end_taken && lr_task_state(t) == LR_TASK_DONE &&
		    lr_port_drops_get(t->port, &r->port_at_end) == 0)
			r->port_end_taken = true;
	}
	it = 0;
	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		struct rx *r = t->priv;

		if (r->out_round != 1)
			continue;
		for (dist = 0; dist < 2; dist++) {
			const char *p = dist ? r->dist_out : r->samples_out;

			if (p[0] != '\0' && !named_before(t, p, dist != 0))
				write_samples(p, dist != 0);
		}
	}
	it = 0;
	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		struct rx *r = t->priv;

		if (r->out_round == 1)
			r->out_round = 2;
	}
}

int
lr_rx_check(void)
{
	if (out_failed[0] == '\0')
		return 0;
	lr_err(0, "%s", out_failed);
	return -EIO;
}

/*
 * Invalid when no rx task on the task's port (rtt's aside: rtt judges
 * its own) got a frame of a tracked flow: loss and PER are counted
 * against frames that came, and 15.8 M foreign frames said "lost 0 PER
 * 0", verdict ok. Over the port's tasks, so that a queue RSS gave no flow
 * is not a failed run.
 */
enum lr_verdict
lr_rx_verdict(const struct lr_task *t, char *why, size_t len)
{
	const struct rx *r = t->priv;
	const struct lr_port_info *pi = lr_port_info(t->port);
	struct lr_rx_counts tot, c;
	unsigned int it = 0, n = 0;
	const struct lr_task *u;
	uint64_t frames = 0;

	if (r == NULL || r->res != NULL || t->st.start_tsc == 0)
		return LR_VERDICT_OK;
	memset(&tot, 0, sizeof(tot));
	while ((u = lr_role_next(&lr_rx_role, &it)) != NULL) {
		const struct rx *o = u->priv;

		if (u->port != t->port || o == NULL || o->res != NULL)
			continue;
		lr_rx_counts(u, &c);
		counts_add(&tot, &c);
		frames += u->st.rx_pkts;
		n++;
	}
	if (tot.own - tot.untracked - tot.unknown_flow != 0) {
		struct lr_port_drops d;

		/* The tester's own port dropped frames while the task ran
		 * (made to done: a script's later trials on the port are not
		 * this task's): what rx counts lost is (in part) the
		 * tester's, not the device's or the wire's. The loss stands,
		 * it is no device's measure. */
		if (!r->port_end_taken && lr_port_drops_get(t->port, &d) != 0)
			return LR_VERDICT_OK;
		if (r->port_end_taken)
			d = r->port_at_end;
#define SINCE(f, ...) d.f = d.f >= r->port_at_init.f ? d.f - r->port_at_init.f : 0;
		LR_PORT_DROPS(SINCE)
#undef SINCE
		if (lr_port_rx_drops(&d) == 0)
			return LR_VERDICT_OK;
		snprintf(why, len, "port %s dropped %" PRIu64 " frames itself "
			 "while the task ran (imissed %" PRIu64 ", rx_nombuf %" PRIu64
			 ", ierrors %" PRIu64 "): a loss of the tester's (limited "
			 "by the port), not the device's; rx counted %" PRId64
			 " lost", pi ? pi->name : "?", lr_port_rx_drops(&d),
			 d.imissed, d.rx_nombuf, d.ierrors, tot.lost);
		return LR_VERDICT_INVALID;
	}
	snprintf(why, len, "port %s: no linerate frame of a tracked flow "
		 "arrived at its %u rx task(s): %" PRIu64 " frames, %" PRIu64
		 " foreign, %" PRIu64 " malformed, %" PRIu64 " untracked, %"
		 PRIu64 " of flows outside the table: no loss or PER to give",
		 pi ? pi->name : "?", n, frames, tot.foreign, tot.malformed,
		 tot.untracked, tot.unknown_flow);
	return LR_VERDICT_INVALID;
}
