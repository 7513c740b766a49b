/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the reflect role share, inside lib/reflect only: a
 * task's state and counters, and the functions one file gives the others.
 * Not a public header (lr_reflect.h is).
 *
 *   reflect.c         the fast path: classify, swap and stamp, hold in the
 *                     wheel, send and count; its burst loop last
 *   reflect_setup.c   options, setup (the wheel of --add-delay), finish,
 *                     the plan, the role
 *   reflect_report.c  a task's JSON, the `reflect` section, live line
 */
#ifndef LR_REFLECT_INTERNAL_H
#define LR_REFLECT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_netem.h"
#include "lr_reflect.h"

#define TX_RETRIES_DEFAULT 64
#define NIL UINT32_MAX
/* Ahead of the greatest delay, the wheel spans this much more, so that a
 * frame due at the far end never lands in the slot being sent. */
#define WHEEL_MARGIN_NS 100000
#define SLOT_NS 1000		/* about 1 us a slot (a power of 2 of TSC) */

/*
 * A task's counters, each named once: X(field, JSON key, metric or NULL,
 * kind, unit, help), the struct and its table's rows (lr_counter.h). Conserved:
 * in = reflected + others_reflected + others_dropped + looped + no_mbuf, and
 * reflected + others_reflected = out + tx_dropped + over_hold + held
 * (+ held_at_stop at the end).
 */
#define LR_REFLECT_COUNTERS(X) \
	X(in, "in", NULL, NONE, "frames", \
	  "frames received") \
	X(copied, "copied", NULL, NONE, "frames", \
	  "frames of another pool, copied first (the virtual wire)") \
	X(no_mbuf, "no_mbuf", NULL, NONE, "frames", \
	  "frames to copy, no mbuf: dropped") \
	X(reflected, "reflected", NULL, NONE, "frames", \
	  "linerate frames swapped and marked") \
	X(stamped, "stamped", NULL, NONE, "frames", \
	  "of them, with the reflector's stamps") \
	X(unstamped, "unstamped", NULL, NONE, "frames", \
	  "--stamp 1, but no room for the stamps") \
	X(others_reflected, "others_reflected", NULL, NONE, "frames", \
	  "non-linerate frames swapped (--others reflect)") \
	X(others_dropped, "others_dropped", NULL, NONE, "frames", \
	  "non-linerate frames dropped (--others drop; runts, shorter than an Ethernet header, always)") \
	X(looped, "looped", NULL, NONE, "frames", \
	  "reflected already (linerate's mark, or --others reflect: our MAC as source): dropped") \
	X(out, "out", NULL, NONE, "frames", \
	  "frames the port took") \
	X(tx_dropped, "tx_dropped", NULL, NONE, "frames", \
	  "not taken after --tx-retries: dropped") \
	X(over_hold, "over_hold", NULL, NONE, "frames", \
	  "--add-delay: the wheel was full: dropped") \
	X(held, "held", NULL, NONE, "frames", \
	  "--add-delay: held now") \
	X(held_at_stop, "held_at_stop", NULL, NONE, "frames", \
	  "--add-delay: held when the task ended, freed") \
	X(past_count, "past_count", NULL, NONE, "frames", \
	  "received past --count, freed unread (not in 'in')")

struct reflect_counts {
#define FIELD(name, ...) uint64_t name;
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

/* reflect.c: a burst (lr_engine.h's poll). */
int lr_reflect_poll(struct lr_task *t, uint64_t now);

/* reflect_report.c (lr_engine.h's report, results, live). */
void lr_reflect_report(const struct lr_task *t, json_t *o);
extern const struct lr_counters lr_reflect_counters;
void lr_reflect_results(json_t *doc);
void lr_reflect_live(char *buf, size_t len);

#endif
