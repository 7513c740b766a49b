/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflect role's fast path (lr_reflect.h): a burst in, each frame
 * classified, swapped and stamped, sent back at once or held in the timing
 * wheel of --add-delay until due; its burst loop last. Options and setup
 * are in reflect_setup.c, what it says in reflect_report.c.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "lr_mbuf.h"
#include "reflect_internal.h"

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
			lr_mbuf_free_bulk(m + sent, n - sent);
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

/* ---- a burst's steps, in the order the poll takes them ---- */

/* A burst of at most what --count leaves: the rest of the burst that
 * reaches it is freed unread, counted apart (as rx does). */
static inline uint16_t
rx_burst(struct lr_task *t, struct reflect *r, struct rte_mbuf **pkts)
{
	uint16_t n = rte_eth_rx_burst(t->port, t->queue, pkts, LR_BURST);

	if (unlikely(n > r->remaining)) {
		r->c.past_count += n - r->remaining;
		lr_mbuf_free_bulk(pkts + r->remaining,
				      n - (unsigned int)r->remaining);
		n = (uint16_t)r->remaining;
	}
	return n;
}

/*
 * A frame from a pool other than the port's, copied into the port's pool
 * (false: no mbuf, counted). The virtual wire hands over the sender's mbuf
 * itself, and gen's mbufs keep their frame for the next send (its
 * template): changed in place, gen would send our swap and flag next. A
 * NIC, memif and pcap fill the port's own mbufs: the poll calls this only
 * for a frame of another pool.
 */
static inline bool
copy_to_pool(struct lr_task *t, struct reflect *r, struct rte_mbuf **m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(*m, r->pool, 0, UINT32_MAX);

	rte_pktmbuf_free(*m);
	if (c == NULL) {
		r->c.no_mbuf++;
		t->st.drops++;
		return false;
	}
	r->c.copied++;
	*m = c;
	return true;
}

/*
 * What a frame is to this task: lr_reflect_parse()'s answer, but for a
 * frame that carries no mark of ours whose source is the tx port's own
 * address: one we sent (it was addressed to us, and the swap made that its
 * source) coming back, looped. A frame addressed to another MAC
 * (promiscuous) is not caught so: --others drop, the default, is the safe
 * choice on a loop.
 */
static inline enum lr_reflect_kind
classify(const struct reflect *r, const uint8_t *d, uint32_t len,
	 struct lr_reflect_frame *f)
{
	enum lr_reflect_kind kind = lr_reflect_parse(d, len, f);
	const struct rte_ether_addr *src =
		(const struct rte_ether_addr *)(d + RTE_ETHER_ADDR_LEN);

	if (kind == LR_REFLECT_OTHER && r->others &&
	    unlikely(rte_is_same_ether_addr(src, &r->mac)) &&
	    !rte_is_zero_ether_addr(&r->mac))
		return LR_REFLECT_LOOPED;
	return kind;
}

/* A linerate frame swapped and marked reflected, with the receive stamp
 * (--stamp 1): true when it got it (there was room), and its transmit
 * stamp is due too. */
static inline bool
swap_mark(const struct reflect *r, uint8_t *d, const struct lr_reflect_frame *f,
	  uint64_t now)
{
	lr_reflect_swap(d, f);
	return lr_reflect_mark(d, f, r->stamp, now);
}

/* The burst's counts, kept in registers over it, stored once. */
static inline void
count_burst(struct lr_task *t, struct reflect *r, uint16_t n, uint64_t bytes,
	    uint32_t own, uint32_t stamped, uint32_t looped, uint32_t others,
	    uint32_t runts)
{
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
}

/* Without --add-delay: the transmit stamps written, the burst sent. */
static inline void
send_now(struct lr_task *t, struct reflect *r, struct rte_mbuf **out,
	 const uint16_t *l4, const bool *v4, uint16_t k, uint64_t obytes)
{
	uint16_t i;

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
}

/* With --add-delay: each frame into the wheel, what is due sent. */
static inline void
send_later(struct lr_task *t, struct reflect *r, struct rte_mbuf **out,
	   const uint16_t *l4, const bool *v4, uint16_t k, uint64_t now)
{
	uint16_t i;

	/* The cursor catches up first (a stall of the lcore leaves it
	 * behind by the stall; an empty wheel's may be the task's start),
	 * so that every frame due within the wheel's span finds its slot. */
	release(t, r, now);
	for (i = 0; i < k; i++)
		hold(t, r, out[i], l4[i], v4[i], due_tsc(r, out[i], now));
	release(t, r, rte_rdtsc());
}

/* ---- the burst loop ---- */

int
lr_reflect_poll(struct lr_task *t, uint64_t now)
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
	n = rx_burst(t, r, pkts);
	if (n == 0) {
		if (r->delay && r->c.held != 0) {
			release(t, r, rte_rdtsc());
			return 0;
		}
		return lr_task_capture_end(t);
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
		if (unlikely(m->pool != r->pool) && !copy_to_pool(t, r, &m))
			continue;
		d = rte_pktmbuf_mtod(m, uint8_t *);
		switch (classify(r, d, m->data_len, &f)) {
		case LR_REFLECT_OWN:
			own++;
			l4[k] = 0;
			v4[k] = f.ipv4;
			if (swap_mark(r, d, &f, now)) {
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
			/* Not linerate's: sent back swapped as far as it
			 * parses with --others reflect, else dropped. */
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
	count_burst(t, r, n, bytes, own, stamped, looped, others, runts);
	if (nd != 0) {
		t->st.drops += nd;
		lr_mbuf_free_bulk(drop, nd);
	}
	if (!r->delay)
		send_now(t, r, out, l4, v4, k, obytes);
	else
		send_later(t, r, out, l4, v4, k, now);
	if (r->remaining <= n) {
		r->remaining = 0;
		return r->c.held == 0;
	}
	r->remaining -= n;
	return 0;
}
