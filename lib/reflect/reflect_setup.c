/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflect role's options, the setup of a task (its peer, the wheel of
 * --add-delay sized from the rate and the greatest delay), its end, its
 * plan over a port, and the role.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "lr_opt.h"
#include "lr_port.h"
#include "reflect_internal.h"

/* ---- options ---- */

static int
set_others(void *conf, const char *key, const char *val)
{
	struct lr_reflect_conf *c = conf;

	if (strcmp(val, "reflect") == 0)
		c->others = true;
	else if (strcmp(val, "drop") == 0)
		c->others = false;
	else
		return lr_err(EINVAL, "reflect: --%s '%s': want reflect or drop",
			      key, val);
	return 0;
}

/*
 * --add-delay is a delay: netem's delay, jitter, correlation, distribution
 * and seed. What would drop, copy or reorder frames is the delay role's.
 */
static int
delay_spec_check(const struct lr_netem_conf *nc, const char *val)
{
	if (nc->loss != 0 || nc->loss_model != LR_NETEM_LOSS_RANDOM ||
	    nc->duplicate != 0 || nc->corrupt != 0 || nc->reorder != 0 ||
	    nc->rate_Bps != 0 || nc->slot || nc->limit_given)
		return lr_err(EINVAL, "reflect: --add-delay '%s': only delay "
			      "TIME [JITTER [CORR]] [distribution NAME] [seed N] "
			      "(loss, duplicate, corrupt, reorder, rate, slot and "
			      "limit are the delay role's)", val);
	/* "delay 0" is allowed: each frame goes through the wheel and leaves
	 * in the next slot, the wheel's own cost: a baseline against which an
	 * injected delay is measured (lua/device-latency.lua). */
	return 0;
}

static int
check_delay(void *conf, const char *key, const char *val)
{
	struct lr_netem_conf nc;
	char err[256];
	int ret;

	RTE_SET_USED(conf);
	if (lr_netem_parse(val, &nc, err, sizeof(err)) != 0)
		return lr_err(EINVAL, "reflect: --%s: %s", key, err);
	ret = delay_spec_check(&nc, val);
	lr_netem_conf_free(&nc);
	return ret;
}

#define RC(field) LR_OPT_FIELD(struct lr_reflect_conf, field)

static const struct lr_opt reflect_opts[] = {
	{ "peer", LR_OPT_STRING(struct lr_reflect_conf, peer, 1, NULL), "PORT",
	  "send the frames out of this port (same queue) instead of --port: "
	  "an id, a name or vdev devargs, set up as --port (--port)",
	  "`--peer net_null1`", NULL },
	{ "others", LR_OPT_FUNC, 0, 0, 0, 0, set_others, "reflect|drop",
	  "frames that are not linerate's (ARP, other protocols, UDP without "
	  "its header): swapped as far as they parse and sent back, or "
	  "counted and dropped (drop)", "`--others reflect`", NULL },
	{ "stamp", LR_OPT_BOOL, RC(stamp), 0, 1, NULL, "0|1",
	  "write the reflector's receive and transmit TSC after linerate's "
	  "header (lr_wire.h), for rtt's residence time (0)", "`--stamp 1`",
	  NULL },
	{ "count", LR_OPT_UINT, RC(count), 0, UINT64_MAX, NULL, "N",
	  "stop after exactly N frames received (then what the wheel holds is "
	  "sent), 0: no limit (0); what the last burst held past N is freed "
	  "unread and counted in `past_count`", "`--count 1000000`", NULL },
	{ "tx-retries", LR_OPT_UINT, RC(tx_retries), 0, 1000000, NULL, "N",
	  "tx bursts retried for what the queue did not take; the rest is "
	  "dropped and counted in tx_dropped (64)", "`--tx-retries 0`", NULL },
	{ "add-delay", LR_OPT_STRING(struct lr_reflect_conf, add_delay, 1,
					       check_delay), "SPEC",
	  "hold each frame for a delay drawn as tc-netem(8) draws it: delay "
	  "TIME [JITTER [CORR]] [distribution uniform|normal|pareto|"
	  "paretonormal|FILE] [seed N] (none)",
	  "`--add-delay \"delay 2ms 100us distribution normal\" --rate 100000`",
	  NULL },
	{ "rate", LR_OPT_UINT, RC(rate_pps), 0, UINT64_MAX, NULL, "PPS",
	  "--add-delay: the frame rate the wheel holds for (rate x greatest "
	  "delay frames): more than the port's pool spares is an error, frames "
	  "past it are counted over_hold; 0: the port's line rate of 64 B "
	  "frames, an error when the pool cannot hold it (0)",
	  "`--rate 1M`", NULL },
	{ 0 },
};

static void
reflect_conf_init(void *conf)
{
	struct lr_reflect_conf *c = conf;

	memset(c, 0, sizeof(*c));
	c->tx_retries = TX_RETRIES_DEFAULT;
}

/* ---- init, end ---- */

static void
reflect_free(struct lr_task *t)
{
	struct reflect *r = t->priv;

	if (r == NULL)
		return;
	if (r->delay)
		lr_netem_conf_free(&r->nc);
	rte_free(r->head);
	rte_free(r->tail);
	rte_free(r->h);
	rte_free(r->free_ids);
	rte_free(r);
	t->priv = NULL;
}

/* The mbufs the rx pool of @p port can leave held: its size less what its
 * rx rings and the lcores' caches keep. */
static uint32_t
pool_spare(uint16_t port)
{
	const struct lr_port_info *pi = lr_port_info(port);
	struct rte_eth_rxq_info qi;
	uint32_t keep = 0, size = pi->pool->size;
	uint16_t q;

	for (q = 0; q < pi->nb_rxq; q++)
		keep += rte_eth_rx_queue_info_get(port, q, &qi) == 0 ?
			qi.nb_desc : 1024;
	keep += rte_lcore_count() * (pi->pool->cache_size + 2 * LR_BURST);
	return size > keep ? size - keep : 0;
}

static int
delay_init(struct lr_task *t, struct reflect *r, const struct lr_reflect_conf *c)
{
	uint64_t hz = rte_get_tsc_hz(), slots, span_tsc;
	int64_t min_ns, max_ns;
	uint32_t spare, i;
	char err[256];

	if (lr_netem_parse(c->add_delay, &r->nc, err, sizeof(err)) != 0)
		return lr_err(EINVAL, "reflect: --add-delay: %s", err);
	r->delay = true;
	lr_netem_delay_bounds(&r->nc, &min_ns, &max_ns);
	r->max_delay_ns = max_ns < 0 ? 0 : max_ns;
	spare = pool_spare(t->port);
	if (c->rate_pps == 0) {
		/*
		 * No --rate: the wheel must hold what the port's line rate
		 * (64 B frames, this queue's share of them with RSS's
		 * imbalance) brings in the greatest delay. What the pool
		 * spares holds it, or the SPEC is refused, saying what to
		 * give: it used to hold the spare mbufs (2431 for "delay
		 * 1s") and drop the rest as over_hold, told nowhere.
		 */
		const struct lr_port_info *pi = lr_port_info(t->port);
		double bps = (pi->link_speed_mbps ? pi->link_speed_mbps :
			      10000) * 1e6;
		double pps = bps / 8 / (LR_FRAME_MIN_BYTES + 20);
		double need;

		if (pi->nb_rxq > 1)
			pps = pps * 5 / 4 / pi->nb_rxq;
		need = pps * (double)r->max_delay_ns / 1e9 + 2 * LR_BURST;
		if (need > spare)
			return lr_err(EINVAL, "reflect: --add-delay '%s': %.0f "
				      "frames at port %s's line rate (%.0f Gb/s "
				      "of 64 B%s) in %.3f ms, its pool spares %u: "
				      "give --rate PPS (up to %.0f fit) or --mbufs "
				      "%.0f", c->add_delay, need, pi->name,
				      bps / 1e9, pi->nb_rxq > 1 ?
				      ", a queue's share" : "",
				      (double)r->max_delay_ns / 1e6, spare,
				      r->max_delay_ns > 0 ?
				      (spare - 2 * LR_BURST) * 1e9 /
				      (double)r->max_delay_ns : 0,
				      need - spare + pi->pool->size);
		r->hold = spare;
	} else {
		double want = (double)c->rate_pps * (double)r->max_delay_ns / 1e9 +
			      2 * LR_BURST;

		if (want > spare)
			return lr_err(EINVAL, "reflect: --add-delay '%s' at "
				      "--rate %" PRIu64 " pps holds %.0f frames; "
				      "port %u's pool spares %u of its %u mbufs: "
				      "give the port --mbufs %.0f or more, or a "
				      "lower --rate", c->add_delay, c->rate_pps,
				      want, t->port, spare,
				      lr_port_info(t->port)->pool->size, want -
				      spare + lr_port_info(t->port)->pool->size);
		r->hold = (uint32_t)want;
	}
	if (r->hold == 0)
		return lr_err(EINVAL, "reflect: port %u's pool spares no mbuf to "
			      "hold: give the port more --mbufs", t->port);
	r->nc.limit = r->hold;
	lr_netem_init(&r->q, &r->nc);
	r->tsc0 = rte_rdtsc();
	r->ns_per_tsc = 1e9 / (double)hz;
	r->tsc_per_ns = (double)hz / 1e9;
	/* Slots of about a microsecond, a power of two of TSC cycles. */
	r->gshift = 0;
	while ((1ull << (r->gshift + 1)) <= hz / (1000000000ull / SLOT_NS))
		r->gshift++;
	span_tsc = (uint64_t)((double)(r->max_delay_ns + WHEEL_MARGIN_NS) *
			      r->tsc_per_ns);
	slots = rte_align64pow2((span_tsc >> r->gshift) + 2);
	if (slots > (1u << 26))
		return lr_err(EINVAL, "reflect: --add-delay '%s': a wheel of %"
			      PRIu64 " slots of 1 us is too large (64 s at most)",
			      c->add_delay, slots);
	r->wmask = slots - 1;
	r->head = rte_malloc_socket("lr_reflect_wheel", slots * sizeof(uint32_t),
				    RTE_CACHE_LINE_SIZE, t->socket);
	r->tail = rte_malloc_socket("lr_reflect_wheel", slots * sizeof(uint32_t),
				    RTE_CACHE_LINE_SIZE, t->socket);
	r->h = rte_malloc_socket("lr_reflect_held", r->hold * sizeof(*r->h),
				 RTE_CACHE_LINE_SIZE, t->socket);
	r->free_ids = rte_malloc_socket("lr_reflect_free",
					r->hold * sizeof(uint32_t),
					RTE_CACHE_LINE_SIZE, t->socket);
	if (r->head == NULL || r->tail == NULL || r->h == NULL ||
	    r->free_ids == NULL)
		return lr_err(ENOMEM, "reflect: no memory for a wheel of %" PRIu64
			      " slots and %u frames", slots, r->hold);
	for (i = 0; i < slots; i++)
		r->head[i] = r->tail[i] = NIL;
	for (i = 0; i < r->hold; i++)
		r->free_ids[i] = r->hold - 1 - i;
	r->nb_free = r->hold;
	r->cursor = rte_rdtsc() >> r->gshift;
	return 0;
}

static int
reflect_init(struct lr_task *t, const void *conf)
{
	const struct lr_reflect_conf *c = conf;
	struct reflect *r;
	uint16_t peer = t->port;
	int ret;

	if (c->peer[0] != '\0' &&
	    lr_port_peer("reflect", c->peer, LR_PORT_NONE, &peer) != 0)
		return -EINVAL;
	if (t->queue >= lr_port_info(peer)->nb_txq)
		return lr_err(EINVAL, "reflect: port %u has no tx queue %u",
			      peer, t->queue);
	r = rte_zmalloc_socket("lr_reflect", sizeof(*r), RTE_CACHE_LINE_SIZE,
			       t->socket);
	if (r == NULL)
		return lr_err(ENOMEM, "reflect: no memory on socket %d", t->socket);
	t->priv = r;
	r->tx_port = peer;
	r->pool = lr_port_info(t->port)->pool;
	if (rte_eth_macaddr_get(peer, &r->mac) != 0)
		memset(&r->mac, 0, sizeof(r->mac));
	r->tx_queue = t->queue;
	r->others = c->others;
	r->stamp = c->stamp;
	r->tx_retries = c->tx_retries;
	r->remaining = c->count ? c->count : UINT64_MAX;
	if (c->add_delay[0] != '\0') {
		ret = delay_init(t, r, c);
		if (ret != 0) {
			reflect_free(t);
			return ret;
		}
	}
	return 0;
}

/* On the task's lcore at its end: what the wheel still holds is freed. */
static void
reflect_finish(struct lr_task *t)
{
	struct reflect *r = t->priv;
	uint64_t s;

	if (r == NULL || !r->delay || r->c.held == 0)
		return;
	for (s = 0; s <= r->wmask; s++) {
		uint32_t id = r->head[s];

		while (id != NIL) {
			rte_pktmbuf_free(r->h[id].m);
			id = r->h[id].next;
		}
		r->head[s] = NIL;
	}
	r->c.held_at_stop = r->c.held;
	t->st.drops += r->c.held;
	r->c.held = 0;
}

/*
 * --role reflect --port P [--peer Q]: Q is set up as P was (if it is not
 * yet), and a task serves each rx queue of P, sending by Q's same queue.
 */
static int
reflect_place(uint16_t port, const void *conf, const void *with_conf,
	     const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_reflect_conf *c = conf;
	struct lr_reflect_conf qc = *c;
	unsigned int q, nq = lr_port_info(port)->nb_rxq;
	uint16_t peer;

	RTE_SET_USED(with_conf);
	if (c->peer[0] != '\0') {
		if (lr_port_peer("reflect", c->peer, port, &peer) != 0)
			return -EINVAL;
		snprintf(qc.peer, sizeof(qc.peer), "%u", peer);
		nq = RTE_MIN(nq, lr_port_info(peer)->nb_txq);
	}
	for (q = 0; q < nq; q++)
		if (lr_task_create(&lr_reflect_role, lcores[q % n], port,
				   (uint16_t)q, duration_s, &qc) == NULL)
			return -EINVAL;
	return (int)nq;
}

static const struct lr_task_kind reflect_task = {
	.uses_rx = true,
	.uses_tx = true,
	.init = reflect_init,
	.poll = lr_reflect_poll,
	.finish = reflect_finish,
	.report = lr_reflect_report,
	.free = reflect_free,
	.counters = &lr_reflect_counters,
};

static const struct lr_plan reflect_plan = {
	.place = reflect_place,
};

static const struct lr_report reflect_report_ops = {
	.results = lr_reflect_results,
	.live = lr_reflect_live,
};

const struct lr_role lr_reflect_role = {
	.name = "reflect",
	.opts = reflect_opts,
	.conf_bytes = sizeof(struct lr_reflect_conf),
	.conf_init = reflect_conf_init,
	.task = &reflect_task,
	.plan = &reflect_plan,
	.report = &reflect_report_ops,
};
