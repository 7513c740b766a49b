/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Per-flow sequence accounting: loss, reordering, duplicates and generator
 * restarts from the sequence number and TX timestamp of struct lr_wire_hdr.
 *
 * The heuristics, for a flow whose next expected sequence number is E
 * (differences are taken modulo 2^32, so sequence numbers wrap freely):
 *
 *  - seq == E: in order. E = seq + 1.
 *  - seq > E: a gap. lost += seq - E, seq_too_high++, E = seq + 1.
 *    The first packet of a flow is compared with E = 0: generators start
 *    every flow at 0, so a flow whose first packets were lost shows them.
 *  - seq < E and the packet was sent after every packet seen so far
 *    (tx_tsc > the highest tx_tsc of the flow): the generator restarted.
 *    restarts++, E = seq + 1, lost += seq (its first packets, if lost).
 *    One sender per flow id is assumed: its TSC only moves forward.
 *  - seq < E within the window (the last LR_SEQ_WINDOW sequence numbers
 *    below E): seq_too_low++, then either the window says it was already
 *    received (dup++), or it fills a hole: out_of_order++ and lost-- (a
 *    late arrival that was counted lost is taken back off the loss count).
 *  - seq < E beyond the window, or below the number the flow started or
 *    restarted from (0; wrapped, 0xffffffff and below): seq_too_low++,
 *    late++. It cannot be told from a duplicate, so it is neither taken
 *    off the loss nor counted as a duplicate.
 *  - seq > E but sent before the newest packet seen (tx_tsc < the highest):
 *    a straggler from before a restart. late++, nothing else changes.
 *
 * TRex's names map as: dropped = lost, out_of_order, dup, seq_too_high,
 * seq_too_low. PER = lost / (received - dup + lost).
 *
 * Threading: a struct lr_seq belongs to one lcore; others read it racily
 * (64-bit counters, whole on x86-64) for reports.
 */
#ifndef LR_SEQ_H
#define LR_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#define LR_SEQ_WINDOW 128	/**< reordering the duplicate check sees */

/** One flow, two cache lines: the first is all the in-order path touches. */
/**
 * The counters of the unusual, per flow and summed per task, each named
 * once: the field, its JSON key and CSV column (as VPP's
 * foreach_flowprobe_error), and in rx's task report its metric
 * (lr_counter.h). X(name, metric or NULL, kind, unit, help).
 */
#define LR_SEQ_COUNTERS(X) \
	/* seq < E, not seen yet: lost shrank by one */ \
	X(out_of_order, "rx_reordered_total", COUNTER, "frames", \
	  "Frames that came after a later one of their flow.") \
	/* seq < E, seen already */ \
	X(dup, "rx_duplicates_total", COUNTER, "frames", \
	  "Frames received more than once.") \
	X(seq_too_high, NULL, NONE, "frames", "Frames past the next expected: a gap, lost grew.") \
	X(seq_too_low, NULL, NONE, "frames", "Frames before the next expected, whatever they were.") \
	/* too old to tell reordered from duplicate */ \
	X(late, "rx_late_total", COUNTER, "frames", \
	  "Frames too late to tell from a duplicate (counted lost before).") \
	X(restarts, NULL, NONE, "restarts", "Times the sender started a flow again.")

struct lr_seq {
	uint32_t next;			/**< E, the next expected sequence number */
	uint32_t seen;			/**< 0 until the first packet, then 1 +
					 *   the numbers accounted since the
					 *   flow (re)started, at most W + 1 */
	uint64_t win[LR_SEQ_WINDOW / 64];/**< bit (s % W): s was received */
	uint64_t pkts;			/**< every packet of the flow */
	uint64_t bytes;			/**< frame bytes without FCS */
	int64_t lost;			/**< gaps minus holes filled later */
	uint64_t max_tsc;		/**< highest tx_tsc seen */
	uint64_t last_tsc;		/**< receive TSC of the last packet */
	/* second line: the counters of the unusual */
	uint64_t first_tsc;		/**< receive TSC of the first packet */
#define LR_SEQ_FIELD(name, ...) uint64_t name;
	LR_SEQ_COUNTERS(LR_SEQ_FIELD)
#undef LR_SEQ_FIELD
	uint64_t pad;
} __rte_cache_aligned;

/** What one packet did to a flow, for totals kept beside the flows. */
enum lr_seq_event {
	LR_SEQ_IN_ORDER,
	LR_SEQ_GAP,		/**< seq_too_high: lost grew */
	LR_SEQ_REORDERED,	/**< out_of_order: lost shrank by one */
	LR_SEQ_DUP,		/**< seq_too_low, dup */
	LR_SEQ_LATE,		/**< seq_too_low, late: below the window */
	LR_SEQ_STRAGGLER,	/**< late only: ahead, sent before a restart */
	LR_SEQ_RESTART,
};

static inline void
lr_seq_mark(struct lr_seq *s, uint32_t seq)
{
	s->win[(seq / 64) % (LR_SEQ_WINDOW / 64)] |= 1ull << (seq % 64);
}

static inline bool
lr_seq_marked(const struct lr_seq *s, uint32_t seq)
{
	return (s->win[(seq / 64) % (LR_SEQ_WINDOW / 64)] >> (seq % 64)) & 1;
}

/* Forget the window slots of [from, to): they now stand for new numbers. */
static inline void
lr_seq_clear(struct lr_seq *s, uint32_t from, uint32_t to)
{
	uint32_t n = to - from, i;

	if (n >= LR_SEQ_WINDOW) {
		for (i = 0; i < LR_SEQ_WINDOW / 64; i++)
			s->win[i] = 0;
		return;
	}
	for (i = 0; i < n; i++, from++)
		s->win[(from / 64) % (LR_SEQ_WINDOW / 64)] &= ~(1ull << (from % 64));
}

/**
 * Account one packet of @p bytes with sequence @p seq, sent at @p tx_tsc
 * and received at @p rx_tsc. @p gap receives the packets a gap added to
 * the loss (LR_SEQ_GAP, LR_SEQ_RESTART), 0 otherwise.
 */
static inline enum lr_seq_event
lr_seq_update(struct lr_seq *s, uint32_t seq, uint64_t tx_tsc, uint64_t rx_tsc,
	      uint32_t bytes, uint32_t *gap)
{
	int32_t d = (int32_t)(seq - s->next);

	s->pkts++;
	s->bytes += bytes;
	s->last_tsc = rx_tsc;
	*gap = 0;
	if (unlikely(!s->seen)) {
		s->seen = 1;
		s->first_tsc = rx_tsc;
	}
	if (likely(d == 0)) {
		s->next = seq + 1;
		if (unlikely(s->seen <= LR_SEQ_WINDOW))
			s->seen++;
		/* The slot held seq - W, which is now out of the window. */
		lr_seq_mark(s, seq);
		if (tx_tsc > s->max_tsc)
			s->max_tsc = tx_tsc;
		return LR_SEQ_IN_ORDER;
	}
	if (d > 0) {
		if (unlikely(tx_tsc < s->max_tsc)) {
			/* Numbered ahead but sent before the newest packet:
			 * a straggler from before a restart. */
			s->late++;
			return LR_SEQ_STRAGGLER;
		}
		lr_seq_clear(s, s->next, seq);
		lr_seq_mark(s, seq);
		s->lost += d;
		s->seq_too_high++;
		s->next = seq + 1;
		s->seen = (uint32_t)RTE_MIN((uint64_t)s->seen + (uint64_t)d + 1,
					    (uint64_t)LR_SEQ_WINDOW + 1);
		if (tx_tsc > s->max_tsc)
			s->max_tsc = tx_tsc;
		*gap = (uint32_t)d;
		return LR_SEQ_GAP;
	}
	if (tx_tsc > s->max_tsc && s->max_tsc != 0) {
		/* Sent after everything seen, numbered before it: a restart. */
		s->restarts++;
		lr_seq_clear(s, 0, LR_SEQ_WINDOW);
		lr_seq_mark(s, seq);
		s->lost += seq;
		s->next = seq + 1;
		s->seen = (uint32_t)RTE_MIN((uint64_t)seq + 2,
					    (uint64_t)LR_SEQ_WINDOW + 1);
		s->max_tsc = tx_tsc;
		*gap = seq;
		return LR_SEQ_RESTART;
	}
	s->seq_too_low++;
	/* -d in unsigned arithmetic: d may be INT32_MIN (2^31 behind). Below
	 * the window, or below the number the flow (re)started from (its
	 * slot never stood for a number counted lost: a flow's first packets
	 * numbered just below 0 would take the loss negative), late. */
	if (0u - (uint32_t)d > LR_SEQ_WINDOW ||
	    0u - (uint32_t)d > s->seen - 1) {
		s->late++;
		return LR_SEQ_LATE;
	}
	if (lr_seq_marked(s, seq)) {
		s->dup++;
		return LR_SEQ_DUP;
	}
	lr_seq_mark(s, seq);
	s->out_of_order++;
	s->lost--;
	return LR_SEQ_REORDERED;
}

/** Packets received once: what PER divides by, with the lost. */
static inline uint64_t
lr_seq_unique(const struct lr_seq *s)
{
	return s->pkts - s->dup;
}

/** Packet error ratio: lost / (received once + lost), 0 without traffic. */
static inline double
lr_seq_per(uint64_t unique, int64_t lost)
{
	if (lost <= 0)
		return 0;
	return (double)lost / (double)(unique + (uint64_t)lost);
}

#endif
