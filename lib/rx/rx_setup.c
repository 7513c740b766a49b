/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rx role's conf and options, the setup and free of a task (its flow
 * table, histograms, samples, a capture's clock), and the role.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "lr_clock.h"
#include "lr_common.h"
#include "lr_opt.h"
#include "rx_internal.h"

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
	lr_port_drops_get(t->port, &r->port_at_init);	/* zeroed if none */
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

static const struct lr_task_kind rx_task = {
	.uses_rx = true,
	.init = rx_init,
	.poll = lr_rx_poll,
	.report = lr_rx_report,
	.free = rx_free,
	.verdict = lr_rx_verdict,
	.counters = &lr_rx_counters,
};

static const struct lr_report rx_report_ops = {
	.results = lr_rx_results,
	.live = lr_rx_live,
	.sample = lr_rx_sample,
	.write_csv = lr_rx_write_csv,
	.check = lr_rx_check,
};

static const struct lr_lifecycle rx_life = {
	.stopped = lr_rx_stopped,
};

const struct lr_role lr_rx_role = {
	.name = "rx",
	.opts = rx_opts,
	.conf_bytes = sizeof(struct lr_rx_conf),
	.conf_init = rx_conf_init,
	.task = &rx_task,
	.report = &rx_report_ops,
	.life = &rx_life,
};
