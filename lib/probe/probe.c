/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "lr_clock.h"
#include "lr_common.h"
#include "lr_flowcache.h"
#include "lr_parse_mbuf.h"
#include "lr_port.h"
#include "lr_probe.h"

#define EXPIRE_EVERY_US 100	/* the expiry walk's step */
#define EXPIRE_EVERY_NS (EXPIRE_EVERY_US * 1000ull)

struct probe;
typedef unsigned int (*input_fn)(struct lr_task *t, struct probe *p);

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
	bool direct;			/* stopped: export without the ring */
	bool biflow;
	bool flushed;
};

void
lr_probe_conf_init(struct lr_probe_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->entries = LR_FC_ENTRIES_DEFAULT;
	c->active_s = LR_FC_ACTIVE_S_DEFAULT;
	c->inactive_s = LR_FC_INACTIVE_S_DEFAULT;
	c->ring = 16384;
	c->channel = -1;
	c->dist_task = -1;
	lr_exporter_conf_init(&c->export);
}

static void
probe_conf_init(void *conf)
{
	lr_probe_conf_init(conf);
}


/* count, trim and ingress are the distributor's options too: the plan's
 * distributor takes them as well (lr_role_conf_set()). */
static int
opt_count(void *conf, const char *key, const char *val)
{
	struct lr_probe_conf *c = conf;

	if (lr_parse_u64(val, &c->count) != 0)
		return lr_err(EINVAL, "probe: %s '%s': want packets", key, val);
	return 0;
}

static int
opt_ingress(void *conf, const char *key, const char *val)
{
	struct lr_probe_conf *c = conf;
	uint16_t trim = 0;
	int ret = lr_ingress_set(key, val, &c->ingress, &trim);

	if (ret != 0)
		return ret;
	c->trim = c->ingress == LR_INGRESS_TRIM ? trim : 0;
	return 0;
}

#define PRC(field) LR_OPT_FIELD(struct lr_probe_conf, field)

/* The probe's options, then the export's; its companion's (the
 * distributor's) follow them in --help and usage.md. */
static const struct lr_opt probe_opts[] = {
	{ "entries", LR_OPT_UINT, PRC(entries), 8, 1u << 30, NULL, "N",
	  "flow cache capacity per rx queue, rounded up to 8 × 2^k; 96 B per "
	  "entry (120 B with biflow), so 1M flows take 96 MB on the port's "
	  "socket (" RTE_STR(LR_FC_ENTRIES_DEFAULT) ")", "`--entries 65536`",
	  NULL },
	{ "active", LR_OPT_UINT, PRC(active_s), 1, 86400, NULL, "S",
	  "active timeout: a flow older than this is exported and starts again "
	  "(" RTE_STR(LR_FC_ACTIVE_S_DEFAULT) ")", "`--active 60`", NULL },
	{ "inactive", LR_OPT_UINT, PRC(inactive_s), 1, 86400, NULL, "S",
	  "inactive timeout: a flow idle this long is exported ("
	  RTE_STR(LR_FC_INACTIVE_S_DEFAULT) ")",
	  "`--inactive 10`", NULL },
	{ "ring", LR_OPT_UINT, PRC(ring), 64, 1u << 24, NULL, "N",
	  "records in each queue's ring to the exporter; a full ring is "
	  "counted, never waits (16384)", "`--ring 65536`", NULL },
	{ "count", LR_OPT_FUNC, 0, 0, 0, 0, opt_count, "N",
	  "stop after exactly N packets, 0: no limit (0); what the last burst "
	  "held past N is freed unread and counted in `past_count_packets`",
	  "`--count 1000000`", NULL },
	{ "trim", LR_OPT_FUNC, 0, 0, 0, 0, opt_ingress, "B",
	  "parse only the first B bytes of each frame (64..9018), as a trimming "
	  "NIC delivers them; lengths are checked against, and bytes counted "
	  "from, the whole frame; a header cut by the trim counts as `trunc_l4` "
	  "(0: off)", "`--trim 64`", NULL },
	{ "ingress", LR_OPT_FUNC, 0, 0, 0, 0, opt_ingress, "MODE",
	  "what the flow cache takes in: `full` packets, `trim=B` (as `--trim "
	  "B`), or `uh`: Unified Header records from a distributor, no packet "
	  "bytes (needs `--channels`) (full)", "`--ingress uh`", NULL },
	{ "channel", LR_OPT_UINT, PRC(channel), 0, LR_DIST_CHANNELS_MAX - 1, NULL,
	  "I", "(scripts) read channel I of a dist task instead of a queue: the "
	  "one `dist = TASK` names (a task object or its id), else the port's "
	  "dist task made last", "`channel = 0`", NULL },
	{ "dist", LR_OPT_UINT, PRC(dist_task), 0, LR_TASK_MAX - 1, NULL, "ID",
	  "(scripts) with `channel`: the dist task to read, by id", "`dist = d`",
	  NULL },
	LR_OPT_INCLUDE_ROW(struct lr_probe_conf, export, lr_exporter_opts),
	{ 0 },
};

/* The cache's export callback, on the task's lcore (or, once the task has
 * stopped, on the main lcore straight to the exporter). */
static int
to_exporter(void *arg, const struct lr_flow_rec *r)
{
	struct probe *p = arg;

	if (p->direct) {
		/* The record is in the exporter now, whatever the return: an
		 * error is an earlier message the transport refused, whose
		 * records the exporter counts in records_lost. Refusing this
		 * one too would count it in export_drops, and a record that
		 * does reach the collector as lost. */
		lr_exporter_add(r);
		return 0;
	}
	if (rte_ring_sp_enqueue_elem(p->ring, (void *)(uintptr_t)r, sizeof(*r)) != 0) {
		p->c.ring_full++;
		return -1;
	}
	return 0;
}

static void
probe_free(struct lr_task *t)
{
	struct probe *p = t->priv;

	if (p == NULL)
		return;
	lr_fc_free(p->fc);
	lr_exporter_ring_free(p->ring);
	rte_free(p);
	t->priv = NULL;
	lr_exporter_close();
}

static unsigned int input_port(struct lr_task *t, struct probe *p);
static unsigned int input_port_trace(struct lr_task *t, struct probe *p);
static unsigned int input_channel(struct lr_task *t, struct probe *p);
static unsigned int input_uh(struct lr_task *t, struct probe *p);

static int
probe_init(struct lr_task *t, const void *arg)
{
	const struct lr_probe_conf *c = arg;
	struct lr_dist_channel ch;
	struct lr_fc_conf fcc;
	struct probe *p;
	int ret;

	if (c->dist_task >= 0 && c->channel < 0)
		return lr_err(EINVAL, "probe: dist %d names whose channel to "
			      "read: give channel=I too", c->dist_task);
	if (c->channel >= 0) {
		/* Its distributor: the one named, else the port's. */
		const struct lr_task *d = c->dist_task < 0 ?
			lr_dist_last(t->port) :
			lr_engine_task((unsigned int)c->dist_task);

		if (c->dist_task >= 0 &&
		    (d == NULL || d->role != &lr_dist_role || d->port != t->port))
			return lr_err(EINVAL, "probe: dist %d: not a dist task on "
				      "port %u", c->dist_task, t->port);
		if (lr_dist_channel(d, (unsigned int)c->channel, &ch) != 0)
			return lr_err(ENOENT, "probe: channel %d: no dist task with "
				      "that many channels on port %u (make it first)",
				      c->channel, t->port);
		if (c->ingress != LR_INGRESS_FULL && c->ingress != ch.ingress)
			return lr_err(EINVAL, "probe: ingress %s, but the channel's "
				      "distributor hands on %s",
				      lr_ingress_names[c->ingress],
				      lr_ingress_names[ch.ingress]);
	} else if (c->ingress == LR_INGRESS_UH) {
		return lr_err(EINVAL, "probe: ingress=uh takes Unified Header "
			      "records from a distributor channel: give channels=N "
			      "(CLI) or channel=I after a dist task");
	} else if (t->queue == LR_QUEUE_NONE) {
		return lr_err(EINVAL, "probe: no queue and no channel to read");
	}

	ret = lr_exporter_open(&c->export);
	if (ret != 0)
		return ret;
	p = rte_zmalloc_socket("lr_probe", sizeof(*p), RTE_CACHE_LINE_SIZE,
			       t->socket);
	if (p == NULL) {
		lr_exporter_close();
		return lr_err(ENOMEM, "probe: no memory on socket %d", t->socket);
	}
	/* From here probe_free() undoes it all, the exporter's user too. */
	t->priv = p;
	p->ring = lr_exporter_ring(c->ring, t->socket);
	if (p->ring == NULL) {
		ret = -rte_errno;
		probe_free(t);
		return ret;
	}
	lr_fc_conf_init(&fcc);
	fcc.entries = c->entries;
	fcc.active_s = c->active_s;
	fcc.inactive_s = c->inactive_s;
	fcc.socket = t->socket;
	fcc.export = to_exporter;
	fcc.biflow = c->export.ipfix.biflow;
	p->biflow = c->export.ipfix.biflow;
	fcc.arg = p;
	p->fc = lr_fc_create(&fcc);
	if (p->fc == NULL) {
		ret = -rte_errno;
		probe_free(t);
		return ret;
	}
	lr_clock_init(&p->clk);
	p->expire_step = rte_get_tsc_hz() * EXPIRE_EVERY_US / 1000000;
	p->remaining = c->count ? c->count : UINT64_MAX;
	p->trim = c->trim ? c->trim : UINT32_MAX;
	p->input = t->capture ? input_port_trace : input_port;
	if (c->channel >= 0) {
		/* The distributor stamped every packet (Unix ns) and counts
		 * the packets: this task reads until it is done. */
		p->in = ch.ring;
		p->dist = ch.dist;
		p->remaining = UINT64_MAX;
		p->input = ch.ingress == LR_INGRESS_UH ? input_uh : input_channel;
		p->trim = ch.ingress == LR_INGRESS_TRIM ? ch.trim : UINT32_MAX;
		p->rx = ch.rx;
		p->dist_clock = ch.clock;
	} else if (lr_clock_rx_init(&p->rx, t->port, t->capture != NULL,
				    &p->clk) != 0) {
		probe_free(t);
		return lr_err(ENOMEM, "probe: no rx timestamp dynfield");
	}
	return 0;
}

/* Packets at their own (trace) times into the cache. The expiry walk runs
 * whenever the trace passes its next due time, within a burst too: a
 * sparse capture may hold minutes in one burst, and a flow idle for longer
 * than its timeout in the trace must end by it, before a later packet of
 * the same flow would start its next record. */
static void
update_trace(struct lr_task *t, struct probe *p, const struct lr_parsed **pp,
	     const uint64_t *ts, unsigned int k)
{
	unsigned int i, j = 0;

	for (i = 0; i < k; i++) {
		if (ts[i] < p->walk_ns)
			continue;
		lr_fc_update_ts(p->fc, pp + j, i - j, t->port, ts + j);
		lr_fc_expire(p->fc, ts[i]);
		p->walk_ns = ts[i] + EXPIRE_EVERY_NS;
		j = i;
	}
	lr_fc_update_ts(p->fc, pp + j, k - j, t->port, ts + j);
	if (k != 0 && ts[k - 1] > p->trace_ns)
		p->trace_ns = ts[k - 1];
}

/* Parse @p n mbufs into the cache and free them. @p trace: each packet at
 * its own stamp (a capture); else the burst at one time. Inlined into
 * two callers, so that the live path keeps its code. */
static __rte_always_inline void
account_burst(struct lr_task *t, struct probe *p, struct rte_mbuf **m,
	      uint16_t n, uint64_t now, const bool trace)
{
	struct lr_parsed pk[LR_BURST];
	const struct lr_parsed *pp[LR_BURST];
	uint64_t ts[LR_BURST];
	uint64_t bytes = 0, ns;
	uint16_t i, k = 0;

	for (i = 0; i < n && i < LR_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(m[i], void *));
	for (i = 0; i < n; i++) {
		enum lr_parse_result r;

		if (i + LR_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(m[i + LR_PREFETCH], void *));
		bytes += m[i]->pkt_len;
		/* The first segment, or the trim: the headers; the frame's
		 * whole length: what the lengths must fit. */
		r = lr_parse_mbuf(m[i], p->trim, &pk[k]);
		p->c.parsed[r]++;
		if (r == LR_PARSE_OK) {
			if (trace)
				ts[k] = lr_clock_rx_trace_ns(&p->rx, m[i]);
			pp[k] = &pk[k];
			k++;
		}
	}
	if (trace) {
		update_trace(t, p, pp, ts, k);
		/* Trace time moves with every frame, parsed or not. */
		ns = lr_clock_rx_trace_ns(&p->rx, m[n - 1]);
		if (ns > p->trace_ns)
			p->trace_ns = ns;
	} else {
		/* The burst's time: its last packet's rx stamp (a NIC's,
		 * or the distributor's), else the TSC now. */
		if (m[n - 1]->ol_flags & p->rx.flag)
			ns = lr_clock_rx_ns(&p->rx, m[n - 1]);
		else
			ns = lr_clock_ns(&p->clk, now);
		lr_fc_update(p->fc, pp, k, t->port, ns);
	}
	rte_pktmbuf_free_bulk(m, n);
	if (p->in == NULL) {
		t->st.rx_pkts += n;
		t->st.rx_bytes += bytes;
	}
}

static void
probe_burst(struct lr_task *t, struct probe *p, struct rte_mbuf **m, uint16_t n,
	uint64_t now)
{
	account_burst(t, p, m, n, now, false);
}

static void
account_trace(struct lr_task *t, struct probe *p, struct rte_mbuf **m,
	      uint16_t n, uint64_t now)
{
	account_burst(t, p, m, n, now, true);
}

static unsigned int
input_port(struct lr_task *t, struct probe *p)
{
	struct rte_mbuf *m[LR_BURST];
	uint16_t n = rte_eth_rx_burst(t->port, t->queue, m, LR_BURST);

	/* --count N stops at N exactly. The burst still asks for LR_BURST:
	 * vector PMDs return nothing for fewer than 4 (rte_eth_rx_burst()),
	 * so the last burst's packets past N are freed unread, counted apart. */
	if (unlikely(n > p->remaining)) {
		p->c.past_count += n - p->remaining;
		rte_pktmbuf_free_bulk(m + p->remaining, n - (uint16_t)p->remaining);
		n = (uint16_t)p->remaining;
	}
	if (n != 0)
		probe_burst(t, p, m, n, rte_rdtsc());
	return n;
}

static unsigned int
input_port_trace(struct lr_task *t, struct probe *p)
{
	struct rte_mbuf *m[LR_BURST];
	uint16_t n = rte_eth_rx_burst(t->port, t->queue, m, LR_BURST);

	if (n != 0)
		account_trace(t, p, m, n, 0);
	return n;
}

static unsigned int
input_channel(struct lr_task *t, struct probe *p)
{
	struct rte_mbuf *m[LR_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(p->in, (void **)m,
			(unsigned int)RTE_MIN(p->remaining, (uint64_t)LR_BURST), NULL);

	if (n != 0) {
		if (p->rx.trace)
			account_trace(t, p, m, (uint16_t)n, 0);
		else
			probe_burst(t, p, m, (uint16_t)n, rte_rdtsc());
	}
	return n;
}

/* Unified Header records: the cache never sees packet bytes. */
static unsigned int
input_uh(struct lr_task *t, struct probe *p)
{
	struct lr_fw_uh uh[LR_BURST];
	struct lr_parsed pk[LR_BURST];
	const struct lr_parsed *pp[LR_BURST];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst_elem(p->in, uh, sizeof(uh[0]),
			(unsigned int)RTE_MIN(p->remaining, (uint64_t)LR_BURST), NULL);
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		lr_parsed_from_uh(&uh[i], &pk[i]);
		pp[i] = &pk[i];
	}
	p->c.parsed[LR_PARSE_OK] += n;
	if (p->rx.trace) {
		uint64_t ts[LR_BURST];

		for (i = 0; i < n; i++)
			ts[i] = uh[i].ts_ns;
		update_trace(t, p, pp, ts, n);
	} else {
		lr_fc_update(p->fc, pp, n, t->port, uh[n - 1].ts_ns);
	}
	return n;
}

/* The expiry walk in trace time: a capture replayed in a fraction of a
 * second still ends an idle flow by its inactive timeout, as it would have
 * live. A channel's probe that has emptied its ring takes its distributor's
 * trace time, so that its flows age while the trace goes on elsewhere (as
 * one probe for the whole port would see them). */
static void
expire_trace(struct probe *p, unsigned int n)
{
	if (n == 0 && p->dist_clock != NULL) {
		uint64_t c = __atomic_load_n(p->dist_clock, __ATOMIC_ACQUIRE);

		/* Loaded before the check: every packet of this channel up
		 * to c was in the ring, and the ring is empty. */
		if (c > p->trace_ns && rte_ring_empty(p->in))
			p->trace_ns = c;
	}
	if (p->trace_ns != 0 && p->trace_ns >= p->walk_ns) {
		lr_fc_expire(p->fc, p->trace_ns);
		p->walk_ns = p->trace_ns + EXPIRE_EVERY_NS;
	}
}

static int
probe_poll(struct lr_task *t, uint64_t now)
{
	struct probe *p = t->priv;
	unsigned int n;

	now = rte_rdtsc();
	n = p->input(t, p);
	if (n != 0) {
		p->c.busy_tsc += rte_rdtsc() - now;
		if (p->remaining <= n) {
			p->remaining = 0;
			return 1;
		}
		p->remaining -= n;
	} else if (p->dist != NULL &&
		   lr_task_state(p->dist) == LR_TASK_DONE &&
		   rte_ring_empty(p->in)) {
		return 1;	/* the distributor is done, its ring empty */
	} else if (p->in == NULL && lr_task_capture_end(t)) {
		return 1;	/* the capture file is read to its end */
	}
	if (p->rx.trace) {
		expire_trace(p, n);
	} else if (now >= p->expire_tsc) {
		lr_fc_expire(p->fc, lr_clock_ns(&p->clk, now));
		p->expire_tsc = now + p->expire_step;
	}
	return 0;
}

/* Control path: the exporter drains the rings (lr_exporter.h). */
static void
probe_tick(void)
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

/* The lcores have stopped: empty the rings, then end every flow still in a
 * cache straight into the exporter, and send it all with the statistics. */
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

static void
probe_stopped(void)
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

/* The probe's plan: shards on the port's queues, or a distributor of
 * @p with_conf and a shard on each of its channels (lr_probe.h). */
static int
probe_plan(uint16_t port, const void *conf, const void *with_conf,
	   const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_port_info *pi = lr_port_info(port);
	const struct lr_dist_conf *dc = with_conf;
	struct lr_probe_conf qc = *(const struct lr_probe_conf *)conf;
	unsigned int q, made = 0;
	struct lr_task *d;

	if (dc == NULL || dc->channels == 0)
		return lr_role_plan_queues(&lr_probe_role, port, &qc, lcores, n,
					   duration_s);
	if (dc->channels > n)
		return lr_err(EINVAL, "probe: %u channels but %u worker lcore%s: "
			      "each channel needs its own (EAL -l, or --lcores "
			      "'0@0,(1-%u)@1' to share CPUs)", dc->channels, n,
			      n == 1 ? "" : "s", dc->channels);
	if (pi->nb_rxq > 1)
		return lr_err(EINVAL, "probe: channels=%u on a port with %u rx "
			      "queues: its RSS spreads flows already (give "
			      "queues=1 to use the model)", dc->channels,
			      pi->nb_rxq);
	d = lr_task_create(&lr_dist_role, lcores[0], port, 0, duration_s, dc);
	if (d == NULL)
		return -rte_errno;
	made++;
	/* The distributor counts packets and ends the run; its probes read
	 * until it is done and their channel is empty. */
	qc.count = 0;
	qc.dist_task = (int32_t)d->id;
	for (q = 0; q < dc->channels; q++, made++) {
		qc.channel = (int32_t)q;
		if (lr_task_create(&lr_probe_role, lcores[(q + 1) % n], port,
				   LR_QUEUE_NONE, 0, &qc) == NULL)
			return -rte_errno;
	}
	return (int)made;
}

void
lr_probe_counts(const struct lr_task *t, struct lr_probe_counts *out)
{
	const struct probe *p = t->priv;

	*out = p->c;
}

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
#define JSON(s, name, key) \
	if (key != NULL) \
		json_object_set_new(o, key, json_integer((json_int_t)s->name));
#define FC_JSON(name, key, what) JSON(f, name, key)
#define PROBE_JSON(name, key, what) JSON(c, name, key)
	LR_FC_COUNTERS(FC_JSON)
	LR_PROBE_COUNTERS(PROBE_JSON)
#undef PROBE_JSON
#undef FC_JSON
#undef JSON
	/* What a packet costs the probe (parse, cache, free), not counting
	 * the PMD's rx: the rate one lcore could take alone is tsc_hz / it. */
	json_object_set_new(o, "cycles_per_packet", json_real(f->packets ?
		(double)c->busy_tsc / (double)f->packets : 0));
	json_object_set_new(o, "mpps_per_lcore", json_real(c->busy_tsc ?
		(double)f->packets * (double)rte_get_tsc_hz() / (double)c->busy_tsc / 1e6 : 0));
}

static void
probe_report(const struct lr_task *t, json_t *o)
{
	const struct probe *p = t->priv;

	probe_counts_json(o, &p->c, lr_fc_counts(p->fc));
	json_object_set_new(o, "flow_capacity", json_integer(lr_fc_capacity(p->fc)));
	json_object_set_new(o, "bytes_per_entry", json_integer((json_int_t)lr_fc_entry_bytes(p->biflow)));
}

static void
probe_results(json_t *doc)
{
	struct lr_probe_counts tot;
	struct lr_fc_counts ft;
	unsigned int it = 0, j, nb = 0;
	const struct lr_task *t;
	json_t *o, *e;

	memset(&tot, 0, sizeof(tot));
	memset(&ft, 0, sizeof(ft));
	dists_parsed(tot.parsed);
	while ((t = lr_role_next(&lr_probe_role, &it)) != NULL) {
		const struct probe *p = t->priv;
		const struct lr_fc_counts *f;

		nb++;
		f = lr_fc_counts(p->fc);
		for (j = 0; j < LR_PARSE_REASONS; j++)
			tot.parsed[j] += p->c.parsed[j];
#define PROBE_ADD(name, key, what) tot.name += p->c.name;
#define FC_ADD(name, key, what) ft.name += f->name;
		LR_PROBE_COUNTERS(PROBE_ADD)
		LR_FC_COUNTERS(FC_ADD)
#undef FC_ADD
#undef PROBE_ADD
		for (j = 0; j < RTE_DIM(ft.ended); j++)
			ft.ended[j] += f->ended[j];
	}
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

static void
probe_live(char *buf, size_t len)
{
	unsigned int it = 0, nb = 0;
	uint64_t active = 0, created = 0;
	const struct lr_task *t;

	buf[0] = '\0';
	while ((t = lr_role_next(&lr_probe_role, &it)) != NULL) {
		const struct probe *p = t->priv;

		nb++;
		active += lr_fc_counts(p->fc)->active;
		created += lr_fc_counts(p->fc)->created;
	}
	if (nb != 0)
		snprintf(buf, len, "flows %" PRIu64 " active, %" PRIu64 " made, "
			 "%" PRIu64 " exported", active, created,
			 lr_exporter_records());
}

const struct lr_role lr_probe_role = {
	.name = "probe",
	.opts = probe_opts,
	.uses_rx = true,
	.conf_bytes = sizeof(struct lr_probe_conf),
	.conf_init = probe_conf_init,
	.init = probe_init,
	.poll = probe_poll,
	.report = probe_report,
	.free = probe_free,
	.results = probe_results,
	.live = probe_live,
	.tick = probe_tick,
	.stopped = probe_stopped,
	.with = &lr_dist_role,
	.plan = probe_plan,
	.check = lr_probe_export_check,
	.queueless_key = "channel",
};
