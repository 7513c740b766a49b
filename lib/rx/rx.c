/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include "lr_clock.h"
#include "lr_common.h"
#include "lr_netem.h"
#include "lr_out.h"
#include "lr_pkt.h"
#include "lr_port.h"
#include "lr_wire.h"
#include "lr_rx.h"

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

/* lr_hist's layout, at 8 sub-buckets a power of two (lr_hist.h). */
static inline unsigned int
flat_bucket(uint64_t v)
{
	return lr_hist_bucket_of(v, FLAT_SUB_BITS, FLAT_MAX_BITS);
}

static inline void
flat_add(struct lr_flat *f, uint64_t ns)
{
	if (f->count != 0) {
		uint64_t d = ns > f->prev ? ns - f->prev : f->prev - ns;

		f->dsum += d;
		f->jitter += ((double)d - f->jitter) / 16;
	} else {
		f->min = ns;
	}
	f->prev = ns;
	f->count++;
	f->sum += ns;
	f->min = RTE_MIN(f->min, ns);
	f->max = RTE_MAX(f->max, ns);
	f->b[flat_bucket(ns)]++;
}

/* Quantile @p q of a flow: the middle of its bucket, within [min, max]. */
static uint64_t
flat_quantile(const struct lr_flat *f, double q)
{
	return lr_hist_quantile_of(f->b, FLAT_BUCKETS, FLAT_SUB_BITS, f->count,
				   f->min, f->max, q);
}

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
	uint8_t out_round;		/* rx_stopped(): 1 this stop's, 2 written */
	/* A capture replayed without latency: a flow's first and last
	 * times are the capture's (its us stamps, on the TSC's scale from
	 * the first one), so that durations and rates are the trace's. */
	bool trace;
	struct lr_clock_rx stamps;	/* what the capture's stamps mean */
	uint64_t ts0_ns;		/* first stamp seen, 0: none yet */
	uint64_t tsc0;			/* TSC at init: ts0_ns maps here */
	double tsc_per_ns;
};

void
lr_rx_conf_init(struct lr_rx_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->flows = LR_RX_FLOWS_DEFAULT;
	c->latency = true;
	c->samples = 1000000;
}

static void
rx_conf_init(void *conf)
{
	lr_rx_conf_init(conf);
}

static int
set_flows(void *conf, const char *key, const char *val)
{
	struct lr_rx_conf *c = conf;
	uint64_t v;

	if (lr_parse_u64(val, &v) != 0 || v == 0 || v > LR_RX_FLOWS_MAX)
		return lr_err(EINVAL, "rx: %s '%s': want 1..%u", key, val,
			      LR_RX_FLOWS_MAX);
	c->flows = (uint32_t)v;
	return 0;
}

#define RC(field) LR_OPT_FIELD(struct lr_rx_conf, field)

static const struct lr_opt rx_opts[] = {
	{ "count", LR_OPT_UINT, RC(count), 0, UINT64_MAX, NULL, "N",
	  "stop after exactly N packets, 0: no limit (0); what the last burst "
	  "held past N is freed unread and counted in `past_count_packets`",
	  "`--count 1000000`", NULL },
	{ "flows", LR_OPT_FUNC, 0, 0, 0, 0, set_flows, "N",
	  "flow table entries: flow ids flow-base .. flow-base+N-1 (65536)",
	  "`--flows 1M`", NULL },
	{ "flow-base", LR_OPT_UINT, RC(flow_base), 0, LR_FLOW_NONE - 1, NULL, "ID",
	  "flow id of the first entry (0)", "`--flow-base 1000`", NULL },
	{ "latency", LR_OPT_BOOL, RC(latency), 0, 1, NULL, "0|1",
	  "latency from the TX timestamps: right when both sides read one TSC "
	  "(the wire, memif on one host, a loopback cable) (1)", "`--latency 0`", NULL },
	{ "flow-latency", LR_OPT_BOOL, RC(flow_latency), 0, 1, NULL, "0|1",
	  "per flow: latency min, mean, p99 and max, RFC 3550 jitter and the "
	  "mean |change of latency| between consecutive frames, in the flow "
	  "table and the CSV; 2.1 KB a flow of --flows (0)",
	  "`--flow-latency 1 --flows 1024`", NULL },
	{ "samples", LR_OPT_UINT, RC(samples), 1, 1u << 28, NULL, "N",
	  "latency samples kept for samples-out and dist-out: the first N of "
	  "each task, 8 B each (1M)", "`--samples 5M`", NULL },
	{ "samples-out", LR_OPT_STRING(struct lr_rx_conf, samples_out, 1,
						lr_opt_check_out), "FILE",
	  "write the latency samples to FILE after the run, one ns a line, "
	  "every rx task's in task order (no)", "`--samples-out lat.txt`", NULL },
	{ "dist-out", LR_OPT_STRING(struct lr_rx_conf, dist_out, 1,
					     lr_opt_check_out), "FILE",
	  "write the latency samples as a netem distribution table (iproute2's "
	  "maketable) to FILE, and say the mean and deviation to give the "
	  "delay role or tc with it: `delay MU SIGMA distribution FILE` (no)",
	  "`--dist-out path.dist`", NULL },
	{ 0 },
};

static void
rx_free(struct lr_task *t)
{
	struct rx *r = t->priv;

	if (r == NULL)
		return;
	rte_free(r->flows);
	rte_free(r->hist);
	rte_free(r->flat);
	rte_free(r->res);
	rte_free(r->net);
	rte_free(r->samp);
	rte_free(r);
	t->priv = NULL;
}

static int
rx_init(struct lr_task *t, const void *arg)
{
	const struct lr_rx_conf *c = arg;
	uint64_t hz = rte_get_tsc_hz();
	struct rx *r;

	if (c->flows == 0 || c->flows > LR_RX_FLOWS_MAX ||
	    (uint64_t)c->flow_base + c->flows > LR_FLOW_NONE)
		return lr_err(EINVAL, "rx: %u flows from id %u: want 1..%u below "
			      "2^32 - 1", c->flows, c->flow_base, LR_RX_FLOWS_MAX);
	if (!c->latency && c->flow_latency)
		return lr_err(EINVAL, "rx: flow-latency needs latency 1");
	if (!c->latency && (c->samples_out[0] != '\0' || c->dist_out[0] != '\0'))
		return lr_err(EINVAL, "rx: samples-out and dist-out write latency "
			      "samples: not with latency 0");
	r = rte_zmalloc_socket("lr_rx", sizeof(*r), RTE_CACHE_LINE_SIZE, t->socket);
	if (r == NULL)
		return lr_err(ENOMEM, "rx: no memory on socket %d", t->socket);
	t->priv = r;
	r->remaining = c->count ? c->count : UINT64_MAX;
	r->nb_flows = c->flows;
	r->flow_base = c->flow_base;
	r->flows = rte_zmalloc_socket("lr_rx_flows", sizeof(*r->flows) * c->flows,
				      RTE_CACHE_LINE_SIZE, t->socket);
	if (r->flows == NULL) {
		rx_free(t);
		return lr_err(ENOMEM, "rx: no memory for a table of %u flows (%zu "
			      "MB) on socket %d", c->flows,
			      sizeof(struct lr_seq) * c->flows >> 20, t->socket);
	}
	r->latency = c->latency;
	if (c->latency) {
		r->hist = rte_malloc_socket("lr_rx_hist", sizeof(*r->hist),
					    RTE_CACHE_LINE_SIZE, t->socket);
		if (r->hist == NULL) {
			rx_free(t);
			return lr_err(ENOMEM, "rx: no memory for a histogram");
		}
		lr_hist_init(r->hist);
	}
	if (c->flow_latency) {
		r->flat = rte_zmalloc_socket("lr_rx_flat", sizeof(*r->flat) *
					     c->flows, RTE_CACHE_LINE_SIZE,
					     t->socket);
		if (r->flat == NULL) {
			rx_free(t);
			return lr_err(ENOMEM, "rx: no memory for the latency of "
				      "%u flows (%zu MB; a smaller --flows takes "
				      "less)", c->flows,
				      sizeof(struct lr_flat) * c->flows >> 20);
		}
	}
	if (c->latency && c->residence) {
		r->res = rte_malloc_socket("lr_rx_res", sizeof(*r->res),
					   RTE_CACHE_LINE_SIZE, t->socket);
		r->net = rte_malloc_socket("lr_rx_net", sizeof(*r->net),
					   RTE_CACHE_LINE_SIZE, t->socket);
		if (r->res == NULL || r->net == NULL) {
			rx_free(t);
			return lr_err(ENOMEM, "rx: no memory for a histogram");
		}
		lr_hist_init(r->res);
		lr_hist_init(r->net);
		memcpy(r->sent_src_mac, c->sent_src_mac, sizeof(r->sent_src_mac));
	}
	if (c->latency && (c->samples_out[0] != '\0' || c->dist_out[0] != '\0' ||
			   c->keep_samples)) {
		r->samp = rte_malloc_socket("lr_rx_samples",
					    sizeof(*r->samp) * c->samples,
					    RTE_CACHE_LINE_SIZE, t->socket);
		if (r->samp == NULL) {
			rx_free(t);
			return lr_err(ENOMEM, "rx: no memory for %u latency "
				      "samples (%zu MB)", c->samples,
				      sizeof(*r->samp) * c->samples >> 20);
		}
		r->max_samp = c->samples;
		snprintf(r->samples_out, sizeof(r->samples_out), "%s",
			 c->samples_out);
		snprintf(r->dist_out, sizeof(r->dist_out), "%s", c->dist_out);
	}
	if (t->capture && !c->latency) {
		/* The capture's stamps, as the probe and dist read them. */
		if (lr_clock_rx_init(&r->stamps, t->port, true, NULL) != 0) {
			rx_free(t);
			return lr_err(ENOMEM, "rx: no rx timestamp dynfield");
		}
		r->trace = true;
		r->tsc0 = rte_rdtsc();
		r->tsc_per_ns = (double)hz / 1e9;
	}
	/* Stamps older than the task by more than the slack are another
	 * clock's (lr_rx.h); a TSC younger than the slack (a fresh boot)
	 * takes every stamp before now. */
	r->tsc_floor = rte_rdtsc();
	r->tsc_floor = r->tsc_floor > (uint64_t)(LR_RX_CLOCK_SLACK_S * hz) ?
		       r->tsc_floor - (uint64_t)(LR_RX_CLOCK_SLACK_S * hz) : 0;
	/* A capture's frames were sent by a run before this one, and are
	 * received when the file is read: no stamp of theirs is a latency,
	 * however recent the file. */
	if (t->capture)
		r->tsc_floor = UINT64_MAX;
	r->ns_mult = (uint64_t)(1e9 * 4294967296.0 / (double)hz);
	r->ns_per_cycle = 1e9 / (double)hz;
	return 0;
}

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

static void
rx_counts_json(json_t *o, const struct lr_rx_counts *c, uint64_t unique)
{
#define FRAME_JSON(name, key, what) set_int(o, key, (int64_t)c->name);
#define SEQ_JSON(name, what) set_int(o, #name, (int64_t)c->name);
	LR_RX_FRAMES(FRAME_JSON)
	set_int(o, "received", (int64_t)unique);
	set_int(o, "lost", c->lost);
	per_json(o, unique, c->lost);
	LR_SEQ_COUNTERS(SEQ_JSON)
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

/* Packets received once: own tracked packets less duplicates. */
static uint64_t
unique_of(const struct lr_rx_counts *c)
{
	return c->own - c->untracked - c->unknown_flow - c->dup;
}

static void
counts_add(struct lr_rx_counts *d, const struct lr_rx_counts *c)
{
#define FRAME_ADD(name, key, what) d->name += c->name;
#define SEQ_ADD(name, what) d->name += c->name;
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
#define SEQ_MERGE(name, what) d->name += s->name;

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

static void
rx_report(const struct lr_task *t, json_t *o)
{
	const struct rx *r = t->priv;
	struct lr_rx_counts c;

	lr_rx_counts(t, &c);
	rx_counts_json(o, &c, unique_of(&c));
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
#define FLOW_JSON(name, what) set_int(o, #name, (int64_t)s->name);
	LR_SEQ_COUNTERS(FLOW_JSON)
	json_object_set_new(o, "duration_s", json_real(secs));
	json_object_set_new(o, "pps", json_real(secs > 0 ? (s->pkts - 1) / secs : 0));
	if (fl != NULL && fl->count != 0)
		json_object_set_new(o, "latency", flat_json(fl));
	return o;
}

/* The "rx" section of the result document. */
static void
rx_results(json_t *doc)
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
	rx_counts_json(o, &tot, unique_of(&tot));
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
#define CSV_HEAD(name, what) "," #name
#define CSV_COL(name, what) fprintf(f, ",%" PRIu64, s->name);
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

/* Live line: loss and latency over every rx task so far. */
static void
rx_live(char *buf, size_t len)
{
	struct lr_rx_counts tot;
	struct lr_hist *lat = malloc(sizeof(*lat));

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

static void
rx_sample(json_t *o)
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
	json_object_set_new(o, "per", json_real(lost > 0 ?
			    (double)lost / (double)(recv + (uint64_t)lost) : 0));
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

/* The fast path: one burst per poll. */

/* The most a frame's headers and stamps take when a chain's first segment
 * is too short for them: Ethernet, two tags, eight MPLS labels
 * (LR_PKT_L2_MAX), IPv4 with options (more than IPv6's fixed header; IPv6
 * extension headers past this are foreign in such a chain), UDP, linerate's
 * header and the reflector's stamps (172 B). */
#define RX_HDRS_MAX (LR_PKT_L2_MAX + 60 + 8 + LR_HDR_BYTES + LR_STAMPS_BYTES)

/*
 * Find linerate's header: UDP, not in a fragment, where the header locator
 * (lr_pkt.h: VLAN/QinQ tags, MPLS, IPv4, IPv6 and its extension headers)
 * says the transport header is; the IP length is not judged, the UDP
 * length is. A chain whose first segment is shorter than the headers (a
 * PMD that splits headers off) is read into @p scratch (RX_HDRS_MAX bytes)
 * first.
 * @return the header, or NULL (foreign) with *bad set when the magic is
 * there but the lengths do not fit the frame.
 */
static inline const struct lr_pkt_hdr *
find_hdr(const struct rte_mbuf *m, bool *bad, uint8_t *scratch)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len, l4, ulen;

	if (unlikely(len < RX_HDRS_MAX && len < m->pkt_len)) {
		len = RTE_MIN(m->pkt_len, (uint32_t)RX_HDRS_MAX);
		d = rte_pktmbuf_read(m, 0, len, scratch);
		if (d == NULL)
			return NULL;	/* a chain shorter than pkt_len */
	}
	const struct rte_udp_hdr *udp;
	const struct lr_pkt_hdr *h;
	struct lr_pkt k;
	enum lr_pkt_result r;

	if (len < LR_UDP4_HDRS_BYTES + LR_HDR_BYTES)
		return NULL;
	r = lr_pkt_locate(d, len, m->pkt_len, &k);
	if ((r != LR_PKT_OK && r != LR_PKT_BAD_LEN) || k.proto != IPPROTO_UDP ||
	    k.frag != LR_PKT_FRAG_NONE)
		return NULL;
	l4 = k.l4;
	if (l4 + sizeof(*udp) + LR_HDR_BYTES > len)
		return NULL;
	udp = (const struct rte_udp_hdr *)(d + l4);
	h = (const struct lr_pkt_hdr *)(udp + 1);
	/* Reflected frames too (rtt's rx): reflect's flags (lr_wire.h). */
	if (!lr_hdr_magic_ok(h->magic))
		return NULL;
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen < sizeof(*udp) + LR_HDR_BYTES || l4 + ulen > m->pkt_len) {
		*bad = true;
		return NULL;
	}
	/* Stamps claimed: they must be in the datagram and the segment. */
	if (unlikely(h->magic & rte_cpu_to_be_16(LR_HDR_STAMPED)) &&
	    (ulen < sizeof(*udp) + LR_HDR_BYTES + LR_STAMPS_BYTES ||
	     l4 + sizeof(*udp) + LR_HDR_BYTES + LR_STAMPS_BYTES > len)) {
		*bad = true;
		return NULL;
	}
	return h;
}

/*
 * rtt: the reflector's residence from its stamps (its own TSC: right on
 * any host), and the RTT @p rtt_ns less it. The stamps are there when the
 * magic says so (lr_wire.h); find_hdr() checked the UDP length holds the
 * header, and *h's frame the stamps when @p room.
 */
static inline void
residence(struct rx *r, const struct lr_pkt_hdr *h, uint64_t rtt_ns)
{
	const struct lr_reflect_stamps *s = (const void *)(h + 1);
	uint64_t rx, tx, cyc, ns;

	if (!(h->magic & rte_cpu_to_be_16(LR_HDR_STAMPED))) {
		r->unstamped++;
		return;
	}
	rx = rte_be_to_cpu_64(s->rx_tsc);
	tx = rte_be_to_cpu_64(s->tx_tsc);
	cyc = tx >= rx ? tx - rx : 0;
	ns = likely(cyc < (1ull << 32)) ? (cyc * r->ns_mult) >> 32 :
	     (uint64_t)((double)cyc * r->ns_per_cycle);
	lr_hist_add(r->res, ns);
	lr_hist_add(r->net, rtt_ns > ns ? rtt_ns - ns : 0);
}

static inline void
seq_account(struct rx *r, struct lr_seq *f, uint32_t len,
	const struct lr_pkt_hdr *h, uint64_t now)
{
	uint64_t tx = rte_be_to_cpu_64(h->tx_tsc);
	uint32_t gap;

	switch (lr_seq_update(f, rte_be_to_cpu_32(h->seq), tx, now, len, &gap)) {
	case LR_SEQ_IN_ORDER:
		break;
	case LR_SEQ_GAP:
		r->c.lost += gap;
		r->c.seq_too_high++;
		break;
	case LR_SEQ_RESTART:
		r->c.lost += gap;
		r->c.restarts++;
		break;
	case LR_SEQ_REORDERED:
		r->c.lost--;
		r->c.out_of_order++;
		r->c.seq_too_low++;
		break;
	case LR_SEQ_DUP:
		r->c.dup++;
		r->c.seq_too_low++;
		break;
	case LR_SEQ_LATE:
		r->c.late++;
		r->c.seq_too_low++;
		break;
	case LR_SEQ_STRAGGLER:
		/* The flow counted late only: so do the totals, which must
		 * equal the sum over the flows. */
		r->c.late++;
		break;
	}
	if (r->latency) {
		uint64_t cyc = now - tx;

		/* Only a stamp of this TSC since the task began is a
		 * latency; any other is counted, never a value. */
		if (unlikely(tx > now)) {
			r->c.latency_invalid++;
			return;
		}
		if (unlikely(tx < r->tsc_floor)) {
			r->c.latency_foreign_clock++;
			return;
		}
		uint64_t ns = likely(cyc < (1ull << 32)) ?
			      (cyc * r->ns_mult) >> 32 :
			      (uint64_t)((double)cyc * r->ns_per_cycle);

		lr_hist_add(r->hist, ns);
		if (r->flat != NULL)
			flat_add(&r->flat[f - r->flows], ns);
		if (unlikely(r->samp != NULL) && r->nb_samp < r->max_samp)
			r->samp[r->nb_samp++] = ns;
		if (unlikely(r->res != NULL))
			residence(r, h, ns);
	}
}

/* A capture stamp (us) on the TSC's scale. */
static inline uint64_t
trace_tsc(struct rx *r, const struct rte_mbuf *m)
{
	uint64_t ns = lr_clock_rx_trace_ns(&r->stamps, m);

	if (unlikely(r->ts0_ns == 0))
		r->ts0_ns = ns;
	/* Signed: a capture may step back a little (merged files). */
	return r->tsc0 + (uint64_t)(int64_t)((double)(int64_t)(ns - r->ts0_ns) *
					     r->tsc_per_ns);
}

/*
 * Two passes over a burst: the first finds each header and prefetches its
 * flow's entry, the second updates the entries, by then in cache. With
 * 65536 flows in random order the table is 8 MB and every lookup would
 * otherwise miss. @p trace: each packet at its capture time (inlined into
 * rx_poll twice, so that the live loop keeps its code).
 */
static __rte_always_inline int
poll_burst(struct lr_task *t, uint64_t now, const bool trace)
{
	struct rx *r = t->priv;
	struct rte_mbuf *pkts[LR_BURST];
	const struct lr_pkt_hdr *hdr[LR_BURST];
	uint8_t scratch[LR_BURST][RX_HDRS_MAX];	/* split headers, read */
	struct lr_seq *flow[LR_BURST];
	uint32_t len[LR_BURST];
	uint64_t when[LR_BURST];
	uint64_t bytes = 0;
	uint16_t n, i, k = 0;

	n = rte_eth_rx_burst(t->port, t->queue, pkts, LR_BURST);
	if (n == 0)
		/* A capture file returns nothing for ever after its end. */
		return lr_task_capture_end(t);
	/* --count N stops at N exactly. The burst still asks for LR_BURST:
	 * vector PMDs return nothing for fewer than 4 (rte_eth_rx_burst()),
	 * so the last burst's packets past N are freed unread, counted apart. */
	if (unlikely(n > r->remaining)) {
		r->c.past_count += n - r->remaining;
		rte_pktmbuf_free_bulk(pkts + r->remaining, n - (uint16_t)r->remaining);
		n = (uint16_t)r->remaining;
	}
	/* The receive time of the burst: later than "now", which may be a
	 * burst of another task old. */
	now = rte_rdtsc();
	for (i = 0; i < n && i < LR_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		const struct lr_pkt_hdr *h;
		bool bad = false;
		uint32_t id, idx;

		if (i + LR_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + LR_PREFETCH], void *));
		bytes += pkts[i]->pkt_len;
		h = find_hdr(pkts[i], &bad, scratch[i]);
		if (unlikely(h == NULL)) {
			if (bad)
				r->c.malformed++;
			else
				r->c.foreign++;
			continue;
		}
		r->c.own++;
		/* rtt: back as it was sent (no reflector's mark, our own
		 * source address): a looped port, no reflector. Its "RTT"
		 * is not one (rtt's verdict says so). */
		if (unlikely(r->res != NULL) &&
		    !(h->magic & rte_cpu_to_be_16(LR_HDR_REFLECTED)) &&
		    rte_pktmbuf_data_len(pkts[i]) >= RTE_ETHER_HDR_LEN &&
		    memcmp(rte_pktmbuf_mtod(pkts[i], const uint8_t *) +
			   RTE_ETHER_ADDR_LEN, r->sent_src_mac, 6) == 0)
			r->unreflected++;
		id = rte_be_to_cpu_32(h->flow);
		idx = id - r->flow_base;
		if (unlikely(idx >= r->nb_flows)) {
			if (id == LR_FLOW_NONE)
				r->c.untracked++;
			else
				r->c.unknown_flow++;
			continue;
		}
		flow[k] = &r->flows[idx];
		rte_prefetch0(flow[k]);
		if (r->flat != NULL) {
			/* Its entry's head and the bucket this frame's
			 * latency falls in (the entry is 2 KB). */
			uint64_t tx = rte_be_to_cpu_64(h->tx_tsc);
			uint64_t c = now > tx ? now - tx : 0;

			rte_prefetch0(&r->flat[idx]);
			rte_prefetch0(&r->flat[idx].b[flat_bucket(
				c < (1ull << 32) ? (c * r->ns_mult) >> 32 : 0)]);
		}
		hdr[k] = h;
		len[k] = pkts[i]->pkt_len;
		if (trace)
			when[k] = trace_tsc(r, pkts[i]);
		k++;
	}
	for (i = 0; i < k; i++)
		seq_account(r, flow[i], len[i], hdr[i], trace ? when[i] : now);
	rte_pktmbuf_free_bulk(pkts, n);
	t->st.rx_pkts += n;
	t->st.rx_bytes += bytes;
	if (r->remaining <= n) {
		r->remaining = 0;
		return 1;
	}
	r->remaining -= n;
	return 0;
}

static int
rx_poll(struct lr_task *t, uint64_t now)
{
	const struct rx *r = t->priv;

	if (unlikely(r->trace))
		return poll_burst(t, now, true);
	return poll_burst(t, now, false);
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
 * once at the end (rx_check(), lr_roles_check()): the run fails. */
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
static void
rx_stopped(void)
{
	unsigned int it = 0;
	struct lr_task *t;
	int dist;

	while ((t = lr_role_next(&lr_rx_role, &it)) != NULL) {
		struct rx *r = t->priv;

		if (r->samp != NULL && r->out_round == 0 &&
		    lr_task_state(t) == LR_TASK_DONE)
			r->out_round = 1;
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

static int
rx_check(void)
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
static enum lr_verdict
rx_verdict(const struct lr_task *t, char *why, size_t len)
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
	if (tot.own - tot.untracked - tot.unknown_flow != 0)
		return LR_VERDICT_OK;
	snprintf(why, len, "port %s: no linerate frame of a tracked flow "
		 "arrived at its %u rx task(s): %" PRIu64 " frames, %" PRIu64
		 " foreign, %" PRIu64 " malformed, %" PRIu64 " untracked, %"
		 PRIu64 " of flows outside the table: no loss or PER to give",
		 pi ? pi->name : "?", n, frames, tot.foreign, tot.malformed,
		 tot.untracked, tot.unknown_flow);
	return LR_VERDICT_INVALID;
}

const struct lr_role lr_rx_role = {
	.name = "rx",
	.opts = rx_opts,
	.uses_rx = true,
	.conf_bytes = sizeof(struct lr_rx_conf),
	.conf_init = rx_conf_init,
	.init = rx_init,
	.poll = rx_poll,
	.report = rx_report,
	.free = rx_free,
	.results = rx_results,
	.live = rx_live,
	.sample = rx_sample,
	.stopped = rx_stopped,
	.write_csv = lr_rx_write_csv,
	.check = rx_check,
	.verdict = rx_verdict,
};
