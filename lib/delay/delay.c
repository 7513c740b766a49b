/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The delay role (lr_delay.h): two directions per task, each a netem qdisc
 * (lib/netem decides) in front of a byte ring and a timing wheel: the
 * storage and the order frames leave in are delay_store.h's.
 *
 * Timing. A frame is copied out of the ring into a new mbuf of the
 * direction's own pool up to SEND_AHEAD_NS before it is due; a poll that
 * finds one due that soon waits for its due time and sends it then, with
 * the others due by then; and every SEND_EVERY frames of an rx burst what
 * is ready and due goes out. Without it a frame left at the first poll
 * after its due time: half a poll late in the median (150-500 ns here).
 *
 * Fast path per poll: each direction takes a new SPEC if one was published
 * (task:set{netem=}, take_change()), sends what it could not before, takes
 * one rx burst (netem's enqueue decisions, bytes into the ring); then what
 * is due is sent, waiting for due times up to SEND_AHEAD_NS.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>
#ifdef RTE_ARCH_X86
#include <emmintrin.h>
#endif

#include "delay_internal.h"
#include "lr_mbuf.h"
#include "lr_wire.h"

/* The box's clock: ns from NS_BASE on. */
static inline uint64_t
now_ns(const struct delay *dl, uint64_t tsc)
{
	return NS_BASE + (uint64_t)((double)(tsc - dl->tsc0) * dl->ns_per_tsc);
}

/* ---- a change of SPEC (task:set{netem=}) ---- */

/*
 * Take the change published for @p d: frames from this poll's rx burst on
 * are decided by its SPEC, those held keep their due times (sch_netem's
 * netem_change() leaves its queue alone); rate's and no-reorder's
 * references are the queue's, kept. A SPEC that copies out less far ahead
 * waits until no ready frame is due later than a frame that comes now may
 * be (at most SEND_AHEAD_NS).
 */
static void __rte_noinline
take_change(struct dir *d, const struct delay *dl)
{
	struct change *ch = (struct change *)lr_change_peek(&d->changes);
	uint64_t last_tts = d->q.last_tts, max_tts = d->q.max_tts;
	uint64_t until = now_ns(dl, rte_rdtsc()) + ch->ahead_ns;
	bool last_valid = d->q.last_valid;
	uint16_t i;

	/* Copy out no further ahead than the new SPEC allows, and wait while
	 * a ready frame is due past what a frame that comes now may be. */
	if (ch->ahead_ns < d->ahead_ns)
		d->ahead_ns = ch->ahead_ns;
	for (i = 0; i < d->nb_ready; i++)
		if (d->ready_tts[i] > until)
			return;
	d->q = ch->q;
	/* The model's queue holds runs for the limit it started with. */
	if (d->model && (ch->nc.slot || ch->nc.limit + 2ull > d->mq_mask + 1ull))
		d->model = false;
	d->q.last_tts = last_tts;
	d->q.last_valid = last_valid;
	d->q.max_tts = max_tts;
	d->ahead_ns = ch->ahead_ns;
	ch->in_before = d->c.in;
	ch->held_before = d->c.held;
	lr_change_taken(&d->changes, &ch->ch, rte_rdtsc());
}

/* ---- the fast path: a burst each way ---- */

/* The bytes of what the port took: a frame it did not take yet may be
 * freed at the stop, never sent. */
static inline void
count_tx(struct rte_mbuf **m, uint16_t n, struct lr_task_stats *st)
{
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < n; i++)
		bytes += m[i]->pkt_len;
	st->tx_pkts += n;
	st->tx_bytes += bytes;
}

/* Send what the queue did not take before. @return true when all went. */
static inline bool
flush_pend(struct dir *d, struct lr_task_stats *st)
{
	uint16_t n;

	if (d->nb_pend == d->pend_off)
		return true;
	n = rte_eth_tx_burst(d->out_port, d->out_queue, d->pend + d->pend_off,
			     d->nb_pend - d->pend_off);
	count_tx(d->pend + d->pend_off, n, st);
	d->pend_off += n;
	d->c.out += n;
	if (d->pend_off < d->nb_pend)
		return false;
	d->nb_pend = d->pend_off = 0;
	return true;
}

static inline void
tx(struct dir *d, struct rte_mbuf **m, uint16_t k, struct lr_task_stats *st)
{
	uint16_t n = rte_eth_tx_burst(d->out_port, d->out_queue, m, k);

	d->c.out += n;
	count_tx(m, n, st);
	if (n < k) {
		d->c.tx_full++;
		st->tx_retry++;
		memcpy(d->pend, m + n, sizeof(*m) * (k - n));
		d->nb_pend = k - n;
		d->pend_off = 0;
	}
}

/* A direction with no impairment: a wire. */
static inline void
pass(struct dir *d, struct lr_task_stats *st)
{
	struct rte_mbuf *m[LR_BURST];
	uint16_t n, i;

	if (!flush_pend(d, st))
		return;
	n = rte_eth_rx_burst(d->in_port, d->in_queue, m, LR_BURST);
	if (n == 0)
		return;
	d->c.in += n;
	st->rx_pkts += n;
	for (i = 0; i < n; i++)
		st->rx_bytes += m[i]->pkt_len;
	tx(d, m, n, st);
}

/*
 * Send the ready frames due by @p now, the handover to the tx queue. A
 * frame's lateness is @p now less its due time. Frames that came in one rx
 * burst carry the burst's arrival time (no NIC stamps here), so they are
 * due together and leave together: the wire spaces them on the way out as
 * it did on the way in.
 */
static inline void
send_ready(struct dir *d, uint64_t now, struct lr_task_stats *st)
{
	unsigned int n;

	if (d->nb_ready == 0 || !flush_pend(d, st))
		return;
	/* Counted by runs of one due time (a burst's frames under a constant
	 * delay): a histogram add a frame was 28 instructions of ~660. */
	for (n = 0; n < d->nb_ready && d->ready_tts[n] <= now; ) {
		uint64_t tts = d->ready_tts[n], late = now - tts;
		unsigned int run = 1;

		while (n + run < d->nb_ready && d->ready_tts[n + run] == tts)
			run++;
		lr_hist_add_n(d->lateness, late, run);
		if (late > d->late_ns)
			d->c.late += run;
		n += run;
	}
	if (n == 0)
		return;
	d->c.held -= n;
	/* The model's queue goes empty on its own clock (qlen_at()). */
	if (d->c.held == 0 && !d->model)
		lr_netem_queue_empty(&d->q);
	tx(d, d->ready, (uint16_t)n, st);
	d->nb_ready -= n;
	if (d->nb_ready != 0) {
		memmove(d->ready, d->ready + n, d->nb_ready * sizeof(d->ready[0]));
		memmove(d->ready_tts, d->ready_tts + n,
			d->nb_ready * sizeof(d->ready_tts[0]));
	}
}

/* What is ready and due now, both directions: between the frames of an
 * rx burst too, so that a frame falls due while the lcore takes a burst
 * in and still leaves within a few frames' work of its time. */
static inline void
send_due(struct delay *dl, struct lr_task_stats *st)
{
	uint64_t now = now_ns(dl, rte_rdtsc());
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (dl->d[i].nb_ready != 0)
			send_ready(&dl->d[i], now, st);
}

/* ---- netem's queue on the model's clock (dir.model) ---- */

/* The frames netem holds at @p t: those admitted and due after it (the
 * runs due by then have left). */
static inline uint32_t
model_qlen(struct dir *d, uint64_t t)
{
	while (d->mq_n != 0 && d->mq[d->mq_head].tts <= t) {
		d->mq_frames -= d->mq[d->mq_head].n;
		d->mq_head = (d->mq_head + 1) & d->mq_mask;
		d->mq_n--;
	}
	return (uint32_t)d->mq_frames;
}

/* @p n frames admitted, due at @p tts (never before the last: FIFO). */
static inline void
model_add(struct dir *d, uint64_t tts, uint32_t n)
{
	uint32_t last = (d->mq_head + d->mq_n - 1) & d->mq_mask;

	if (d->mq_n != 0 && d->mq[last].tts >= tts) {
		d->mq[last].n += n;	/* the same due time */
	} else {
		/* Never full: admitted frames are fewer than limit + 2. */
		last = (d->mq_head + d->mq_n) & d->mq_mask;
		d->mq[last].tts = tts;
		d->mq[last].n = n;
		d->mq_n++;
	}
	d->mq_frames += n;
}

/* netem's qlen for a frame arriving at @p t: the model's, else what the
 * box holds (frames due that it has not sent yet count too). */
static inline uint32_t
qlen_at(struct dir *d, uint64_t t)
{
	return d->model ? model_qlen(d, t) : (uint32_t)d->c.held;
}

/*
 * Frames arriving at @p at[i] under a constant delay, below netem's limit
 * (@p qlen held at the first): each is due its delay after its arrival
 * (lr_netem_fixed_tts()); the ring's work alone.
 */
static inline void
enqueue_fixed(struct dir *d, struct delay *dl, struct lr_task_stats *st,
	      struct rte_mbuf **m, uint16_t n, const uint64_t *at, uint32_t qlen)
{
	uint64_t tts = lr_netem_fixed_tts(&d->q, at[0], qlen), t = at[0];
	uint64_t due = tts < t ? t : tts;	/* as enqueue_any() */
	uint32_t kept = 0;	/* frames held at due, for the model */
	uint16_t i;

	for (i = 0; i < n; i++) {
		uint32_t len = m[i]->pkt_len;
		struct rec *r;

		if ((i & (SEND_EVERY - 1)) == SEND_EVERY - 1)
			send_due(dl, st);
		if (at[i] != t) {
			if (d->model && kept != 0)
				model_add(d, due, kept);
			kept = 0;
			t = at[i];
			tts = lr_netem_fixed_tts(&d->q, t, 1);
			due = tts < t ? t : tts;
		}
		st->rx_bytes += len;
		r = rec_new(&d->store, len, &d->c.mem_high);
		if (unlikely(r == NULL)) {
			d->c.no_room++;
			continue;
		}
		rec_write(r, due, len, 0, m[i], d->stream);
		d->c.held++;
		kept++;
	}
	if (d->model && kept != 0)
		model_add(d, due, kept);
	lr_netem_fixed_queued(&d->q, tts, n);
}

/* Frames arriving at @p at[i] under any SPEC: netem's decisions frame by
 * frame. */
static inline void
enqueue_any(struct dir *d, struct delay *dl, struct lr_task_stats *st,
	    struct rte_mbuf **m, uint16_t n, const uint64_t *at)
{
	struct lr_netem_copy cp[2];
	unsigned int k, j;
	uint16_t i;

	for (i = 0; i < n; i++) {
		uint32_t len = m[i]->pkt_len;
		uint64_t now = at[i];

		if ((i & (SEND_EVERY - 1)) == SEND_EVERY - 1)
			send_due(dl, st);
		st->rx_bytes += len;
		k = lr_netem_enqueue(&d->q, len, now, qlen_at(d, now), cp);
		d->c.duplicated += k - 1;
		for (j = 0; j < k; j++) {
			struct rec *r;
			uint64_t due;

			if (cp[j].fate == LR_NETEM_LOST) {
				d->c.lost++;
				continue;
			}
			if (cp[j].fate == LR_NETEM_OVER_LIMIT) {
				d->c.over_limit++;
				continue;
			}
			r = rec_new(&d->store, len, &d->c.mem_high);
			if (unlikely(r == NULL)) {
				d->c.no_room++;
				continue;
			}
			/* A delay below 0 (a table or a jitter beyond the
			 * delay) is due at once: sch_netem's tfifo sends a
			 * frame due in the past at the next dequeue, not
			 * late. */
			due = cp[j].tts < now ? now : cp[j].tts;
			rec_write(r, due, len,
				  cp[j].fate == LR_NETEM_HEAD ? F_HEAD : 0, m[i],
				  d->stream);
			if (cp[j].corrupt && len != 0) {
				((uint8_t *)(r + 1))[cp[j].corrupt_byte % len] ^=
					(uint8_t)(1u << (cp[j].corrupt_bit & 7));
				d->c.corrupted++;
			}
			d->c.held++;
			if (cp[j].fate != LR_NETEM_HEAD) {
				if (d->model)
					model_add(d, due, 1);
				continue;
			}
			/* Reordered: it leaves at once, behind no arrival
			 * in the model's queue. */
			d->c.reordered++;
			head_push(&d->store, r);
		}
	}
}

/*
 * When each frame of @p m entered the box's input (@p at): its stamp, no
 * earlier than the box's start, and no earlier than the link lets it
 * after the frame before it (its wire time at the in port's speed: a
 * sender's burst stamped at once arrives spaced as a link spaces it, and
 * what a sender put in faster than the link takes arrives later than it
 * is read).
 */
static inline void
arrivals(struct dir *d, const struct delay *dl, struct rte_mbuf **m,
	 uint16_t n, uint64_t *at)
{
	uint64_t t = d->last_arrival, tsc_prev = 0, ns = 0, ps = d->arrival_ps;
	uint16_t i;

	if (unlikely(d->first_arrival == 0)) {
		uint64_t tsc = *RTE_MBUF_DYNFIELD(m[0], d->stamp_off, uint64_t *);

		t = tsc > dl->tsc0 ? now_ns(dl, tsc) : NS_BASE;
		d->first_arrival = t;	/* when its first frame started */
	}

	for (i = 0; i < n; i++) {
		uint64_t tsc = *RTE_MBUF_DYNFIELD(m[i], d->stamp_off, uint64_t *);
		/* Its bytes' time on the link, ps kept across frames (a
		 * 64 B frame is 67.2 ns at 10 GbE). */
		uint64_t wire;

		ps += (uint64_t)(lr_frame_bytes(m[i]->pkt_len) + LR_L1_EXTRA_BYTES) *
		      d->wire_ps_per_byte;
		wire = ps / 1000;
		ps -= wire * 1000;

		if (tsc != tsc_prev || i == 0) {
			ns = tsc > dl->tsc0 ? now_ns(dl, tsc) : NS_BASE;
			tsc_prev = tsc;
		}
		/* It starts at its stamp or when the frame before it has
		 * arrived, and has arrived its wire time later. The link idle
		 * before it: a gap in what came (a back-to-back burst has
		 * none). */
		if (ns > t) {
			d->c.in_idle_ns += ns - t;
			t = ns;
		}
		t += wire;
		at[i] = t;
	}
	d->last_arrival = t;
	d->arrival_ps = (uint32_t)ps;
	d->c.in_span_ns = t - d->first_arrival;
}

/* @return the frames the rx burst took. */
static inline uint16_t
enqueue(struct dir *d, struct delay *dl, struct lr_task_stats *st)
{
	struct rte_mbuf *m[LR_BURST];
	uint64_t at[LR_BURST];
	uint32_t qlen;
	uint16_t n, i;
	uint64_t now;

	n = rte_eth_rx_burst(d->in_port, d->in_queue, m, LR_BURST);
	if (n == 0)
		return 0;
	/* The burst's arrival: after the PMD's work, which is not delay. */
	now = now_ns(dl, rte_rdtsc());
	d->c.in += n;
	st->rx_pkts += n;
	if (d->stamp_off < 0)
		for (i = 0; i < n; i++)
			at[i] = now;
	else
		arrivals(d, dl, m, n, at);
	/* Later arrivals find no more held than the first: within the
	 * limit for all when within it for the first. */
	qlen = qlen_at(d, at[0]);
	if (d->q.fixed && qlen + n <= d->q.c->limit)
		enqueue_fixed(d, dl, st, m, n, at, qlen);
	else
		enqueue_any(d, dl, st, m, n, at);
#ifdef RTE_ARCH_X86
	_mm_sfence();
#endif
	lr_mbuf_free_bulk(m, n);
	return n;
}

/* Copy what is due by @p until out of the ring into new mbufs, after what
 * is ready already (in the order they leave: due() gives it). */
static inline void
prepare(struct dir *d, uint64_t until, struct lr_task_stats *st)
{
	struct rec *r[LR_BURST];
	unsigned int k, i, room = LR_BURST - d->nb_ready;

	if (room == 0 || d->c.held == d->nb_ready)
		return;
	if (d->nb_spare < LR_BURST) {
		if (rte_pktmbuf_alloc_bulk(d->pool, d->spare + d->nb_spare,
					   LR_BURST - d->nb_spare) != 0) {
			st->alloc_fail++;
			if (d->nb_spare == 0)
				return;
		} else {
			d->nb_spare = LR_BURST;
		}
	}
	k = due(&d->store, &d->q, until, r, RTE_MIN(room, (unsigned int)d->nb_spare));
	if (k == 0)
		return;
	for (i = 0; i < k; i++) {
		struct rte_mbuf *mb = d->spare[--d->nb_spare];

		/* The next record, all its lines: written 184 ms ago around
		 * the caches, and the ring is read in arrival order, not in
		 * the order of the addresses the hardware prefetcher follows
		 * (jitter), nor past a 4 KB page (a 1518 B frame's 25 lines). */
		if (i + 1 < k) {
			const uint8_t *p = (const uint8_t *)r[i + 1];
			uint32_t off, end = REC_HDR + r[i + 1]->len;

			rte_prefetch0(p);
			for (off = 64; off < end; off += 64)
				rte_prefetch0(p + off);
		}
		mb->data_len = r[i]->len;
		mb->pkt_len = r[i]->len;
		rte_memcpy(rte_pktmbuf_mtod(mb, void *), r[i] + 1, r[i]->len);
		/* The order is the tfifo's, or a bug: counted, tests want 0. */
		if (!(r[i]->flags & F_HEAD)) {
			d->c.misordered += r[i]->tts < d->last_tts;
			d->last_tts = r[i]->tts;
		}
		d->ready[d->nb_ready] = mb;
		d->ready_tts[d->nb_ready++] = r[i]->tts;
		rec_sent(&d->store, r[i]);
	}
	tail_move(&d->store);
}

int
lr_delay_poll(struct lr_task *t, uint64_t now_tsc)
{
	struct delay *dl = t->priv;
	uint64_t moved = t->st.rx_pkts + t->st.tx_pkts;
	uint64_t t0 = rte_rdtsc();	/* now_tsc is the lcore's pass, not ours */
	uint64_t waited = 0, now, end;
	bool backlog = false;	/* an rx queue had a full burst or more */
	unsigned int i;

	RTE_SET_USED(now_tsc);
	if (unlikely(t0 - dl->last_poll_tsc > dl->stall_min_cycles) &&
	    dl->last_poll_tsc != 0) {
		dl->stall_cycles += t0 - dl->last_poll_tsc;
		if (t0 - dl->last_poll_tsc > dl->max_gap_cycles)
			dl->max_gap_cycles = t0 - dl->last_poll_tsc;
	}
	dl->last_poll_tsc = t0;
	for (i = 0; i < 2; i++) {
		struct dir *d = &dl->d[i];

		if (!d->active)
			continue;
		if (d->pass) {
			pass(d, &t->st);
			continue;
		}
		if (unlikely(lr_change_peek(&d->changes) != NULL))
			take_change(d, dl);
		if (d->nb_pend == d->pend_off &&
		    enqueue(d, dl, &t->st) == LR_BURST)
			backlog = true;
	}
	/*
	 * Send what is due; copy out what falls due within ahead_ns and wait
	 * for it, while that is within ahead_ns of this poll and no rx queue
	 * had more than a burst: a frame leaves at its due time, not at the
	 * poll after it (the rx queues wait at most that long).
	 */
	now = now_ns(dl, rte_rdtsc());
	end = now + SEND_AHEAD_NS;
	for (;;) {
		uint64_t next = UINT64_MAX;

		for (i = 0; i < 2; i++) {
			struct dir *d = &dl->d[i];

			if (!d->active || d->pass)
				continue;
			send_ready(d, now, &t->st);
			prepare(d, now + d->ahead_ns, &t->st);
			send_ready(d, now, &t->st);
			if (d->nb_ready != 0 && d->nb_pend == d->pend_off &&
			    d->ready_tts[0] < next)
				next = d->ready_tts[0];
		}
		/* No waiting while frames wait in an rx queue: they would
		 * come in late (their arrival is when they are read). */
		if (next > end || backlog)
			break;
		{
			uint64_t w0 = rte_rdtsc();

			while ((now = now_ns(dl, rte_rdtsc())) < next)
				rte_pause();
			waited += rte_rdtsc() - w0;
		}
	}
	/* Cycles of the polls that moved frames: what a frame costs. */
	if (t->st.rx_pkts + t->st.tx_pkts != moved)
		dl->busy_cycles += rte_rdtsc() - t0 - waited;
	/* A capture played through ends the task once it has all left. */
	if (dl->d[0].c.held == 0 &&
	    dl->d[0].nb_pend == dl->d[0].pend_off && dl->d[1].c.held == 0 &&
	    dl->d[1].nb_pend == dl->d[1].pend_off)
		return lr_task_capture_end(t);
	return 0;
}
