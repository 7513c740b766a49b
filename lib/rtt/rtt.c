/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rtt role (lr_rtt.h): options, the plan (a gen and an rx task per
 * queue), the "rtt" section and the samples file.
 */
#include <errno.h>
#include <inttypes.h>
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
/* 1 s: a round trip through a reflector, a delay box's 184 ms both ways
 * and a busy host's stalls, with room to spare. */
#define DRAIN_MS_DEFAULT 1000

/* The tasks the plans made, in order (control path only). */
struct rtt_task {
	struct lr_task *gen, *rx;
	char pair[2 * LR_RTT_NAME_MAX];	/* --pair A,B, as the samples give it */
	char samples[LR_RTT_PATH_MAX];
	bool written;		/* its samples are in their file */
	unsigned int plan;	/* the plan that made it: its tasks are
				 * judged together (RSS may bring a frame
				 * back to another queue) */
	uint64_t drain_tsc;	/* --drain */
};

static struct rtt_task rtts[LR_TASK_MAX];
static unsigned int nb_rtts, nb_plans;
/* Per plan: the tick saw every frame accounted for once (the rx tasks end
 * at the second look, not on one snapshot taken mid-burst). */
static bool plan_settled[LR_TASK_MAX];

/* ---- options ---- */

/* --pair's check (LR_OPT_STR: the table copies A,B once it passes): two
 * device names, each as linerate solve reads a samples line's. */
static int
check_pair(void *conf, const char *key, const char *val)
{
	const char *comma = strchr(val, ',');
	size_t la = comma ? (size_t)(comma - val) : 0;

	RTE_SET_USED(conf);
	if (comma == NULL || la == 0 || la >= LR_RTT_NAME_MAX ||
	    comma[1] == '\0' || strlen(comma + 1) >= LR_RTT_NAME_MAX ||
	    strchr(comma + 1, ',') != NULL)
		return lr_err(EINVAL, "rtt: --%s '%s': want A,B, two device names "
			      "of 1..%d bytes without commas", key, val,
			      LR_RTT_NAME_MAX - 1);
	return 0;
}

#define TC(field) LR_OPT_FIELD(struct lr_rtt_conf, field)

static const struct lr_opt rtt_opts[] = {
	{ "pair", LR_OPT_STRING(struct lr_rtt_conf, pair, 0, check_pair), "A,B",
	  "the names of this end's device and the reflector's, for --samples "
	  "(none)", "`--pair a,b`", NULL },
	{ "samples", LR_OPT_STRING(struct lr_rtt_conf, samples, 1,
					  lr_opt_check_out), "FILE",
	  "write every RTT to FILE after the run, one CSV line `A,B,rtt_ns` "
	  "per frame received (the input of linerate solve); needs --pair (no)",
	  "`--pair a,b --samples rtt.csv`", NULL },
	{ "samples-max", LR_OPT_UINT, TC(samples_max), 1, 1u << 28, NULL, "N",
	  "RTTs kept for --samples per queue, 8 B each; past them a frame is "
	  "counted, not written (1M)", "`--samples-max 10M`", NULL },
	{ "drain", LR_OPT_MS, TC(drain_ms), 0, 3600, NULL, "S",
	  "after the last frame is sent, wait at most S seconds for the rest "
	  "to come back; what has not is lost (1)", "`--drain 0.2`", NULL },
	{ 0 },
};

static void
rtt_conf_init(void *conf)
{
	struct lr_rtt_conf *c = conf;

	memset(c, 0, sizeof(*c));
	c->samples_max = SAMPLES_MAX_DEFAULT;
	c->drain_ms = DRAIN_MS_DEFAULT;
}

static int
rtt_conf_check(const void *conf)
{
	const struct lr_rtt_conf *c = conf;

	if (c->samples[0] != '\0' && c->pair[0] == '\0')
		return lr_err(EINVAL, "rtt: --samples needs --pair A,B: the "
			      "names its lines give the two devices");
	return 0;
}

/*
 * A gen and an rx task on each queue of @p port, on one lcore: gen's slice
 * q/nq of @p with_conf, and an rx that counts every flow gen sends (its
 * table from gen's flow-base, flows). rx ends when every frame the plan's
 * gens sent is back or counted lost, or --drain after the last was sent
 * (rtt_tick()): over all the plan's queues, as RSS may bring a frame back
 * to another queue.
 */
static int
rtt_place(uint16_t port, const void *conf, const void *with_conf,
	 const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_rtt_conf *c = conf;
	const struct lr_port_info *pi = lr_port_info(port);
	struct lr_gen_conf gc, qc;
	struct lr_rx_conf rc;
	unsigned int q, nq = RTE_MIN(pi->nb_txq, pi->nb_rxq);

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
		lr_role_slice(&lr_gen_role, &qc, q, nq);
		lr_rx_conf_init(&rc);
		rc.flows = gc.flows;
		rc.flow_base = gc.flow_base;
		/* No count of its own: rx would count frames that are not
		 * gen's (a net_null's, another sender's) towards it and stop
		 * before gen's came back. The tick ends it (rtt_tick()). */
		rc.count = 0;
		rc.residence = true;
		memcpy(rc.sent_src_mac, &gc.src_mac, sizeof(rc.sent_src_mac));
		if (c->samples[0] != '\0') {
			uint64_t n = gc.count ? lr_gen_share(gc.count, q, nq) : 0;

			rc.keep_samples = true;
			rc.samples = c->samples_max;
			if (n != 0 && n < rc.samples)
				rc.samples = (uint32_t)n;
		}
		/* rx first: nothing it should see is sent before it exists.
		 * It runs --drain past gen's duration at most: the tick ends
		 * it once everything is back or the drain is over. */
		rt->rx = lr_task_create(&lr_rx_role, lcores[q % n], port,
					(uint16_t)q, duration_s > 0 ? duration_s +
					c->drain_ms / 1e3 : 0, &rc);
		if (rt->rx == NULL)
			return -EINVAL;
		rt->gen = lr_task_create(&lr_gen_role, lcores[q % n], port,
					 (uint16_t)q, duration_s, &qc);
		if (rt->gen == NULL)
			return -EINVAL;
		snprintf(rt->pair, sizeof(rt->pair), "%s", c->pair);
		snprintf(rt->samples, sizeof(rt->samples), "%s", c->samples);
		rt->plan = nb_plans;
		rt->drain_tsc = (uint64_t)((double)c->drain_ms / 1e3 *
					   (double)rte_get_tsc_hz());
		nb_rtts++;
	}
	if (nq > 0)
		nb_plans++;
	return (int)(2 * nq);
}

/* ---- accounting ---- */

struct rtt_sum {
	uint64_t sent, dup, reordered, late, unstamped, unreflected, samples;
	int64_t received, lost;		/* signed: counts that contradict
					 * themselves are reported, not hidden */
	int64_t tail;			/* sent - received - lost: not back,
					 * no gap seen (the last of a flow) */
	uint64_t lost_at_end;		/* of the tail, not back by the drain */
	uint64_t in_flight;		/* of the tail, when the run stopped
					 * before the drain was over */
	bool contradicts;		/* a plan's tail < 0 */
	bool running;			/* a task of it runs: no verdict yet */
	struct lr_hist rtt, res, net;
};

/* Tasks whose init failed are left out (lr_role_next's rule). */
static bool
made(const struct rtt_task *rt)
{
	return rt->gen->priv != NULL && rt->rx->priv != NULL;
}

/* The frames of @p rt that came back, as rx counted them: its own tracked
 * frames once each. A frame too late for rx to tell from a duplicate
 * ("late": its gap was counted lost) is not one: so every frame sent is
 * received, lost or still out, once. */
static void
counts_of(const struct rtt_task *rt, struct lr_rx_counts *c, int64_t *received)
{
	lr_rx_counts(rt->rx, c);
	*received = (int64_t)c->own - (int64_t)c->untracked -
		    (int64_t)c->unknown_flow - (int64_t)c->dup - (int64_t)c->late;
}

/* Has plan @p p drained: every gen done, every rx done at least --drain
 * after the last frame was sent (by the tick, or its own duration)? */
static bool
drained(unsigned int p)
{
	uint64_t gen_end = 0;
	unsigned int i;
	bool any = false;

	for (i = 0; i < nb_rtts; i++) {
		const struct rtt_task *rt = &rtts[i];

		if (rt->plan != p || !made(rt))
			continue;
		if (lr_task_state(rt->gen) != LR_TASK_DONE ||
		    lr_task_state(rt->rx) != LR_TASK_DONE)
			return false;
		gen_end = RTE_MAX(gen_end, rt->gen->st.end_tsc);
		any = true;
	}
	for (i = 0; i < nb_rtts; i++) {
		const struct rtt_task *rt = &rtts[i];

		if (rt->plan == p && made(rt) &&
		    rt->rx->st.end_tsc < gen_end + rt->drain_tsc)
			return false;
	}
	return any;
}

static void
sum_init(struct rtt_sum *s)
{
	memset(s, 0, sizeof(*s));
	lr_hist_init(&s->rtt);
	lr_hist_init(&s->res);
	lr_hist_init(&s->net);
}

static void
sum_add(struct rtt_sum *s, const struct rtt_task *rt)
{
	struct lr_rx_counts c;
	const struct lr_hist *h, *net;
	uint64_t unstamped;
	int64_t received;
	uint32_t ns;

	s->sent += rt->gen->st.tx_pkts;
	counts_of(rt, &c, &received);
	s->received += received;
	s->lost += c.lost;
	s->dup += c.dup;
	s->late += c.late;
	s->reordered += c.out_of_order;
	s->unreflected += lr_rx_unreflected(rt->rx);
	s->running |= lr_task_state(rt->gen) != LR_TASK_DONE ||
		      lr_task_state(rt->rx) != LR_TASK_DONE;
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

/*
 * The tail of a plan whose tasks were just added to @p s (@p sent,
 * @p received and @p lost: @p s's before them): the frames sent that are
 * neither back nor counted lost. Lost when the plan drained, else in
 * flight when the run stopped (or now, while it runs). Each plan is split
 * on its own: one that drained and one stopped early may be summed. A
 * negative tail is a contradiction (more back than sent): said by
 * sum_invalid() and rtt_check(), never hidden.
 */
static void
plan_close(struct rtt_sum *s, unsigned int p, uint64_t sent, int64_t received,
	   int64_t lost)
{
	int64_t tail = (int64_t)(s->sent - sent) - (s->received - received) -
		       (s->lost - lost);

	s->tail += tail;
	if (tail < 0)
		s->contradicts = true;
	if (tail <= 0)
		return;
	if (drained(p)) {
		s->lost_at_end += (uint64_t)tail;
		s->lost += tail;
	} else {
		s->in_flight += (uint64_t)tail;
	}
}

/* Why @p s is no result (a sentence in @p why), or NULL. */
static const char *
sum_invalid(const struct rtt_sum *s, char *why, size_t len)
{
	if (s->contradicts || s->lost < 0)
		snprintf(why, len, "sent %" PRIu64 " < received %" PRId64 " + "
			 "lost %" PRId64 ": counts that contradict themselves "
			 "(frames of these flows from another sender?)", s->sent,
			 s->received, s->lost - (int64_t)s->lost_at_end);
	else if (s->unreflected != 0)
		snprintf(why, len, "%" PRIu64 " of %" PRIu64 " frames came back "
			 "as they were sent, without a reflector's mark (a "
			 "looped port, no reflector): their times are no round "
			 "trip",
			 s->unreflected, s->rtt.count);
	else if (s->sent != 0 && s->received == 0 && !s->running)
		snprintf(why, len, "none of %" PRIu64 " frames came back (%"
			 PRIu64 " lost, %" PRIu64 " in flight at the stop): no "
			 "RTT", s->sent, s->lost, s->in_flight);
	else
		return NULL;
	return why;
}

/* Every made task summed (@p pair NULL) or those of one --pair, plan by
 * plan. */
static void
sum_of(struct rtt_sum *s, const struct rtt_task *pair)
{
	unsigned int p, i;

	sum_init(s);
	for (p = 0; p < nb_plans; p++) {
		uint64_t sent = s->sent;
		int64_t received = s->received, lost = s->lost;
		bool any = false;

		for (i = 0; i < nb_rtts; i++) {
			const struct rtt_task *rt = &rtts[i];

			if (rt->plan != p || !made(rt) || (pair != NULL &&
			    strcmp(rt->pair, pair->pair) != 0))
				continue;
			sum_add(s, rt);
			any = true;
		}
		if (any)
			plan_close(s, p, sent, received, lost);
	}
}

/*
 * The control path's watch over the plans, about every millisecond while
 * the main lcore waits: once every gen task of a plan has sent its last
 * frame, its rx tasks end when every frame is accounted for (seen twice,
 * a millisecond apart: one snapshot may fall between two counters of a
 * burst) or --drain after the last frame was sent. Before, a --count run
 * waited for ever for a frame that never came back.
 */
static void
rtt_tick(void)
{
	uint64_t now = rte_rdtsc();
	unsigned int p, i;

	for (p = 0; p < nb_plans; p++) {
		uint64_t sent = 0, gen_end = 0, drain = 0;
		int64_t back = 0;
		bool waiting = false, gens_done = true;

		for (i = 0; i < nb_rtts; i++) {
			const struct rtt_task *rt = &rtts[i];
			struct lr_rx_counts c;
			int64_t received;

			if (rt->plan != p || !made(rt))
				continue;
			if (lr_task_state(rt->gen) != LR_TASK_DONE) {
				gens_done = false;
				break;
			}
			if (lr_task_state(rt->rx) == LR_TASK_RUNNING &&
			    __atomic_load_n(&rt->rx->stop, __ATOMIC_RELAXED) == 0)
				waiting = true;
			sent += rt->gen->st.tx_pkts;
			gen_end = RTE_MAX(gen_end, rt->gen->st.end_tsc);
			drain = rt->drain_tsc;
			counts_of(rt, &c, &received);
			back += received + c.lost;
		}
		if (!gens_done || !waiting)
			continue;
		/* A gen that ended after this tick's clock read: no time
		 * has passed since (not 2^64 of it). */
		if (gen_end > now)
			gen_end = now;
		if (back < (int64_t)sent && now - gen_end < drain) {
			plan_settled[p] = false;
			continue;
		}
		if (back >= (int64_t)sent && !plan_settled[p]) {
			plan_settled[p] = true;
			continue;
		}
		for (i = 0; i < nb_rtts; i++)
			if (rtts[i].plan == p && made(&rtts[i]) &&
			    lr_task_state(rtts[i].rx) == LR_TASK_RUNNING)
				lr_task_stop(rtts[i].rx);
	}
}

/* ---- results ---- */

static void
set_int(json_t *o, const char *k, uint64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)v));
}

/* The rtt section over every queue, and each pair's: struct rtt_sum. The
 * section's are metrics of the role (label role alone). */
#define SUM_ROW(ty, f, k, m, kd, u, h) \
	LR_COUNTER_ROW(ty, struct rtt_sum, f, k, 0, m, kd, u, h)
static const struct lr_counter sum_rows[] = {
	SUM_ROW(U64, sent, "sent", "rtt_sent_total", COUNTER, "frames",
		"Frames rtt's generators sent."),
	SUM_ROW(I64, received, "received", "rtt_received_total", COUNTER, "frames",
		"Frames back once."),
	SUM_ROW(I64, lost, "lost", "rtt_lost_total", COUNTER, "frames",
		"Frames that did not come back."),
	SUM_ROW(U64, lost_at_end, "lost_at_end", NULL, NONE, "frames",
		"Of the lost, those not back by --drain after the last sent."),
	SUM_ROW(U64, in_flight, "in_flight", NULL, NONE, "frames",
		"Frames neither back nor lost when the run was stopped."),
	SUM_ROW(U64, dup, "duplicates", "rtt_duplicates_total", COUNTER, "frames",
		"Frames back more than once."),
	SUM_ROW(U64, reordered, "reordered", "rtt_reordered_total", COUNTER,
		"frames", "Frames back after a later one."),
	SUM_ROW(U64, late, "late", NULL, NONE, "frames",
		"Frames back too late to tell from a duplicate."),
	LR_COUNTER_CODE("rtt", "rtt_seconds", HISTOGRAM, "s",
			"Round-trip time of the frames back."),
	SUM_ROW(U64, unstamped, "unstamped", NULL, NONE, "frames",
		"Frames back without the reflector's stamps."),
	SUM_ROW(U64, unreflected, "unreflected", NULL, NONE, "frames",
		"Frames back as they were sent: no reflector's mark (a loop)."),
	SUM_ROW(U64, samples, "samples", NULL, NONE, "samples",
		"Latency samples kept for --samples."),
};
#undef SUM_ROW

static const struct lr_counters sum_counters = LR_COUNTERS(sum_rows);

static json_t *
sum_json(const struct rtt_sum *s)
{
	json_t *o = json_object();
	char why[256];

	lr_counters_json(o, &sum_counters, s, 0);
	if (sum_invalid(s, why, sizeof(why)) != NULL)
		json_object_set_new(o, "invalid", json_string(why));
	/* No frame back: no RTT to give, none printed as one. */
	json_object_set_new(o, "rtt", s->rtt.count != 0 ? lr_hist_json(&s->rtt) :
			    json_null());
	if (s->res.count != 0) {
		json_object_set_new(o, "residence", lr_hist_json(&s->res));
		json_object_set_new(o, "rtt_less_residence", lr_hist_json(&s->net));
	}
	return o;
}

/* The verdict of every rtt task summed: invalid where the answer is no
 * round trip (frames no reflector marked, none back, counts that
 * contradict), else ok. */
static enum lr_verdict
rtt_verdict(char *why, size_t len)
{
	struct rtt_sum *s;
	enum lr_verdict v = LR_VERDICT_OK;

	if (nb_rtts == 0)
		return LR_VERDICT_OK;
	s = malloc(sizeof(*s));
	if (s == NULL)
		return LR_VERDICT_OK;
	sum_of(s, NULL);
	if (sum_invalid(s, why, len) != NULL)
		v = LR_VERDICT_INVALID;
	free(s);
	return v;
}

/* The "rtt" section: every rtt queue summed, and each pair's own. */
static void
rtt_results(json_t *doc)
{
	struct rtt_sum *tot, *p;
	json_t *o, *pairs;
	unsigned int i, j;
	char why[256];
	enum lr_verdict v;

	if (nb_rtts == 0)
		return;
	tot = malloc(sizeof(*tot));
	p = malloc(sizeof(*p));
	if (tot == NULL || p == NULL)
		goto out;
	sum_of(tot, NULL);
	o = sum_json(tot);
	set_int(o, "tasks", nb_rtts);
	json_object_set_new(o, "drain_s", json_real((double)rtts[nb_rtts - 1].drain_tsc /
						    (double)rte_get_tsc_hz()));
	why[0] = '\0';
	v = rtt_verdict(why, sizeof(why));
	json_object_set_new(o, "verdict", json_string(lr_verdict_name(v)));
	if (v != LR_VERDICT_OK)
		json_object_set_new(o, "verdict_why", json_string(why));
	pairs = json_array();
	for (i = 0; i < nb_rtts; i++) {
		const struct rtt_task *rt = &rtts[i];
		const char *comma = strchr(rt->pair, ',');
		json_t *po;

		if (comma == NULL || !made(rt))
			continue;
		/* Each pair once, at its first queue. */
		for (j = 0; j < i; j++)
			if (strcmp(rtts[j].pair, rt->pair) == 0)
				break;
		if (j < i)
			continue;
		sum_of(p, rt);
		po = sum_json(p);
		json_object_set_new(po, "a", json_stringn(rt->pair,
			(size_t)(comma - rt->pair)));
		json_object_set_new(po, "b", json_string(comma + 1));
		json_array_append_new(pairs, po);
	}
	json_object_set_new(o, "pairs", pairs);
	json_object_set_new(doc, "rtt", o);
out:
	free(tot);
	free(p);
}

/* The live words and the summary line: every count the accounting adds up,
 * the RTT, and INVALID where there is no round trip to show. */
static void
rtt_live(char *buf, size_t len)
{
	struct rtt_sum *s = malloc(sizeof(*s));
	char why[256];
	int k;

	buf[0] = '\0';
	if (s == NULL || nb_rtts == 0) {
		free(s);
		return;
	}
	sum_of(s, NULL);
	k = snprintf(buf, len, "sent %" PRIu64 " received %" PRId64 " lost %"
		     PRId64 " in-flight %" PRIu64, s->sent, s->received, s->lost,
		     s->in_flight);
	if (k > 0 && (size_t)k < len && s->rtt.count != 0)
		k += snprintf(buf + k, len - (size_t)k, ", rtt p50 %.1f p99.9 "
			      "%.1f us", lr_hist_quantile(&s->rtt, 0.5) / 1e3,
			      lr_hist_quantile(&s->rtt, 0.999) / 1e3);
	if (k > 0 && (size_t)k < len && sum_invalid(s, why, sizeof(why)) != NULL)
		snprintf(buf + k, len - (size_t)k, " INVALID");
	free(s);
}

/* A run whose counts contradict themselves fails (exit 1). */
static int
counts_check(void)
{
	struct rtt_sum *s;
	int ret = 0;

	if (nb_rtts == 0)
		return 0;
	s = malloc(sizeof(*s));
	if (s == NULL)
		return lr_err(ENOMEM, "rtt: no memory to check the counts");
	sum_of(s, NULL);
	if (s->contradicts || s->lost < 0)
		ret = lr_err(EIO, "rtt: sent %" PRIu64 " != received %" PRId64
			     " + lost %" PRId64 " + in flight %" PRIu64 ": "
			     "counts that contradict themselves", s->sent,
			     s->received, s->lost, s->in_flight);
	free(s);
	return ret;
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
				fprintf(f, "%s,%" PRIu64 "\n", u->pair, v[k]);
		}
		if (f != NULL && lr_out_close(&out) != 0 && out_failed[0] == '\0')
			snprintf(out_failed, sizeof(out_failed), "%s", lr_errmsg());
	}
}

static int
rtt_check(void)
{
	if (out_failed[0] == '\0')
		return counts_check();
	lr_err(0, "%s", out_failed);
	return -EIO;
}

static const struct lr_plan rtt_plan = {
	.companion = &lr_gen_role,
	.companion_opts = lr_gen_frame_opts,
	.place = rtt_place,
};

static const struct lr_report rtt_report_ops = {
	.results = rtt_results,
	.live = rtt_live,
	.check = rtt_check,
	.verdict = rtt_verdict,
	.results_counters = &sum_counters,
};

static const struct lr_lifecycle rtt_life = {
	.tick = rtt_tick,
	.stopped = rtt_stopped,
};

const struct lr_role lr_rtt_role = {
	.name = "rtt",
	.opts = rtt_opts,
	.conf_bytes = sizeof(struct lr_rtt_conf),
	.conf_init = rtt_conf_init,
	.conf_check = rtt_conf_check,
	.plan = &rtt_plan,
	.report = &rtt_report_ops,
	.life = &rtt_life,
};
