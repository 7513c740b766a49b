/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflect role (lr_reflect.h): options, the timing wheel of held mbufs,
 * the report; its burst loop last.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "lr_common.h"
#include "lr_netem.h"
#include "lr_port.h"
#include "lr_reflect.h"

#define TX_RETRIES_DEFAULT 64
#define NIL UINT32_MAX
/* Ahead of the greatest delay, the wheel spans this much more, so that a
 * frame due at the far end never lands in the slot being sent. */
#define WHEEL_MARGIN_NS 100000
#define SLOT_NS 1000		/* about 1 us a slot (a power of 2 of TSC) */

/*
 * A task's counters, each named once: X(field, JSON key, what). Conserved:
 * in = reflected + others_reflected + others_dropped + looped + no_mbuf, and
 * reflected + others_reflected = out + tx_dropped + over_hold + held
 * (+ held_at_stop at the end).
 */
#define LR_REFLECT_COUNTERS(X) \
	X(in,               "in",               "frames received") \
	X(copied,           "copied",           "frames of another pool, copied first (the virtual wire)") \
	X(no_mbuf,          "no_mbuf",          "frames to copy, no mbuf: dropped") \
	X(reflected,        "reflected",        "linerate frames swapped and marked") \
	X(stamped,          "stamped",          "of them, with the reflector's stamps") \
	X(unstamped,        "unstamped",        "--stamp 1, but no room for the stamps") \
	X(others_reflected, "others_reflected", "non-linerate frames swapped (--others reflect)") \
	X(others_dropped,   "others_dropped",   "non-linerate frames dropped (--others drop; runts, shorter than an Ethernet header, always)") \
	X(looped,           "looped",           "reflected already (linerate's mark, or --others reflect: our MAC as source): dropped") \
	X(out,              "out",              "frames the port took") \
	X(tx_dropped,       "tx_dropped",       "not taken after --tx-retries: dropped") \
	X(over_hold,        "over_hold",        "--add-delay: the wheel was full: dropped") \
	X(held,             "held",             "--add-delay: held now") \
	X(held_at_stop,     "held_at_stop",     "--add-delay: held when the task ended, freed") \
	X(past_count,       "past_count",       "received past --count, freed unread (not in 'in')")

struct reflect_counts {
#define FIELD(name, key, what) uint64_t name;
	LR_REFLECT_COUNTERS(FIELD)
#undef FIELD
};

/* Per held frame: where its UDP header is, for the transmit stamp. */
struct held {
	struct rte_mbuf *m;
	uint32_t next;
	uint16_t l4;		/* 0: no stamps to write */
	bool ipv4;
};

struct reflect {
	struct reflect_counts c;	/* written by the task's lcore only */
	uint16_t tx_port, tx_queue;
	struct rte_mempool *pool;	/* the rx port's: frames we may change */
	struct rte_ether_addr mac;	/* the tx port's */
	bool others;
	bool stamp;
	uint32_t tx_retries;
	uint64_t remaining;		/* UINT64_MAX: no limit */
	/* --add-delay */
	bool delay;
	struct lr_netem_conf nc;
	struct lr_netem q;
	uint64_t tsc0;
	double ns_per_tsc, tsc_per_ns;
	uint32_t gshift;		/* a slot is 2^gshift TSC cycles */
	uint64_t wmask;			/* slots - 1 */
	uint64_t cursor;		/* the next slot to send */
	uint32_t *head, *tail;		/* per slot: first and last held */
	struct held *h;			/* hold entries */
	uint32_t *free_ids;		/* stack of free entries */
	uint32_t nb_free, hold;
	int64_t max_delay_ns;
};

/* ---- options ---- */

static int
set_str(char *dst, size_t len, const char *key, const char *val)
{
	if (*val == '\0' || strlen(val) >= len)
		return lr_err(EINVAL, "reflect: --%s '%s': want 1..%zu bytes", key,
			      val, len - 1);
	snprintf(dst, len, "%s", val);
	return 0;
}

static int
set_peer(void *conf, const char *key, const char *val)
{
	struct lr_reflect_conf *c = conf;

	return set_str(c->peer, sizeof(c->peer), key, val);
}

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
set_delay(void *conf, const char *key, const char *val)
{
	struct lr_reflect_conf *c = conf;
	struct lr_netem_conf nc;
	char err[256];
	int ret;

	if (lr_netem_parse(val, &nc, err, sizeof(err)) != 0)
		return lr_err(EINVAL, "reflect: --%s: %s", key, err);
	ret = delay_spec_check(&nc, val);
	lr_netem_conf_free(&nc);
	if (ret != 0)
		return ret;
	return set_str(c->add_delay, sizeof(c->add_delay), key, val);
}

#define RC(field) LR_OPT_FIELD(struct lr_reflect_conf, field)

static const struct lr_opt reflect_opts[] = {
	{ "peer", LR_OPT_FUNC, 0, 0, 0, 0, set_peer, "PORT",
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
	{ "add-delay", LR_OPT_FUNC, 0, 0, 0, 0, set_delay, "SPEC",
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

static int
reflect_conf_set(void *conf, const char *key, const char *val)
{
	return lr_opt_set(reflect_opts, conf, "reflect", key, val);
}

/* ---- init, report ---- */

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
	    (lr_port_find(c->peer, &peer) != 0 || lr_port_info(peer) == NULL))
		return lr_err(EINVAL, "reflect: peer '%s' is not a set-up port",
			      c->peer);
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

static void
counts_json(json_t *o, const struct reflect_counts *c)
{
#define JSON(name, key, what) \
	json_object_set_new(o, key, json_integer((json_int_t)c->name));
	LR_REFLECT_COUNTERS(JSON)
#undef JSON
}

static void
reflect_report(const struct lr_task *t, json_t *o)
{
	const struct reflect *r = t->priv;

	counts_json(o, &r->c);
	json_object_set_new(o, "tx_port", json_integer(r->tx_port));
	if (r->delay) {
		json_object_set_new(o, "hold", json_integer(r->hold));
		json_object_set_new(o, "max_delay_ns",
				    json_integer((json_int_t)r->max_delay_ns));
	}
}

/* The "reflect" section: every reflect task's counters summed. */
static void
reflect_results(json_t *doc)
{
	struct reflect_counts tot;
	unsigned int it = 0, nb = 0;
	bool running = false;
	const struct lr_task *t;
	json_t *o;

	memset(&tot, 0, sizeof(tot));
	while ((t = lr_role_next(&lr_reflect_role, &it)) != NULL) {
		const struct reflect *r = t->priv;

		nb++;
		running |= lr_task_state(t) == LR_TASK_RUNNING;
#define ADD(name, key, what) tot.name += r->c.name;
		LR_REFLECT_COUNTERS(ADD)
#undef ADD
	}
	if (nb == 0)
		return;
	o = json_object();
	json_object_set_new(o, "tasks", json_integer(nb));
	counts_json(o, &tot);
	/* While the lcores count, a read sees frames between two counters:
	 * the sums hold at rest. */
	json_object_set_new(o, "conserved", running ? json_null() : json_boolean(
		tot.in == tot.reflected + tot.others_reflected +
			  tot.others_dropped + tot.looped + tot.no_mbuf &&
		tot.reflected + tot.others_reflected == tot.out + tot.tx_dropped +
			  tot.over_hold + tot.held + tot.held_at_stop));
	json_object_set_new(doc, "reflect", o);
}

/* The summary line: every counter, summed over the tasks, by its JSON
 * name (it used to say "reflected 0 dropped 0" after 33 M frames were
 * dropped as not linerate's). */
static void
reflect_live(char *buf, size_t len)
{
	struct reflect_counts tot;
	unsigned int it = 0, nb = 0;
	const struct lr_task *t;
	size_t k = 0;
	int n;

	buf[0] = '\0';
	memset(&tot, 0, sizeof(tot));
	while ((t = lr_role_next(&lr_reflect_role, &it)) != NULL) {
		const struct reflect *r = t->priv;

		nb++;
#define ADD(name, key, what) tot.name += r->c.name;
		LR_REFLECT_COUNTERS(ADD)
#undef ADD
	}
	if (nb == 0)
		return;
#define WORDS(name, key, what) \
	if (k < len) { \
		n = snprintf(buf + k, len - k, "%s%s %" PRIu64, k ? " " : "", \
			     key, tot.name); \
		k += n > 0 ? (size_t)n : 0; \
	}
	LR_REFLECT_COUNTERS(WORDS)
#undef WORDS
}

/* ---- the fast path ---- */

/* Send @p n frames of @p bytes in all; what the queue does not take is
 * retried, then freed and counted. */
static inline void
tx_send(struct lr_task *t, struct reflect *r, struct rte_mbuf **m, uint16_t n,
	uint64_t bytes)
{
	uint32_t tries = 0;
	uint16_t sent, i;

	sent = rte_eth_tx_burst(r->tx_port, r->tx_queue, m, n);
	if (unlikely(sent < n)) {
		t->st.tx_retry++;
		while (sent < n && tries++ < r->tx_retries) {
			rte_pause();
			sent += rte_eth_tx_burst(r->tx_port, r->tx_queue,
						 m + sent, n - sent);
		}
		for (i = sent; i < n; i++)
			bytes -= m[i]->pkt_len;
		if (sent < n) {
			r->c.tx_dropped += n - sent;
			t->st.drops += n - sent;
			rte_pktmbuf_free_bulk(m + sent, n - sent);
		}
	}
	r->c.out += sent;
	t->st.tx_pkts += sent;
	t->st.tx_bytes += bytes;
}

/* Into the wheel: due at @p due_tsc, never sent before. */
static inline void
hold(struct lr_task *t, struct reflect *r, struct rte_mbuf *m, uint16_t l4, bool ipv4,
     uint64_t due_tsc)
{
	/* The first slot that starts at or after the due time. */
	uint64_t s = (due_tsc + (1ull << r->gshift) - 1) >> r->gshift;
	uint32_t id, w;

	if (s < r->cursor)
		s = r->cursor;
	/* A cursor held back (the port did not take frames) by more than
	 * the wheel's margin: no slot is free for it. */
	if (unlikely(s - r->cursor > r->wmask) || unlikely(r->nb_free == 0)) {
		r->c.over_hold++;
		t->st.drops++;
		rte_pktmbuf_free(m);
		return;
	}
	id = r->free_ids[--r->nb_free];
	r->h[id].m = m;
	r->h[id].next = NIL;
	r->h[id].l4 = l4;
	r->h[id].ipv4 = ipv4;
	w = (uint32_t)(s & r->wmask);
	if (r->head[w] == NIL)
		r->head[w] = id;
	else
		r->h[r->tail[w]].next = id;
	r->tail[w] = id;
	r->c.held++;
}

/* Send what is due at @p now, slot by slot, a burst at a time. */
static inline void
release(struct lr_task *t, struct reflect *r, uint64_t now)
{
	struct rte_mbuf *out[LR_BURST];
	uint64_t last = now >> r->gshift, tx_tsc = 0, bytes = 0;
	uint16_t k = 0;

	if (r->c.held == 0) {
		r->cursor = last + 1;
		return;
	}
	if (r->stamp)
		tx_tsc = rte_rdtsc();
	while (r->cursor <= last) {
		uint32_t w = (uint32_t)(r->cursor & r->wmask), id;

		while ((id = r->head[w]) != NIL) {
			struct held *e = &r->h[id];

			r->head[w] = e->next;
			if (e->l4 != 0)
				lr_reflect_stamp_tx(rte_pktmbuf_mtod(e->m, uint8_t *),
						    e->l4, e->ipv4, tx_tsc);
			bytes += e->m->pkt_len;
			out[k++] = e->m;
			r->free_ids[r->nb_free++] = id;
			r->c.held--;
			if (k == LR_BURST) {
				tx_send(t, r, out, k, bytes);
				k = 0;
				bytes = 0;
			}
		}
		if (r->c.held == 0) {
			r->cursor = last + 1;
			break;
		}
		r->cursor++;
	}
	if (k != 0)
		tx_send(t, r, out, k, bytes);
	if (r->c.held == 0)
		lr_netem_queue_empty(&r->q);
}

static inline uint64_t
due_tsc(struct reflect *r, const struct rte_mbuf *m, uint64_t now)
{
	struct lr_netem_copy cp[2];
	uint64_t now_ns = (uint64_t)((double)(now - r->tsc0) * r->ns_per_tsc);
	int64_t d;

	/* Only delay is allowed: one copy, queued. */
	lr_netem_enqueue(&r->q, m->pkt_len, now_ns, (uint32_t)r->c.held, cp);
	d = (int64_t)(cp[0].tts - now_ns);
	return d <= 0 ? now : now + (uint64_t)((double)d * r->tsc_per_ns);
}

static int
reflect_poll(struct lr_task *t, uint64_t now)
{
	struct reflect *r = t->priv;
	struct rte_mbuf *pkts[LR_BURST], *out[LR_BURST], *drop[LR_BURST];
	uint16_t l4[LR_BURST];
	bool v4[LR_BURST];
	uint16_t n, i, k = 0, nd = 0;
	/* Counted in registers over the burst, stored once. */
	uint32_t own = 0, looped = 0, others = 0, stamped = 0, runts = 0;
	uint64_t bytes = 0, obytes = 0;

	if (unlikely(r->remaining == 0)) {
		/* --count reached: only what the wheel holds goes on. */
		if (r->c.held != 0)
			release(t, r, rte_rdtsc());
		return r->c.held == 0;
	}
	n = rte_eth_rx_burst(t->port, t->queue, pkts, LR_BURST);
	/* --count N reflects N exactly: the rest of the burst that reaches
	 * it is freed unread, counted apart (as rx does). */
	if (unlikely(n > r->remaining)) {
		r->c.past_count += n - r->remaining;
		rte_pktmbuf_free_bulk(pkts + r->remaining,
				      n - (unsigned int)r->remaining);
		n = (uint16_t)r->remaining;
	}
	if (n == 0) {
		if (r->delay && r->c.held != 0) {
			release(t, r, rte_rdtsc());
			return 0;
		}
		return unlikely(t->capture) && lr_task_capture_end(t);
	}
	now = rte_rdtsc();
	for (i = 0; i < n && i < LR_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct lr_reflect_frame f;
		uint8_t *d;

		if (i + LR_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + LR_PREFETCH], void *));
		bytes += m->pkt_len;
		/*
		 * The virtual wire hands over the sender's mbuf itself, and
		 * gen's mbufs keep their frame for the next send (its
		 * template): changed in place, gen would send our swap and
		 * flag next. A frame from a pool other than the port's is
		 * copied into the port's pool first. A NIC, memif and pcap
		 * fill the port's own mbufs.
		 */
		if (unlikely(m->pool != r->pool)) {
			struct rte_mbuf *c = rte_pktmbuf_copy(m, r->pool, 0,
							      UINT32_MAX);

			rte_pktmbuf_free(m);
			if (c == NULL) {
				r->c.no_mbuf++;
				t->st.drops++;
				continue;
			}
			r->c.copied++;
			m = c;
		}
		d = rte_pktmbuf_mtod(m, uint8_t *);
		switch (lr_reflect_parse(d, m->data_len, &f)) {
		case LR_REFLECT_OWN:
			lr_reflect_swap(d, &f);
			own++;
			l4[k] = 0;
			v4[k] = f.ipv4;
			if (lr_reflect_mark(d, &f, r->stamp, now)) {
				stamped++;
				l4[k] = f.l4;
			}
			obytes += m->pkt_len;
			out[k++] = m;
			break;
		case LR_REFLECT_LOOPED:
			looped++;
			drop[nd++] = m;
			break;
		case LR_REFLECT_RUNT:
			/* No Ethernet header to swap: not ours, not
			 * reflectable whatever --others says. */
			others++;
			runts++;
			drop[nd++] = m;
			break;
		default:
			/*
			 * Other frames carry no mark of ours. One whose source
			 * is the tx port's own address is one we sent (it was
			 * addressed to us, and the swap made that its source)
			 * coming back: dropped as looped. A frame addressed to
			 * another MAC (promiscuous) is not caught so: --others
			 * drop, the default, is the safe choice on a loop.
			 */
			if (r->others && unlikely(rte_is_same_ether_addr(
				(const struct rte_ether_addr *)(d + RTE_ETHER_ADDR_LEN),
				&r->mac)) && !rte_is_zero_ether_addr(&r->mac)) {
				looped++;
				drop[nd++] = m;
				break;
			}
			others++;
			if (!r->others) {
				drop[nd++] = m;
				break;
			}
			lr_reflect_swap(d, &f);
			l4[k] = 0;
			obytes += m->pkt_len;
			out[k++] = m;
			break;
		}
	}
	r->c.reflected += own;
	r->c.stamped += stamped;
	if (r->stamp)
		r->c.unstamped += own - stamped;
	r->c.looped += looped;
	if (r->others) {
		r->c.others_reflected += others - runts;
		r->c.others_dropped += runts;
	} else {
		r->c.others_dropped += others;
	}
	r->c.in += n;
	t->st.rx_pkts += n;
	t->st.rx_bytes += bytes;
	if (nd != 0) {
		t->st.drops += nd;
		rte_pktmbuf_free_bulk(drop, nd);
	}
	if (!r->delay) {
		if (r->stamp) {
			uint64_t tx_tsc = rte_rdtsc();

			for (i = 0; i < k; i++)
				if (l4[i] != 0)
					lr_reflect_stamp_tx(
						rte_pktmbuf_mtod(out[i], uint8_t *),
						l4[i], v4[i], tx_tsc);
		}
		if (k != 0)
			tx_send(t, r, out, k, obytes);
	} else {
		/* The cursor catches up first (a stall of the lcore leaves it
		 * behind by the stall; an empty wheel's may be the task's
		 * start), so that every frame due within the wheel's span
		 * finds its slot. */
		release(t, r, now);
		for (i = 0; i < k; i++)
			hold(t, r, out[i], l4[i], v4[i], due_tsc(r, out[i], now));
		release(t, r, rte_rdtsc());
	}
	if (r->remaining <= n) {
		r->remaining = 0;
		return r->c.held == 0;
	}
	r->remaining -= n;
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
reflect_plan(uint16_t port, const void *conf, const void *with_conf,
	     const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_reflect_conf *c = conf;
	const struct lr_port_conf *pc = lr_port_conf_of(port);
	struct lr_reflect_conf qc = *c;
	unsigned int q, nq = lr_port_info(port)->nb_rxq;
	uint16_t peer;

	RTE_SET_USED(with_conf);
	if (c->peer[0] != '\0') {
		if (lr_port_find(c->peer, &peer) != 0 || lr_port_info(peer) == NULL) {
			if (pc == NULL || lr_port_find_for(c->peer, pc, &peer) != 0 ||
			    lr_port_setup(peer, pc) != 0)
				return -EINVAL;
		}
		snprintf(qc.peer, sizeof(qc.peer), "%u", peer);
		nq = RTE_MIN(nq, lr_port_info(peer)->nb_txq);
	}
	for (q = 0; q < nq; q++)
		if (lr_task_create(&lr_reflect_role, lcores[q % n], port,
				   (uint16_t)q, duration_s, &qc) == NULL)
			return -EINVAL;
	return (int)nq;
}

const struct lr_role lr_reflect_role = {
	.name = "reflect",
	.opts = reflect_opts,
	.uses_rx = true,
	.uses_tx = true,
	.conf_bytes = sizeof(struct lr_reflect_conf),
	.conf_init = reflect_conf_init,
	.conf_set = reflect_conf_set,
	.init = reflect_init,
	.poll = reflect_poll,
	.finish = reflect_finish,
	.report = reflect_report,
	.free = reflect_free,
	.results = reflect_results,
	.live = reflect_live,
	.plan = reflect_plan,
};
