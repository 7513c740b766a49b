/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "lr_clock.h"
#include "lr_common.h"
#include "lr_mbuf.h"
#include "lr_distributor.h"
#include "lr_opt.h"
#include "lr_frag.h"
#include "lr_fw_fast.h"
#include "lr_port.h"

const char *const lr_ingress_names[3] = { "full", "trim", "uh" };

struct dist_counts {
	uint64_t parsed[LR_PARSE_REASONS];	/* [0] unused: ok goes on */
	uint64_t channel[LR_DIST_CHANNELS_MAX];	/* handed to each channel */
#define DIST_FIELD(name, ...) uint64_t name;
	LR_DIST_COUNTERS(DIST_FIELD)
#undef DIST_FIELD
};

struct dist {
	struct lr_fw_conf fw;		/* key, channels, l4, trim; state: th */
	const struct lr_fw_ops *be;
	struct lr_thash *th;
	struct lr_frag_slot *frag;	/* first fragments' channels */
	struct rte_ring *ring[LR_DIST_CHANNELS_MAX];
	struct dist_counts c;
	struct lr_task *task;
	uint64_t remaining;
	struct lr_clock clk;		/* packet times from the TSC */
	/* The port's own stamps (a NIC's, a capture's; flag 0: none), read
	 * instead of the TSC. rx.trace: a capture's times. */
	struct lr_clock_rx rx;
	uint64_t ts_flag;		/* rx timestamp dynflag and dynfield */
	int ts_offset;			/* the stamp handed to the probes */
	uint32_t ring_size[LR_DIST_CHANNELS_MAX];
	uint32_t inflight_max;		/* frames the channels may hold, so
					 * that the pool never runs dry */
	uint64_t clock;			/* trace ns handed on (atomic) */
	uint8_t ingress;
	struct lr_fw_uh uh[LR_BURST];
	struct lr_fw_uh gather[LR_BURST];
	uint8_t idx[LR_DIST_CHANNELS_MAX][LR_BURST];
	uint8_t cnt[LR_DIST_CHANNELS_MAX];
	/* A chained frame gathered whole for the model backend, which
	 * parses the packet as the firmware sees it: all its bytes. */
	uint8_t whole[UINT16_MAX];
};

void
lr_dist_conf_init(struct lr_dist_conf *c)
{
	uint8_t k[LR_RSS_KEY_MAX], len;

	memset(c, 0, sizeof(*c));
	c->ring = 4096;
	lr_rss_key_parse("symmetric", k, &len);
	memcpy(c->key, k, len);
	c->key_len = len;
}

int
lr_ingress_parse(const char *val, uint8_t *ingress, uint16_t *trim)
{
	uint64_t v;

	if (strcmp(val, "full") == 0) {
		*ingress = LR_INGRESS_FULL;
		*trim = 0;
		return 0;
	}
	if (strcmp(val, "uh") == 0) {
		*ingress = LR_INGRESS_UH;
		*trim = 0;
		return 0;
	}
	/* Enough for Ethernet, a tag, IPv4 and TCP. */
	if (strncmp(val, "trim=", 5) == 0 && lr_parse_u64(val + 5, &v) == 0 &&
	    v >= 64 && v <= 9018) {
		*ingress = LR_INGRESS_TRIM;
		*trim = (uint16_t)v;
		return 0;
	}
	return lr_err(EINVAL, "ingress '%s': want full, trim=B (64..9018 bytes: "
		      "the headers need 64) or uh", val);
}

static int
opt_hash(void *conf, const char *key, const char *val)
{
	struct lr_dist_conf *c = conf;

	RTE_SET_USED(key);
	if (strcmp(val, "l3") != 0 && strcmp(val, "l4") != 0)
		return lr_err(EINVAL, "hash '%s': want l3 (addresses) or l4 "
			      "(addresses and ports)", val);
	c->l3 = strcmp(val, "l3") == 0;
	return 0;
}

static int
opt_hash_key(void *conf, const char *key, const char *val)
{
	struct lr_dist_conf *c = conf;
	uint8_t k[LR_RSS_KEY_MAX], len;

	RTE_SET_USED(key);
	if (lr_rss_key_parse(strcmp(val, "ms") == 0 ? "default" : val, k,
			     &len) != 0)
		return lr_err(EINVAL, "hash-key '%s': want symmetric, ms (the RSS "
			      "specification's) or hex bytes", val);
	if (len > LR_FW_KEY_MAX || (len != 0 && len < 16))
		return lr_err(EINVAL, "hash-key: %u bytes, want 16..%u", len,
			      LR_FW_KEY_MAX);
	if (len == 0) {
		struct lr_fw_conf fc;

		lr_fw_conf_init(&fc);
		memcpy(k, fc.key, fc.key_len);
		len = fc.key_len;
	}
	memcpy(c->key, k, len);
	c->key_len = len;
	return 0;
}

static int
opt_backend(void *conf, const char *key, const char *val)
{
	struct lr_dist_conf *c = conf;

	RTE_SET_USED(key);
	if (strcmp(val, "fast") != 0 && strcmp(val, "model") != 0)
		return lr_err(EINVAL, "backend '%s': want fast or model", val);
	c->model = strcmp(val, "model") == 0;
	return 0;
}

int
lr_ingress_set(const char *key, const char *val, uint8_t *ingress,
	       uint16_t *trim)
{
	char buf[32];

	if (strcmp(key, "ingress") == 0)
		return lr_ingress_parse(val, ingress, trim);
	if (strcmp(val, "0") == 0) {		/* trim 0: off */
		*ingress = LR_INGRESS_FULL;
		return 0;
	}
	snprintf(buf, sizeof(buf), "trim=%s", val);
	return lr_ingress_parse(buf, ingress, trim);
}

static int
opt_ingress(void *conf, const char *key, const char *val)
{
	struct lr_dist_conf *c = conf;

	return lr_ingress_set(key, val, &c->ingress, &c->trim);
}

#define DC(field) LR_OPT_FIELD(struct lr_dist_conf, field)

/* The distributor's options; the probe's plan takes them too (the probe
 * role's companion, lr_plan.companion). */
const struct lr_opt lr_dist_opts[] = {
	{ "channels", LR_OPT_UINT, DC(channels), 0, LR_DIST_CHANNELS_MAX, NULL,
	  "N", "run a distributor (role `dist`) on the port's one rx queue that "
	  "hashes each flow to one of N probe shards, for ports without RSS: "
	  "pcap, memif, af_packet, a NIC without it (1..64; 0: the port's RSS "
	  "queues)", "`--channels 4`", NULL },
	{ "hash", LR_OPT_FUNC, 0, 0, 0, 0, opt_hash, "l3|l4",
	  "with `--channels`: hash the addresses only, or the ports too (l4)",
	  "`--hash l3`", NULL },
	{ "hash-key", LR_OPT_FUNC, 0, 0, 0, 0, opt_hash_key, "KEY",
	  "with `--channels`: the Toeplitz key, `symmetric`, `ms` (the Microsoft "
	  "RSS specification's) or hex bytes (symmetric)", "`--hash-key ms`",
	  NULL },
	{ "backend", LR_OPT_FUNC, 0, 0, 0, 0, opt_backend, "fast|model",
	  "with `--channels`: the fast parser and table hash, or "
	  "firmware-model/'s plain code (fast)", "`--backend model`", NULL },
	{ "channel-ring", LR_OPT_UINT, DC(ring), 64, 1u << 20, NULL, "N",
	  "with `--channels`: records per channel ring (4096)",
	  "`--channel-ring 16384`", NULL },
	{ "ingress", LR_OPT_FUNC, 0, 0, 0, 0, opt_ingress, "MODE",
	  "what the probes take in: `full` packets, `trim=B`, or `uh` Unified "
	  "Header records (full)", "`--ingress uh`", NULL },
	{ "trim", LR_OPT_FUNC, 0, 0, 0, 0, opt_ingress, "B",
	  "as `--ingress trim=B` (0: off)", "`--trim 64`", NULL },
	{ "count", LR_OPT_UINT, DC(count), 0, UINT64_MAX, NULL, "N",
	  "stop after N packets, 0: no limit (0)", "`--count 1000000`", NULL },
	{ 0 },
};

int
lr_dist_conf_set(struct lr_dist_conf *c, const char *key, const char *val)
{
	return lr_opt_set(lr_dist_opts, c, "dist", key, val);
}

static void
dist_conf_init(void *conf)
{
	lr_dist_conf_init(conf);
}

static int
dist_conf_set(void *conf, const char *key, const char *val)
{
	return lr_dist_conf_set(conf, key, val);
}

/* Any other backend parses contiguous bytes: a chain is gathered whole
 * first, as the firmware sees the whole packet. */
static void
backend_parse_mbuf(struct dist *d, const struct rte_mbuf *m, uint64_t ts_ns,
		   struct lr_fw_uh *uh)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len;

	if (unlikely(m->nb_segs > 1)) {
		len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(d->whole));
		b = rte_pktmbuf_read(m, 0, len, d->whole);
		if (b == NULL) {
			memset(uh, 0, sizeof(*uh));
			uh->status = LR_PARSE_TRUNC_L2;
			uh->ts_ns = ts_ns;
			return;
		}
	}
	d->be->parse(&d->fw, b, len, ts_ns, uh);
}

static void
dist_free(struct lr_task *t)
{
	struct dist *d = t->priv;
	unsigned int i;

	if (d == NULL)
		return;
	for (i = 0; i < LR_DIST_CHANNELS_MAX; i++) {
		struct rte_mbuf *m;

		if (d->ring[i] == NULL)
			continue;
		/* What no probe took: mbufs go back to their pool. */
		while (d->ingress != LR_INGRESS_UH &&
		       rte_ring_sc_dequeue(d->ring[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(d->ring[i]);
	}
	rte_free(d->th);
	rte_free(d->frag);
	rte_free(d);
	t->priv = NULL;
}

static int
dist_init(struct lr_task *t, const void *arg)
{
	static unsigned int seq;
	const struct lr_dist_conf *c = arg;
	const struct lr_port_info *pi = lr_port_info(t->port);
	char name[RTE_RING_NAMESIZE];
	const struct lr_task *o;
	struct dist *d;
	unsigned int i, it = 0;

	if (c->channels == 0)
		return lr_err(EINVAL, "dist: give channels=1..%u",
			      LR_DIST_CHANNELS_MAX);
	/* One running distributor per port, so that a probe given a channel
	 * and no dist task finds the one it means (lr_dist_last); a finished
	 * one (an earlier round of a script) gives way. */
	while ((o = lr_role_next(&lr_dist_role, &it)) != NULL)
		if (o->port == t->port && lr_task_state(o) != LR_TASK_DONE)
			return lr_err(EBUSY, "dist: port %s has a distributor "
				      "already (task %u)", pi->name, o->id);
	d = rte_zmalloc_socket("lr_dist", sizeof(*d), RTE_CACHE_LINE_SIZE,
			       t->socket);
	if (d == NULL)
		return lr_err(ENOMEM, "dist: no memory on socket %d", t->socket);
	t->priv = d;
	d->task = t;
	d->th = rte_zmalloc_socket("lr_thash", sizeof(*d->th), RTE_CACHE_LINE_SIZE,
				   t->socket);
	d->frag = rte_zmalloc_socket("lr_dist_frag", LR_FRAG_SLOTS * sizeof(*d->frag),
				     RTE_CACHE_LINE_SIZE, t->socket);
	if (d->th == NULL || d->frag == NULL) {
		dist_free(t);
		return lr_err(ENOMEM, "dist: no memory on socket %d", t->socket);
	}
	lr_fw_conf_init(&d->fw);
	memcpy(d->fw.key, c->key, c->key_len);
	d->fw.key_len = c->key_len;
	d->fw.channels = (uint8_t)c->channels;
	d->fw.l4 = !c->l3;
	d->fw.trim = c->ingress == LR_INGRESS_TRIM ? c->trim : 0;
	lr_thash_init(d->th, d->fw.key, d->fw.key_len);
	d->fw.state = d->th;
	d->be = c->model ? &lr_fw_model_ops : &lr_fw_fast_ops;
	d->ingress = c->ingress;
	for (i = 0; i < c->channels; i++) {
		snprintf(name, sizeof(name), "lr_ch%u_%u_%u", t->port, i, seq);
		d->ring[i] = c->ingress == LR_INGRESS_UH ?
			rte_ring_create_elem(name, sizeof(struct lr_fw_uh),
					     rte_align32pow2(c->ring), t->socket,
					     RING_F_SP_ENQ | RING_F_SC_DEQ) :
			rte_ring_create(name, rte_align32pow2(c->ring), t->socket,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (d->ring[i] == NULL) {
			dist_free(t);
			return lr_err(ENOMEM, "dist: no channel ring %s of %u: %s",
				      name, c->ring, rte_strerror(rte_errno));
		}
		d->ring_size[i] = rte_ring_get_capacity(d->ring[i]);
	}
	lr_clock_init(&d->clk);
	if (rte_mbuf_dyn_rx_timestamp_register(&d->ts_offset, &d->ts_flag) != 0 ||
	    lr_clock_rx_init(&d->rx, t->port, t->capture != NULL, &d->clk) != 0) {
		dist_free(t);
		return lr_err(ENOMEM, "dist: no rx timestamp dynfield");
	}
	d->inflight_max = UINT32_MAX;
	if (t->capture) {
		uint32_t segs = 1, reserve, size = pi->pool->size;

		/* net_pcap reads a frame from the file before it asks for an
		 * mbuf, and drops it when there is none: a capture must never
		 * find the pool empty. Leave every lcore its cache (up to 1.5
		 * times its size before it flushes) and a burst of chains in
		 * hand (a probe's, or the one the PMD is filling); the channels
		 * hold the rest. */
		if (t->capture->max_frame > pi->mbuf_data_bytes)
			segs = (t->capture->max_frame + pi->mbuf_data_bytes - 1) /
			       pi->mbuf_data_bytes;
		reserve = (rte_lcore_count() + 1) *
			  (pi->pool->cache_size * 3 / 2 + LR_BURST * segs);
		if (c->ingress != LR_INGRESS_UH)	/* uh: records, no mbufs */
			d->inflight_max = size > reserve + segs ?
					  (size - reserve) / segs : 1;
	}
	d->remaining = c->count ? c->count : UINT64_MAX;
	seq++;
	return 0;
}

struct lr_task *
lr_dist_last(uint16_t port)
{
	struct lr_task *t, *last = NULL;
	unsigned int it = 0;

	while ((t = lr_role_next(&lr_dist_role, &it)) != NULL)
		if (t->port == port)
			last = t;
	return last;
}

int
lr_dist_channel(const struct lr_task *dist, unsigned int ch,
		struct lr_dist_channel *out)
{
	const struct dist *d;

	if (dist == NULL || dist->role != &lr_dist_role || dist->priv == NULL)
		return -EINVAL;
	d = dist->priv;
	if (ch >= d->fw.channels)
		return -ENOENT;
	out->ring = d->ring[ch];
	out->dist = d->task;
	out->ingress = d->ingress;
	out->trim = d->fw.trim;
	/* What the poll wrote: Unix ns, in the dynfield of every mbuf it
	 * hands on; a capture's times are the trace's. */
	memset(&out->rx, 0, sizeof(out->rx));
	out->rx.flag = d->ts_flag;
	out->rx.offset = d->ts_offset;
	out->rx.mult = 1;
	out->rx.trace = d->rx.trace;
	out->clock = &d->clock;
	return 0;
}

void
lr_dist_add_parsed(const struct lr_task *t, uint64_t parsed[LR_PARSE_REASONS])
{
	const struct dist *d = t->priv;
	unsigned int j;

	for (j = 1; j < LR_PARSE_REASONS; j++)
		parsed[j] += d->c.parsed[j];
}

/* A fragment of a datagram: the first leaves its channel, a later one
 * takes it. */
static void
frag_steer(struct dist *d, struct lr_fw_uh *u)
{
	struct lr_frag_slot *f = lr_frag_slot(d->frag, u->src, u->dst,
					      u->frag_id, u->proto);

	if (u->frag == LR_FRAG_FIRST) {
		lr_frag_put(f, u->src, u->dst, u->frag_id, u->proto, u->ts_ns,
			    u->channel);
	} else if (lr_frag_match(f, u->src, u->dst, u->frag_id, u->proto,
				 u->ts_ns)) {
		u->channel = (uint8_t)f->val;
		d->c.frag_steered++;
	} else {
		d->c.frag_unmatched++;
	}
}

/* Hand each channel its packets: the mbufs, or their UH records. */
static void
hand_over(struct dist *d, struct rte_mbuf **m)
{
	unsigned int ch, i, k, n;

	for (ch = 0; ch < d->fw.channels; ch++) {
		n = d->cnt[ch];
		if (n == 0)
			continue;
		d->cnt[ch] = 0;
		if (d->ingress == LR_INGRESS_UH) {
			for (i = 0; i < n; i++)
				d->gather[i] = d->uh[d->idx[ch][i]];
			k = rte_ring_sp_enqueue_burst_elem(d->ring[ch], d->gather,
							   sizeof(d->gather[0]), n,
							   NULL);
		} else {
			struct rte_mbuf *g[LR_BURST];

			for (i = 0; i < n; i++)
				g[i] = m[d->idx[ch][i]];
			k = rte_ring_sp_enqueue_burst(d->ring[ch], (void **)g, n,
						      NULL);
			if (k < n)
				lr_mbuf_free_bulk(g + k, n - k);
		}
		d->c.channel[ch] += k;
		d->c.ring_full += n - k;
		d->task->st.drops += n - k;
	}
}

static int
dist_poll(struct lr_task *t, uint64_t now)
{
	struct dist *d = t->priv;
	struct rte_mbuf *m[LR_BURST];
	uint64_t bytes = 0, ns;
	unsigned int room, held;
	uint16_t n, i;
	bool uh = d->ingress == LR_INGRESS_UH;
	bool fast = d->be == &lr_fw_fast_ops;

	/* Take no more than every channel has room for: a slow shard holds
	 * packets back in the port (which counts what it then misses, as a
	 * NIC does), and a pcap file is read whole. */
	room = (unsigned int)RTE_MIN(d->remaining, (uint64_t)LR_BURST);
	for (i = 0, held = 0; i < d->fw.channels && room != 0; i++) {
		unsigned int f = rte_ring_free_count(d->ring[i]);

		room = RTE_MIN(room, f);
		held += d->ring_size[i] - f;
	}
	/* A capture: no more frames in the rings than the pool can spare
	 * (inflight_max; UINT32_MAX for any other port). */
	if (unlikely(held >= d->inflight_max))
		return 0;
	room = RTE_MIN(room, d->inflight_max - held);
	if (room == 0)
		return 0;
	n = rte_eth_rx_burst(t->port, t->queue, m, (uint16_t)room);
	if (n == 0)
		/* A capture file returns nothing for ever after its end; the
		 * probes on the channels then end once their rings are empty. */
		return lr_task_capture_end(t);
	now = rte_rdtsc();
	ns = lr_clock_ns(&d->clk, now);
	for (i = 0; i < n && i < LR_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(m[i], void *));
	for (i = 0; i < n; i++) {
		struct lr_fw_uh *u = &d->uh[i];
		uint64_t ts = ns;

		if (i + LR_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(m[i + LR_PREFETCH], void *));
		bytes += m[i]->pkt_len;
		/* The port's stamp (rx.flag is 0 where it has none). */
		if (m[i]->ol_flags & d->rx.flag) {
			ts = lr_clock_rx_ns(&d->rx, m[i]);
			d->c.nic_ts++;
		}
		/* The whole frame, chained or not: lengths and bytes from
		 * pkt_len, never the first segment's data_len. */
		if (fast)
			lr_fw_fast_parse_mbuf(&d->fw, m[i], ts, u);
		else
			backend_parse_mbuf(d, m[i], ts, u);
		u->wire_len = (uint16_t)RTE_MIN(m[i]->pkt_len, (uint32_t)UINT16_MAX);
		if (unlikely(u->status != LR_PARSE_OK)) {
			d->c.parsed[u->status]++;
			t->st.drops++;
			if (!uh) {
				rte_pktmbuf_free(m[i]);
				m[i] = NULL;
			}
			continue;
		}
		if (m[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH) {
			/* The NIC hashed it (with the same key, we trust). */
			u->hash = m[i]->hash.rss;
			u->channel = (uint8_t)(u->hash % d->fw.channels);
			d->c.nic_hash++;
		}
		if (unlikely(u->frag != LR_FRAG_NONE))
			frag_steer(d, u);
		if (!uh) {
			*RTE_MBUF_DYNFIELD(m[i], d->ts_offset, uint64_t *) = ts;
			m[i]->ol_flags |= d->ts_flag;
		}
		d->idx[u->channel][d->cnt[u->channel]++] = (uint8_t)i;
	}
	hand_over(d, m);
	if (uh)
		lr_mbuf_free_bulk(m, n);
	if (d->rx.trace) {
		/* After the enqueues: a probe that then finds its ring empty
		 * has had every packet of its channel up to this time. */
		uint64_t last = d->uh[n - 1].ts_ns;

		if (last > d->clock)
			__atomic_store_n(&d->clock, last, __ATOMIC_RELEASE);
	}
	d->c.busy_tsc += rte_rdtsc() - now;
	t->st.rx_pkts += n;
	t->st.rx_bytes += bytes;
	d->remaining -= n;
	return d->remaining == 0;
}

#define DIST_ROW(f, k, m, kd, u, h) \
	LR_COUNTER_U64(struct dist_counts, f, k, m, kd, u, h),
static const struct lr_counter dist_rows[] = {
	LR_DIST_COUNTERS(DIST_ROW)
};
#undef DIST_ROW

static const struct lr_counters dist_counters = LR_COUNTERS(dist_rows);

static void
dist_counts_json(json_t *o, const struct dist_counts *c, unsigned int channels,
	    uint64_t rx)
{
	json_t *mal = json_object(), *ch = json_array();
	unsigned int j;
	uint64_t handed = 0;

	for (j = 1; j < LR_PARSE_REASONS; j++)
		json_object_set_new(mal, lr_parse_reason_names[j],
				    json_integer((json_int_t)c->parsed[j]));
	for (j = 0; j < channels; j++) {
		json_array_append_new(ch, json_integer((json_int_t)c->channel[j]));
		handed += c->channel[j];
	}
	json_object_set_new(o, "handed", json_integer((json_int_t)handed));
	json_object_set_new(o, "per_channel", ch);
	json_object_set_new(o, "malformed", mal);
	lr_counters_json(o, &dist_counters, c, 0);
	/* The stage's own cost: parse, hash, stamp, enqueue (not the PMD's
	 * rx); tsc_hz / it is the most one distributor lcore can feed. */
	json_object_set_new(o, "cycles_per_packet", json_real(rx ?
		(double)c->busy_tsc / (double)rx : 0));
	json_object_set_new(o, "mpps_ceiling", json_real(c->busy_tsc ?
		(double)rx * (double)rte_get_tsc_hz() / (double)c->busy_tsc / 1e6 : 0));
}

/* Bytes one packet moves from the distributor to a probe lcore: the frame
 * (full), its first trim bytes (trim), or a UH record (uh). */
static double
bytes_per_packet(const struct dist *d, const struct lr_task *t)
{
	double frame = t->st.rx_pkts ? (double)t->st.rx_bytes / (double)t->st.rx_pkts : 0;

	if (d->ingress == LR_INGRESS_UH)
		return sizeof(struct lr_fw_uh);
	if (d->ingress == LR_INGRESS_TRIM)
		return RTE_MIN(frame, (double)d->fw.trim);
	return frame;
}

static void
dist_report(const struct lr_task *t, json_t *o)
{
	const struct dist *d = t->priv;

	json_object_set_new(o, "channels", json_integer(d->fw.channels));
	json_object_set_new(o, "ingress", json_string(lr_ingress_names[d->ingress]));
	json_object_set_new(o, "backend", json_string(d->be->name));
	json_object_set_new(o, "bytes_per_packet", json_real(bytes_per_packet(d, t)));
	dist_counts_json(o, &d->c, d->fw.channels, t->st.rx_pkts);
}

static const struct lr_task_kind dist_task = {
	.uses_rx = true,
	.init = dist_init,
	.poll = dist_poll,
	.report = dist_report,
	.free = dist_free,
	.counters = &dist_counters,
};

static const struct lr_plan dist_plan = {
	.alone = "the distributor feeds probes: give --role probe --channels N",
};

const struct lr_role lr_dist_role = {
	.name = "dist",
	.opts = lr_dist_opts,
	.conf_bytes = sizeof(struct lr_dist_conf),
	.conf_init = dist_conf_init,
	.conf_set = dist_conf_set,
	.task = &dist_task,
	.plan = &dist_plan,
};
