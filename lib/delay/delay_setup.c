/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The delay role's options, the setup of its directions (the ring sized
 * from the bandwidth-delay product, the wheel from the jitter, netem's
 * limit), their end, its plan over a port and its peer, and the role.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "delay_internal.h"
#include "lr_opt.h"
#include "lr_pool.h"
#include "lr_port.h"

RTE_LOG_REGISTER(lr_delay_logtype, user.lr.delay, INFO);
#define DLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, lr_delay_logtype, "delay: " fmt "\n", ##__VA_ARGS__)

/* ---- options ---- */

/* A SPEC is parsed as it is given, so that a bad word is an error of the
 * option (exit 2), not of the run. */
static int
check_spec(void *conf, const char *key, const char *val)
{
	struct lr_netem_conf nc;
	char err[256];

	RTE_SET_USED(conf);
	if (lr_netem_parse(val, &nc, err, sizeof(err)) != 0)
		return lr_err(EINVAL, "delay: %s: %s", key, err);
	lr_netem_conf_free(&nc);
	return 0;
}

/* "1" or "1%": a percentage in 0..100, kept as a fraction. */
static int
set_late_share(void *conf, const char *key, const char *val)
{
	struct lr_delay_conf *c = conf;
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno == 0 && end != val && *end == '%')
		end++;
	if (errno != 0 || end == val || *end != '\0' || !(v >= 0 && v <= 100))
		return lr_err(EINVAL, "delay: %s '%s': want a percentage "
			      "0..100", key, val);
	c->late_share = v / 100;
	return 0;
}

/* TIME as the SPEC writes it: 200ms, 1.5s (a bare number is ns). */
static int
set_delay_max(void *conf, const char *key, const char *val)
{
	struct lr_delay_conf *c = conf;
	int64_t ns;

	if (lr_netem_parse_time(val, &ns) != 0 || ns < 0)
		return lr_err(EINVAL, "delay: %s '%s': want a time (200ms, 1.5s)",
			      key, val);
	c->delay_max_ns = (uint64_t)ns;
	return 0;
}

#define DC(field) LR_OPT_FIELD(struct lr_delay_conf, field)

static const struct lr_opt delay_opts[] = {
	{ "peer", LR_OPT_STRING(struct lr_delay_conf, peer, 1, NULL), "PORT",
	  "the other port: frames from --port leave by it, and its frames "
	  "leave by --port (an id, a name or vdev devargs, set up as --port)",
	  "`--peer net_null1`", NULL },
	{ "netem", LR_OPT_STRING(struct lr_delay_conf, netem, 0,
					check_spec), "SPEC",
	  "impairments from --port to --peer in tc-netem(8)'s words: delay, "
	  "jitter, correlation, distribution, loss (random, state, gemodel), "
	  "corrupt, duplicate, reorder/gap, rate, slot, limit, seed; and "
	  "no-reorder, jitter-ar1 (none)",
	  "`--netem \"delay 184ms 8us distribution normal\"`", NULL },
	{ "netem-back", LR_OPT_STRING(struct lr_delay_conf, netem_back, 0,
					     check_spec), "SPEC",
	  "impairments from --peer to --port, as --netem (none)",
	  "`--netem-back \"delay 184ms loss 0.1%\"`", NULL },
	{ "buffer", LR_OPT_UINT, DC(buffer), 0, STORE_MAX, NULL, "BYTES",
	  "storage of a direction of a queue pair, at most 64G; 0: the "
	  "bandwidth-delay product of the port's speed and the greatest "
	  "delay (0)",
	  "`--buffer 512M`", NULL },
	{ "delay-max", LR_OPT_FUNC, 0, 0, 0, 0, set_delay_max, "TIME",
	  "the greatest delay (with its jitter) task:set{netem=} may change "
	  "a direction to: each direction's storage and timing wheel are "
	  "sized for it and kept in due-time order, whatever the SPEC (0: "
	  "no live changes)", "`--delay-max 50ms`", NULL },
	{ "late", LR_OPT_UINT, DC(late_ns), 0, UINT32_MAX, NULL, "NS",
	  "a frame sent later than due by more than NS ns is counted late "
	  "(10000)", "`--late 1000`", NULL },
	{ "late-share", LR_OPT_FUNC, 0, 0, 0, 0, set_late_share, "P",
	  "a direction that sent more than P % of its frames late (--late) "
	  "gets the verdict late: exit 3 from --role (1)",
	  "`--late-share 0.1`", NULL },
	{ 0 },
};

static void
delay_conf_init(void *conf)
{
	struct lr_delay_conf *c = conf;

	memset(c, 0, sizeof(*c));
	c->late_ns = LATE_NS_DEFAULT;
	c->late_share = LATE_SHARE_DEFAULT;
}

static int
delay_conf_check(const void *conf)
{
	const struct lr_delay_conf *c = conf;

	if (c->peer[0] == '\0')
		return lr_err(EINVAL, "delay: --peer PORT is missing: the port "
			      "the frames of --port leave by");
	return 0;
}

/* ---- control path ---- */

static void
dir_free(struct dir *d)
{
	if (d->nb_spare != 0)
		rte_pktmbuf_free_bulk(d->spare, d->nb_spare);
	d->nb_spare = 0;
	if (d->nb_pend > d->pend_off)
		rte_pktmbuf_free_bulk(d->pend + d->pend_off,
				      d->nb_pend - d->pend_off);
	d->nb_pend = d->pend_off = 0;
	if (d->nb_ready != 0)
		rte_pktmbuf_free_bulk(d->ready, d->nb_ready);
	d->nb_ready = 0;
	rte_mempool_free(d->pool);
	d->pool = NULL;
	rte_free(d->store.mem);
	rte_free(d->store.wheel);
	rte_free(d->store.late);
	rte_free(d->lateness);
	rte_free(d->mq);
	d->store.mem = NULL;
	d->mq = NULL;
	d->store.wheel = NULL;
	d->store.late = NULL;
	d->lateness = NULL;
	lr_netem_conf_free(&d->nc);
	lr_changes_free(&d->changes);
}

static void
delay_free(struct lr_task *t)
{
	struct delay *dl = t->priv;

	if (dl == NULL)
		return;
	dir_free(&dl->d[0]);
	dir_free(&dl->d[1]);
	rte_free(dl);
	t->priv = NULL;
}

/* Said once per process for each direction and SPEC: a scenario makes a
 * box per trial (rfc2544: 47 of them), each with the same words. */
static bool
first_time(const char *what, const char *spec)
{
	static uint64_t seen[64];
	static unsigned int nb_seen;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	const char *p;
	unsigned int i;

	for (p = what; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	h = (h ^ 0xff) * 0x100000001b3ull;
	for (p = spec; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	for (i = 0; i < nb_seen; i++)
		if (seen[i] == h)
			return false;
	if (nb_seen < RTE_DIM(seen))
		seen[nb_seen++] = h;
	return true;
}

/*
 * A SPEC's limit that cannot hold what its delay keeps in flight drops the
 * rest (over_limit): said, with the share of the port's line rate of 64 B
 * frames one queue pair gets, and the delay the limit holds of it. Not for
 * a rate: there queuing up to the limit is the point, whatever the delay.
 * Not for the bursts alone (1 ms): a SPEC without delay is not warned.
 */
static void
limit_warning(const struct dir *d, const char *what, const char *spec,
	      double pps, double bps, unsigned int nq, int64_t dmax)
{
	double q_pps = nq > 1 ? pps * 5 / 4 / nq : pps;
	double need = q_pps * (double)dmax / 1e9;

	if (d->limit == 0) {
		if (first_time(what, spec))
			DLOG(WARNING, "%s: 'limit 0': every frame is dropped "
			     "(over_limit), as sch_netem drops them", what);
		return;
	}
	if (d->nc.rate_Bps != 0 || dmax <= 0 || (double)d->limit >= need ||
	    !first_time(what, spec))
		return;
	DLOG(WARNING, "%s: limit %u holds %.3f ms of 64 B frames at %.3g "
	     "Mpps (%s%.0f Gb/s line rate), less than the %.3f ms the SPEC "
	     "delays: frames over it are dropped (over_limit)", what,
	     d->limit, d->limit / q_pps * 1e3, q_pps / 1e6,
	     nq > 1 ? "a queue pair's share of " : "", bps / 1e9,
	     (double)dmax / 1e6);
}

/*
 * Frames are copied out up to ahead_ns before due (send_ready()): no later
 * arrival may be due before them, so at most the least delay; none where
 * netem decides at the dequeue (slots) or sends ahead of the queue
 * (reorder).
 */
uint64_t
lr_delay_ahead_ns(const struct lr_netem_conf *c)
{
	int64_t dmin, dmax;

	if (c->slot || c->reorder != 0 || c->gap != 0)
		return 0;
	lr_netem_delay_bounds(c, &dmin, &dmax);
	return dmin <= 0 ? 0 : RTE_MIN((uint64_t)SEND_AHEAD_NS, (uint64_t)dmin);
}

/*
 * Size and allocate a direction's ring and wheel: the ring holds the
 * bandwidth-delay product of the out port's speed (64 B frames at line rate
 * for the greatest delay, 80 B each), shared by the port's queue pairs with
 * a quarter to spare for RSS's imbalance, or what buffer= says; netem's
 * limit, where the SPEC gives none, is what that ring holds.
 */
static int
dir_setup(struct dir *d, const struct lr_task *t, const struct lr_delay_conf *c,
	  unsigned int nq, const char *what, const char *spec)
{
	const struct lr_port_info *out = lr_port_info(d->out_port);
	const struct lr_port_info *in = lr_port_info(d->in_port);
	struct store *s = &d->store;
	double bps = (out->link_speed_mbps ? out->link_speed_mbps : 10000) * 1e6;
	double pps = bps / 8 / (LR_FRAME_MIN_BYTES + 20);
	int64_t dmin, dmax;
	uint64_t span, buckets, frames, bytes, rec_max;
	double secs;
	uint32_t frame_max = in->mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN;

	lr_netem_delay_bounds(&d->nc, &dmin, &dmax);
	/* A delay below 0 is due at the arrival (enqueue()). */
	if (dmax < 0)
		dmax = 0;
	if (dmin < 0)
		dmin = 0;
	if (dmin > dmax)
		dmin = dmax;
	d->ahead_ns = lr_delay_ahead_ns(&d->nc);
	d->stream = dmin >= STREAM_MIN_NS;
	s->fifo_mode = d->nc.jitter_ns == 0 || d->nc.no_reorder ||
		       d->nc.rate_Bps != 0;
	/* A box whose SPEC may change sizes for the greatest delay a change
	 * may ask, and for any least one (0): after a step down, the frames
	 * that came before are due later than those after (the kernel's
	 * tfifo sorts them; so does the wheel, not FIFO mode). */
	if (c->delay_max_ns != 0) {
		dmax = RTE_MAX(dmax, (int64_t)c->delay_max_ns);
		dmin = 0;
		s->fifo_mode = false;
	}
	/* The wheel spans the jitter (how much earlier than the frame
	 * before it a frame can be due) and WHEEL_AHEAD_NS more: frames
	 * enter it that long before they are due. Late enough that a record
	 * read when it enters (its due time, for its bucket) is still in the
	 * cache when it leaves: with 2 ms ahead, 2.3 MB of records at 10 GbE,
	 * the read of a bucket's first record was 41 % of dequeue's cycles
	 * (perf, 64 B, 184 ms 8 us normal), 10 % with 64 us. After a stall
	 * of the lcore the base walks the buckets it missed one by one and
	 * the records enter in order as it goes; the late heap takes only
	 * what is due before the base when it jumps over an empty wheel. */
	span = (uint64_t)(dmax - dmin) + WHEEL_AHEAD_NS;
	if (s->fifo_mode)
		span = 0;	/* the wheel is not used */
	buckets = store_shape(s, span);
	s->wheel = rte_malloc_socket("lr_delay_wheel", buckets * sizeof(*s->wheel),
				     RTE_CACHE_LINE_SIZE, t->socket);
	if (s->wheel == NULL)
		return lr_err(ENOMEM, "delay %s: no memory for a wheel of %" PRIu64
			      " buckets", what, buckets);

	/* The ring: the BDP with 1 ms of bursts on top. A record takes at
	 * most 1.08 times the frame's bytes on the wire (65 B frames: 96 B
	 * of record for 89 B with preamble and gap), 64 B frames 0.95. */
	secs = (double)dmax / 1e9 + 1e-3;
	frames = (uint64_t)(pps * secs);
	bytes = (uint64_t)(bps / 8 * secs * 1.08);
	if (nq > 1) {
		frames = frames * 5 / 4 / nq;
		bytes = bytes * 5 / 4 / nq;
	}
	rec_max = REC_HDR + RTE_ALIGN_CEIL((uint64_t)frame_max, 16);
	d->limit = d->nc.limit_given ? d->nc.limit : (uint32_t)RTE_MIN(frames + 4096,
								  (uint64_t)UINT32_MAX);
	if (d->nc.limit_given)
		limit_warning(d, what, spec, pps, bps, nq, dmax);
	if (d->nc.rate_Bps != 0)
		/* A rate slower than the frames come queues them up to the
		 * limit, whatever the delay: room for the limit's frames. */
		bytes = (uint64_t)d->limit * rec_max;
	else if (d->nc.limit_given)
		bytes = RTE_MIN((uint64_t)d->limit * rec_max,
				RTE_MAX(bytes, (uint64_t)d->limit * (REC_HDR + 64)));
	d->bdp_bytes = bytes;
	if (c->buffer != 0)
		bytes = c->buffer;
	bytes = RTE_MAX(bytes, (uint64_t)STORE_MIN);
	bytes = RTE_ALIGN_CEIL(bytes, 64);
	if (bytes >> 4 >= NIL)
		return lr_err(EINVAL, "delay %s: %" PRIu64 " MB of storage: at most "
			      "64 GB a direction", what, bytes >> 20);
	s->size = bytes;
	s->mem = rte_malloc_socket("lr_delay_ring", bytes, RTE_CACHE_LINE_SIZE,
				   t->socket);
	if (s->mem == NULL)
		return lr_err(ENOMEM, "delay %s: no %" PRIu64 " MB for its frames "
			      "(%.1f ms at %.0f Gb/s, 64 B frames, over %u queue "
			      "pairs): reserve hugepages (tools/setup.sh), or give "
			      "--buffer BYTES or 'limit N' in the SPEC",
			      what, bytes >> 20, (double)dmax / 1e6, bps / 1e9, nq);
	/* A heap for every record the ring holds, up to 4 M (64 MB); past
	 * that a late record walks its bucket's list instead. */
	s->max_late = (uint32_t)RTE_MIN(RTE_MIN((uint64_t)d->limit, bytes / 32),
					1ull << 22);
	s->late = rte_malloc_socket("lr_delay_late_heap",
				    sizeof(*s->late) * RTE_MAX(s->max_late, 1u),
				    RTE_CACHE_LINE_SIZE, t->socket);
	if (s->late == NULL)
		return lr_err(ENOMEM, "delay %s: no memory for %u late records",
			      what, s->max_late);
	store_init(s, NS_BASE);

	d->lateness = rte_zmalloc_socket("lr_delay_late", sizeof(*d->lateness),
					 RTE_CACHE_LINE_SIZE, t->socket);
	if (d->lateness == NULL)
		return lr_err(ENOMEM, "delay %s: no memory", what);
	lr_hist_init(d->lateness);

	/* A finished delay box's pool of this shape once its mbufs are back,
	 * or a new one (lr_pool.h). */
	d->pool = lr_pool_get("lr_dl", POOL_MBUFS, 256,
			      (uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
						RTE_PKTMBUF_HEADROOM + frame_max),
			      t->socket);
	if (d->pool == NULL)
		return lr_err(ENOMEM, "delay %s: no memory for %u tx mbufs", what,
			      POOL_MBUFS);
	return 0;
}

/*
 * netem's queue on the model's clock (dir.model) where departures follow
 * the due times alone: a FIFO SPEC without slots (whose budget is drawn at
 * the dequeue), and a limit it can hold runs for.
 */
static int
model_setup(struct dir *d, const struct lr_task *t, const char *what)
{
	uint64_t runs = pow2_at_least((uint64_t)d->limit + 2);

	d->model = d->store.fifo_mode && !d->nc.slot && d->limit <= MQ_LIMIT_MAX;
	if (!d->model)
		return 0;
	d->mq = rte_malloc_socket("lr_delay_mq", runs * sizeof(*d->mq),
				  RTE_CACHE_LINE_SIZE, t->socket);
	if (d->mq == NULL)
		return lr_err(ENOMEM, "delay %s: no memory for a queue of %u "
			      "frames", what, d->limit);
	d->mq_mask = (uint32_t)(runs - 1);
	return 0;
}

static int
dir_init(struct dir *d, const struct lr_task *t, const struct lr_delay_conf *c,
	 const char *spec, uint16_t in, uint16_t out, unsigned int nq,
	 bool needed)
{
	const struct lr_port_info *pi = lr_port_info(in), *po = lr_port_info(out);
	char what[2 * RTE_ETH_NAME_MAX_LEN + 8], err[256];

	snprintf(what, sizeof(what), "%s -> %s", pi->name, po->name);
	d->task = t;
	if (lr_changes_init(&d->changes, &lr_delay_changes, d, t,
			    &((const struct delay *)t->priv)->last_poll_tsc) != 0)
		return -ENOMEM;
	if (lr_netem_parse(spec, &d->nc, err, sizeof(err)) != 0)
		return lr_err(EINVAL, "delay %s: %s", what, err);
	d->in_port = in;
	d->out_port = out;
	d->in_queue = d->out_queue = t->queue;
	d->late_ns = c->late_ns;
	d->late_share = c->late_share;
	if (t->queue >= pi->nb_rxq || t->queue >= po->nb_txq) {
		if (needed)
			return lr_err(EINVAL, "delay %s: queue pair %u needs rx "
				      "queue %u of %s and tx queue %u of %s",
				      what, t->queue, t->queue, pi->name,
				      t->queue, po->name);
		return 0;	/* a port that only receives (pcap tx) */
	}
	d->active = true;
	/* A box that may change (--delay-max) keeps a ring each way. */
	d->pass = lr_netem_conf_is_none(&d->nc) && c->delay_max_ns == 0;
	if (d->pass)
		return 0;
	if (dir_setup(d, t, c, nq, what, spec) != 0)
		return -ENOMEM;
	/* netem's decisions take the limit the ring was sized for. */
	d->nc.limit = d->limit;
	lr_netem_init(&d->q, &d->nc);
	/* When frames arrived: the in port's stamps where it has them. */
	d->stamp_off = lr_port_arrival_stamps(in);
	if (d->stamp_off < 0)
		d->stamp_off = -1;
	d->wire_ps_per_byte = 8000000ull / (pi->link_speed_mbps ? pi->link_speed_mbps : 10000);
	return model_setup(d, t, what);
}

static int
delay_init(struct lr_task *t, const void *conf)
{
	const struct lr_delay_conf *c = conf;
	const struct lr_port_info *a = lr_port_info(t->port), *b;
	struct delay *dl;
	uint16_t peer;
	unsigned int nq;
	int ret;

	if (delay_conf_check(c) != 0 ||
	    lr_port_peer("delay", c->peer, LR_PORT_NONE, &peer) != 0)
		return -EINVAL;
	if (peer == t->port)
		return lr_err(EINVAL, "delay: --peer is --port (%s): give the "
			      "other port", a->name);
	if (t->queue == LR_QUEUE_NONE)
		return lr_err(EINVAL, "delay: a task needs a queue pair");
	b = lr_port_info(peer);
	nq = RTE_MIN(a->nb_rxq, b->nb_rxq == 0 ? a->nb_rxq : b->nb_rxq);
	dl = rte_zmalloc_socket("lr_delay", sizeof(*dl), RTE_CACHE_LINE_SIZE,
				t->socket);
	if (dl == NULL)
		return lr_err(ENOMEM, "delay: no memory for a task");
	t->priv = dl;
	dl->tsc0 = rte_rdtsc();
	dl->stall_min_cycles = rte_get_tsc_hz() / 1000000 * STALL_US;
	dl->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
	dl->delay_max_ns = c->delay_max_ns;
	ret = dir_init(&dl->d[0], t, c, c->netem, t->port, peer, RTE_MAX(nq, 1u),
		       true);
	if (ret == 0)
		ret = dir_init(&dl->d[1], t, c, c->netem_back, peer, t->port,
			       RTE_MAX(nq, 1u), c->netem_back[0] != '\0');
	if (ret != 0) {
		delay_free(t);
		return ret;
	}
	return 0;
}

/* Frames still held when the task stops are not sent: counted. */
static void
delay_finish(struct lr_task *t)
{
	struct delay *dl = t->priv;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct dir *d = &dl->d[i];
		uint16_t wait = d->nb_pend - d->pend_off;

		d->c.held_at_stop = d->c.held + wait;
		d->c.held = 0;
		if (wait != 0)
			rte_pktmbuf_free_bulk(d->pend + d->pend_off, wait);
		d->nb_pend = d->pend_off = 0;
		/* Copied out, not due yet: in held, freed here. */
		if (d->nb_ready != 0)
			rte_pktmbuf_free_bulk(d->ready, d->nb_ready);
		d->nb_ready = 0;
		/* Done: what only the fast path used goes now, not at the
		 * process's end (a scenario makes a box a trial); the
		 * counters and the lateness stay for the reports. */
		if (d->nb_spare != 0)
			rte_pktmbuf_free_bulk(d->spare, d->nb_spare);
		d->nb_spare = 0;
		lr_pool_put(d->pool);
		d->pool = NULL;
		rte_free(d->store.mem);
		rte_free(d->store.wheel);
		rte_free(d->store.late);
		rte_free(d->mq);
		d->store.mem = NULL;
		d->store.wheel = NULL;
		d->store.late = NULL;
		d->mq = NULL;
	}
}

/*
 * task:set{netem=SPEC} (A -> B) or {netem_back=SPEC}: a new SPEC for a
 * running direction, as `tc qdisc change` gives one to sch_netem. Parsed
 * and its netem state started here; the worker takes it at its next poll
 * (take_change()). Frames held keep their due times; frames that come
 * after are decided by the new SPEC. Control path.
 */
static int
delay_set(struct lr_task *t, const char *key, const char *val)
{
	struct delay *dl = t->priv;
	struct change *ch;
	struct dir *d;
	int ret;
	int64_t dmin, dmax;
	char err[256], ms[32];

	if (strcmp(key, "netem") == 0)
		d = &dl->d[0];
	else if (strcmp(key, "netem_back") == 0 || strcmp(key, "netem-back") == 0)
		d = &dl->d[1];
	else
		return lr_err(EINVAL, "delay: set: '%s' cannot change live "
			      "(netem and netem_back can)", key);
	if (dl->delay_max_ns == 0)
		return lr_err(EINVAL, "delay: set %s: start the box with "
			      "delay_max= (--delay-max TIME), the greatest delay "
			      "a change may ask: its storage is sized for it", key);
	if (!d->active)
		return lr_err(EINVAL, "delay: set %s: the direction has no "
			      "queue pair (its port does not receive)", key);
	ch = rte_zmalloc_socket("lr_delay_change", sizeof(*ch),
				RTE_CACHE_LINE_SIZE, t->socket);
	if (ch == NULL)
		return lr_err(ENOMEM, "delay: set %s: no memory", key);
	if (lr_netem_parse(val, &ch->nc, err, sizeof(err)) != 0) {
		rte_free(ch);
		return lr_err(EINVAL, "delay: set %s: %s", key, err);
	}
	lr_netem_delay_bounds(&ch->nc, &dmin, &dmax);
	if (dmax > (int64_t)dl->delay_max_ns) {
		snprintf(ms, sizeof(ms), "%.6g ms", (double)dl->delay_max_ns / 1e6);
		lr_netem_conf_free(&ch->nc);
		rte_free(ch);
		return lr_err(EINVAL, "delay: set %s '%s': delays up to %.6g ms, "
			      "past the box's delay_max of %s", key, val,
			      (double)dmax / 1e6, ms);
	}
	/* netem's limit: the SPEC's, else what the ring was sized for. */
	if (!ch->nc.limit_given)
		ch->nc.limit = d->limit;
	lr_netem_init(&ch->q, &ch->nc);
	ch->ahead_ns = lr_delay_ahead_ns(&ch->nc);
	/* A change not taken yet is replaced: the worker takes the newest
	 * (the older one's record says it never ran). */
	ret = lr_changes_publish(&d->changes, &ch->ch);
	if (ret != 0) {
		lr_netem_conf_free(&ch->nc);
		rte_free(ch);
	}
	return ret;
}

/*
 * --role delay --port A --peer B: B is set up as A was (if it is not yet),
 * and a task serves each queue pair, both directions, lcores in turn.
 */
static int
delay_place(uint16_t port, const void *conf, const void *with_conf,
	   const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_delay_conf *c = conf;
	const struct lr_port_info *a = lr_port_info(port), *b;
	struct lr_delay_conf qc = *c;
	uint16_t peer;
	unsigned int q, nq;

	RTE_SET_USED(with_conf);
	if (delay_conf_check(c) != 0)
		return -EINVAL;
	if (lr_port_peer("delay", c->peer, port, &peer) != 0)
		return -EINVAL;
	b = lr_port_info(peer);
	snprintf(qc.peer, sizeof(qc.peer), "%u", peer);
	nq = a->nb_rxq;
	if (b->nb_rxq != 0)
		nq = RTE_MIN(nq, b->nb_rxq);
	for (q = 0; q < nq; q++)
		if (lr_task_create(&lr_delay_role, lcores[q % n], port,
				   (uint16_t)q, duration_s, &qc) == NULL)
			return -EINVAL;
	return (int)nq;
}

static const struct lr_task_kind delay_task = {
	.uses_rx = true,
	.init = delay_init,
	.poll = lr_delay_poll,
	.finish = delay_finish,
	.report = lr_delay_report,
	.free = delay_free,
	.verdict = lr_delay_verdict,
	.set = delay_set,
	.counters = &lr_delay_counters,
};

static const struct lr_plan delay_plan = {
	.place = delay_place,
};

static const struct lr_report delay_report_ops = {
	.results = lr_delay_results,
	.live = lr_delay_live,
	.check = lr_delay_check,
};

const struct lr_role lr_delay_role = {
	.name = "delay",
	.opts = delay_opts,
	.conf_bytes = sizeof(struct lr_delay_conf),
	.conf_init = delay_conf_init,
	.conf_check = delay_conf_check,
	.task = &delay_task,
	.plan = &delay_plan,
	.report = &delay_report_ops,
};
