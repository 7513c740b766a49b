/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rtt role (lr_rtt.h): options, the plan (a gen and an rx task per
 * queue), the "rtt" section and the samples file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_common.h"
#include "lr_gen.h"
#include "lr_hist.h"
#include "lr_out.h"
#include "lr_port.h"
#include "lr_rtt.h"
#include "lr_rx.h"

#define SAMPLES_MAX_DEFAULT 1000000

/* The tasks the plans made, in order (control path only). */
struct rtt_task {
	struct lr_task *gen, *rx;
	char a[LR_RTT_NAME_MAX], b[LR_RTT_NAME_MAX];
	char samples[LR_RTT_PATH_MAX];
	bool written;		/* its samples are in their file */
};

static struct rtt_task rtts[LR_TASK_MAX];
static unsigned int nb_rtts;

/* ---- options ---- */

static int
set_pair(void *conf, const char *key, const char *val)
{
	struct lr_rtt_conf *c = conf;
	const char *comma = strchr(val, ',');
	size_t la = comma ? (size_t)(comma - val) : 0;

	if (comma == NULL || la == 0 || la >= sizeof(c->a) ||
	    comma[1] == '\0' || strlen(comma + 1) >= sizeof(c->b) ||
	    strchr(comma + 1, ',') != NULL)
		return lr_err(EINVAL, "rtt: --%s '%s': want A,B, two device names "
			      "of 1..%zu bytes without commas", key, val,
			      sizeof(c->a) - 1);
	memcpy(c->a, val, la);
	c->a[la] = '\0';
	snprintf(c->b, sizeof(c->b), "%s", comma + 1);
	return 0;
}

static int
set_samples(void *conf, const char *key, const char *val)
{
	struct lr_rtt_conf *c = conf;

	int ret;

	if (*val == '\0' || strlen(val) >= sizeof(c->samples))
		return lr_err(EINVAL, "rtt: --%s '%s': want a path of 1..%zu bytes",
			      key, val, sizeof(c->samples) - 1);
	/* Written after the run: a missing directory found now costs no
	 * measurement (as --json). */
	ret = lr_out_check(val);
	if (ret != 0) {
		/* -EINVAL: -ENOENT would say the key is unknown. */
		lr_err(-ret, "rtt: --%s '%s': cannot write", key, val);
		return -EINVAL;
	}
	snprintf(c->samples, sizeof(c->samples), "%s", val);
	return 0;
}

#define TC(field) LR_OPT_FIELD(struct lr_rtt_conf, field)

static const struct lr_opt rtt_opts[] = {
	{ "pair", LR_OPT_FUNC, 0, 0, 0, 0, set_pair, "A,B",
	  "the names of this end's device and the reflector's, for --samples "
	  "(none)", "`--pair a,b`", NULL },
	{ "samples", LR_OPT_FUNC, 0, 0, 0, 0, set_samples, "FILE",
	  "write every RTT to FILE after the run, one CSV line `A,B,rtt_ns` "
	  "per frame received (the input of linerate solve); needs --pair (no)",
	  "`--pair a,b --samples rtt.csv`", NULL },
	{ "samples-max", LR_OPT_UINT, TC(samples_max), 1, 1u << 28, NULL, "N",
	  "RTTs kept for --samples per queue, 8 B each; past them a frame is "
	  "counted, not written (1M)", "`--samples-max 10M`", NULL },
	{ 0 },
};

static void
rtt_conf_init(void *conf)
{
	struct lr_rtt_conf *c = conf;

	memset(c, 0, sizeof(*c));
	c->samples_max = SAMPLES_MAX_DEFAULT;
}

static int
rtt_conf_set(void *conf, const char *key, const char *val)
{
	return lr_opt_set(rtt_opts, conf, "rtt", key, val);
}

static int
rtt_conf_check(const void *conf)
{
	const struct lr_rtt_conf *c = conf;

	if (c->samples[0] != '\0' && c->a[0] == '\0')
		return lr_err(EINVAL, "rtt: --samples needs --pair A,B: the "
			      "names its lines give the two devices");
	return 0;
}

/* The rtt role has no task of its own: its plan makes gen's and rx's. */
static int
rtt_init(struct lr_task *t, const void *conf)
{
	RTE_SET_USED(t);
	RTE_SET_USED(conf);
	return lr_err(EINVAL, "rtt: a plan, not a task: linerate.plan{role = "
		      "\"rtt\", ...} or --role rtt make a gen and an rx task per "
		      "queue");
}

static int
rtt_poll(struct lr_task *t, uint64_t now)
{
	RTE_SET_USED(t);
	RTE_SET_USED(now);
	return 1;
}

/* The share of @p total that slice @p i of @p n gets, as gen slices. */
static uint64_t
share(uint64_t total, unsigned int i, unsigned int n)
{
	return total / n + (i < total % n ? 1 : 0);
}

/*
 * A gen and an rx task on each queue of @p port, on one lcore: gen's slice
 * q/nq of @p with_conf, and an rx that counts every flow gen sends (its
 * table from gen's flow-base, flows), @p count's share when gen has a count
 * (a port without RSS, ring and memif, gives queue q back what was sent by
 * it; a NIC's RSS may not: then give --duration).
 */
static int
rtt_plan(uint16_t port, const void *conf, const void *with_conf,
	 const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_rtt_conf *c = conf;
	const struct lr_port_info *pi = lr_port_info(port);
	struct lr_gen_conf gc, qc;
	struct lr_rx_conf rc;
	unsigned int q, nq = RTE_MIN(pi->nb_txq, pi->nb_rxq);
	char slice[32];

	if (rtt_conf_check(c) != 0)
		return -EINVAL;
	if (with_conf != NULL)
		gc = *(const struct lr_gen_conf *)with_conf;
	else
		lr_gen_conf_init(&gc);
	if (gc.pcap[0] != '\0')
		return lr_err(EINVAL, "rtt: no pcap replay (rtt times the frames "
			      "it builds; replay with gen --pcap --stamp 1 and "
			      "count with rx)");
	for (q = 0; q < nq; q++) {
		struct rtt_task *rt;

		if (nb_rtts == RTE_DIM(rtts))
			return lr_err(ENOSPC, "rtt: too many tasks");
		rt = &rtts[nb_rtts];
		qc = gc;
		snprintf(slice, sizeof(slice), "%u/%u", q, nq);
		if (nq > 1 && lr_gen_role.conf_set(&qc, "slice", slice) != 0)
			return -EINVAL;
		lr_rx_conf_init(&rc);
		rc.flows = gc.flows;
		rc.flow_base = gc.flow_base;
		rc.count = gc.count ? share(gc.count, q, nq) : 0;
		rc.residence = true;
		if (c->samples[0] != '\0') {
			rc.keep_samples = true;
			rc.samples = c->samples_max;
			if (rc.count != 0 && rc.count < rc.samples)
				rc.samples = (uint32_t)rc.count;
		}
		/* rx first: nothing it should see is sent before it exists. */
		rt->rx = lr_task_create(&lr_rx_role, lcores[q % n], port,
					(uint16_t)q, duration_s, &rc);
		if (rt->rx == NULL)
			return -EINVAL;
		rt->gen = lr_task_create(&lr_gen_role, lcores[q % n], port,
					 (uint16_t)q, duration_s, &qc);
		if (rt->gen == NULL)
			return -EINVAL;
		snprintf(rt->a, sizeof(rt->a), "%s", c->a);
		snprintf(rt->b, sizeof(rt->b), "%s", c->b);
		snprintf(rt->samples, sizeof(rt->samples), "%s", c->samples);
		nb_rtts++;
	}
	return (int)(2 * nq);
}

/* ---- results ---- */

struct rtt_sum {
	uint64_t sent, dup, reordered, unstamped, samples;
	int64_t received, lost;		/* signed: counts that contradict
					 * themselves are reported, not hidden */
	struct lr_hist rtt, res, net;
};

static void
sum_add(struct rtt_sum *s, const struct rtt_task *rt)
{
	struct lr_rx_counts c;
	const struct lr_hist *h, *net;
	uint64_t unstamped;
	uint32_t ns;

	s->sent += rt->gen->st.tx_pkts;
	lr_rx_counts(rt->rx, &c);
	s->received += (int64_t)c.own - (int64_t)c.untracked -
		       (int64_t)c.unknown_flow - (int64_t)c.dup;
	s->lost += c.lost;
	s->dup += c.dup;
	s->reordered += c.out_of_order;
	h = lr_rx_latency(rt->rx);
	if (h != NULL)
		lr_hist_merge(&s->rtt, h);
	h = lr_rx_residence(rt->rx, &net, &unstamped);
	if (h != NULL) {
		lr_hist_merge(&s->res, h);
		lr_hist_merge(&s->net, net);
		s->unstamped += unstamped;
	}
	if (lr_rx_samples(rt->rx, &ns) != NULL)
		s->samples += ns;
}

static void
set_int(json_t *o, const char *k, uint64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)v));
}

static json_t *
sum_json(const struct rtt_sum *s)
{
	json_t *o = json_object();

	set_int(o, "sent", s->sent);
	json_object_set_new(o, "received", json_integer(s->received));
	json_object_set_new(o, "lost", json_integer(s->lost));
	/* Sequence accounting never takes back more than it counted lost,
	 * and a frame is counted once: such counts are a fault, said so. */
	if (s->lost < 0 || s->received < 0)
		json_object_set_new(o, "invalid", json_string(s->lost < 0 ?
				    "lost < 0: impossible counts" :
				    "received < 0: impossible counts"));
	set_int(o, "duplicates", s->dup);
	set_int(o, "reordered", s->reordered);
	json_object_set_new(o, "rtt", lr_hist_json(&s->rtt));
	if (s->res.count != 0) {
		json_object_set_new(o, "residence", lr_hist_json(&s->res));
		json_object_set_new(o, "rtt_less_residence", lr_hist_json(&s->net));
	}
	set_int(o, "unstamped", s->unstamped);
	set_int(o, "samples", s->samples);
	return o;
}

static void
sum_init(struct rtt_sum *s)
{
	memset(s, 0, sizeof(*s));
	lr_hist_init(&s->rtt);
	lr_hist_init(&s->res);
	lr_hist_init(&s->net);
}

/* Tasks whose init failed are left out (lr_role_next's rule). */
static bool
made(const struct rtt_task *rt)
{
	return rt->gen->priv != NULL && rt->rx->priv != NULL;
}

/* The "rtt" section: every rtt queue summed, and each pair's own. */
static void
rtt_results(json_t *doc)
{
	struct rtt_sum *tot, *p;
	json_t *o, *pairs;
	unsigned int i, j;

	if (nb_rtts == 0)
		return;
	tot = malloc(sizeof(*tot));
	p = malloc(sizeof(*p));
	if (tot == NULL || p == NULL)
		goto out;
	sum_init(tot);
	for (i = 0; i < nb_rtts; i++)
		if (made(&rtts[i]))
			sum_add(tot, &rtts[i]);
	o = sum_json(tot);
	set_int(o, "tasks", nb_rtts);
	pairs = json_array();
	for (i = 0; i < nb_rtts; i++) {
		const struct rtt_task *rt = &rtts[i];
		json_t *po;

		if (rt->a[0] == '\0' || !made(rt))
			continue;
		/* Each pair once, at its first queue. */
		for (j = 0; j < i; j++)
			if (strcmp(rtts[j].a, rt->a) == 0 &&
			    strcmp(rtts[j].b, rt->b) == 0)
				break;
		if (j < i)
			continue;
		sum_init(p);
		for (j = i; j < nb_rtts; j++)
			if (made(&rtts[j]) && strcmp(rtts[j].a, rt->a) == 0 &&
			    strcmp(rtts[j].b, rt->b) == 0)
				sum_add(p, &rtts[j]);
		po = sum_json(p);
		json_object_set_new(po, "a", json_string(rt->a));
		json_object_set_new(po, "b", json_string(rt->b));
		json_array_append_new(pairs, po);
	}
	json_object_set_new(o, "pairs", pairs);
	json_object_set_new(doc, "rtt", o);
out:
	free(tot);
	free(p);
}

static void
rtt_live(char *buf, size_t len)
{
	struct lr_hist *h = malloc(sizeof(*h));
	unsigned int i;

	buf[0] = '\0';
	if (h == NULL)
		return;
	lr_hist_init(h);
	for (i = 0; i < nb_rtts; i++)
		if (made(&rtts[i]) && lr_rx_latency(rtts[i].rx) != NULL)
			lr_hist_merge(h, lr_rx_latency(rtts[i].rx));
	if (h->count != 0)
		snprintf(buf, len, "rtt p50 %.1f p99.9 %.1f us",
			 lr_hist_quantile(h, 0.5) / 1e3,
			 lr_hist_quantile(h, 0.999) / 1e3);
	free(h);
}

/* The first --samples file that could not be written, said once at the
 * end (rtt_check(), lr_roles_check()): the run fails. */
static char out_failed[256];

/* After the run: each --samples file once, every queue that names it in
 * task order, a line per RTT. A task's samples are written after the stop
 * that ended it and never again, written or not: lr_engine_stop() runs at
 * every stop and at exit, and a scenario that runs stage after stage
 * (lua/device-latency.lua) may remove or reuse a file once it is read. */
static void
rtt_stopped(void)
{
	unsigned int i, j;

	for (i = 0; i < nb_rtts; i++) {
		const struct rtt_task *rt = &rtts[i];
		struct lr_out out;
		FILE *f = NULL;

		if (rt->samples[0] == '\0' || !made(rt) || rt->written)
			continue;
		if (lr_out_open(&out, "rtt: --samples", rt->samples) == 0 &&
		    (f = lr_out_stream(&out)) == NULL)
			lr_out_discard(&out);
		if (f == NULL && out_failed[0] == '\0')
			snprintf(out_failed, sizeof(out_failed), "%s", lr_errmsg());
		for (j = i; j < nb_rtts; j++) {
			const struct rtt_task *u = &rtts[j];
			const uint64_t *v;
			uint32_t n, k;

			if (!made(u) || u->written ||
			    strcmp(u->samples, rt->samples) != 0)
				continue;
			rtts[j].written = true;
			v = lr_rx_samples(u->rx, &n);
			for (k = 0; f != NULL && v != NULL && k < n; k++)
				fprintf(f, "%s,%s,%" PRIu64 "\n", u->a, u->b, v[k]);
		}
		if (f != NULL && lr_out_close(&out) != 0 && out_failed[0] == '\0')
			snprintf(out_failed, sizeof(out_failed), "%s", lr_errmsg());
	}
}

static int
rtt_check(void)
{
	if (out_failed[0] == '\0')
		return 0;
	lr_err(0, "%s", out_failed);
	return -EIO;
}

const struct lr_role lr_rtt_role = {
	.name = "rtt",
	.opts = rtt_opts,
	.uses_rx = true,
	.uses_tx = true,
	.conf_bytes = sizeof(struct lr_rtt_conf),
	.conf_init = rtt_conf_init,
	.conf_set = rtt_conf_set,
	.conf_check = rtt_conf_check,
	.init = rtt_init,
	.poll = rtt_poll,
	.results = rtt_results,
	.live = rtt_live,
	.stopped = rtt_stopped,
	.check = rtt_check,
	.with = &lr_gen_role,
	.with_opts = lr_gen_frame_opts,
	.plan = rtt_plan,
};
