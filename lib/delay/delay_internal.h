/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the delay role share, inside lib/delay only: a
 * direction's ring, wheel and counters, and the functions one file gives
 * the others. Not a public header (lr_delay.h is).
 *
 *   delay_store.h   the ring, the wheel, the late heap, the head list
 *                   (inline: the fast path's and the unit test's)
 *   delay.c         the fast path
 *   delay_setup.c   options, sizing and setup, finish, the plan, the role
 *   delay_report.c  JSON of a task and of all, live line, verdict, check
 */
#ifndef LR_DELAY_INTERNAL_H
#define LR_DELAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lr_change.h"
#include "lr_common.h"
#include "lr_delay.h"
#include "lr_engine.h"
#include "lr_hist.h"
#include "lr_netem.h"

#include "delay_store.h"

#define WHEEL_AHEAD_NS 64000ull	/* frames enter the wheel 64 us early */
#define STREAM_MIN_NS 1000000	/* from 1 ms on, the ring is out of cache */
#define STORE_MIN (4u << 20)	/* bytes of a direction with no delay */
#define POOL_MBUFS 4095u	/* tx mbufs of a direction */
#define LATE_NS_DEFAULT 10000u
/* How far ahead of its due time a frame is copied out of the ring, and the
 * longest a poll waits for a due time: a frame due within this of the poll
 * leaves at its due time, not at the next poll (a poll with a burst in
 * takes 1-3 us). Also the longest a frame waits in the rx queue for it. */
#define SEND_AHEAD_NS 1000u
/* Frames of an rx burst between two looks at what is ready and due. */
#define SEND_EVERY 8u
/* 1 %: this VM's CPUs stop for up to 0.5 ms, which makes the frames of
 * that time late on an idle machine too; a box past 1 % late has not
 * emulated the path it was asked for. */
#define LATE_SHARE_DEFAULT 0.01
/* Times start here, not at 0: a negative delay (jitter above the delay)
 * makes a due time before the first arrival. */
#define NS_BASE 1000000000000ull

/* netem's queue on the model's clock: frames admitted and due at tts, as a
 * run of one due time (a burst under a constant delay is one run). */
struct mq_run {
	uint64_t tts;
	uint64_t n;
};

/* The longest limit the model's queue is kept for (mq_run's each): past it
 * the limit counts what the ring holds (32 MiB at most a direction). */
#define MQ_LIMIT_MAX (1u << 20)

/*
 * A direction's counters, each named once: X(field, JSON key, metric or
 * NULL, kind, unit, help): the struct, the JSON of each direction and its
 * metrics with label direction (lr_counter.h's rows, delay_report.c).
 */
#define DELAY_COUNTERS(X) \
	X(in, "in", "delay_in_frames_total", COUNTER, "frames", \
	  "Frames into the delay box.") \
	X(in_idle_ns, "in_idle_ns", NULL, NONE, "ns", \
	  "ns the in link was idle between frames (arrival stamps).") \
	X(in_span_ns, "in_span_ns", NULL, NONE, "ns", \
	  "ns from the first arrival to the last (arrival stamps).") \
	X(out, "out", "delay_out_frames_total", COUNTER, "frames", \
	  "Frames the delay box sent on.") \
	X(lost, "lost", "delay_lost_frames_total", COUNTER, "frames", \
	  "Frames the box's loss model dropped.") \
	X(duplicated, "duplicated", "delay_duplicated_frames_total", COUNTER, \
	  "frames", "Frames the box duplicated.") \
	X(corrupted, "corrupted", NULL, NONE, "frames", \
	  "Copies with a bit flipped.") \
	/* sent ahead of the queue (reorder) */ \
	X(reordered, "reordered", "delay_reordered_frames_total", COUNTER, \
	  "frames", "Frames the box reordered.") \
	/* dropped: netem's limit */ \
	X(over_limit, "over_limit", "delay_over_limit_frames_total", COUNTER, \
	  "frames", "Frames dropped over the box's limit.") \
	X(no_room, "no_room", NULL, NONE, "frames", \
	  "Frames dropped: the ring had no room.") \
	/* late_ns is --late */ \
	X(late, "late", "delay_late_frames_total", COUNTER, "frames", \
	  "Frames the box sent later than due by more than --late.") \
	/* in the ring now */ \
	X(held, "held", "delay_held_frames", GAUGE, "frames", \
	  "Frames the box holds now.") \
	X(held_at_stop, "held_at_stop", NULL, NONE, "frames", \
	  "Frames still held when the task stopped.") \
	X(mem_high, "storage_high_bytes", NULL, NONE, "bytes", \
	  "Most bytes of the ring in use.") \
	X(tx_full, "tx_full", NULL, NONE, "bursts", \
	  "Tx bursts the queue did not take whole.") \
	X(misordered, "misordered", NULL, NONE, "frames", \
	  "Frames sent before one due earlier (a bug if not 0).")

struct dir_counts {
#define DELAY_FIELD(name, ...) uint64_t name;
	DELAY_COUNTERS(DELAY_FIELD)
#undef DELAY_FIELD
};

/*
 * A new SPEC for a running direction (task:set{netem=}): parsed, sized and
 * its netem state started on the control path, published in dir.changes
 * (lr_change.h); the worker takes it at a poll's start (take_change()).
 * Kept while in force: the worker's netem state points into it.
 */
struct change {
	struct lr_change ch;	/* first: the change's head */
	struct lr_netem_conf nc;
	struct lr_netem q;	/* started on nc: the kernel's netem_change()
				 * re-seeds and re-draws the correlations */
	uint64_t ahead_ns;	/* dir.ahead_ns under it */
	uint64_t in_before;	/* the direction's in when taken */
	uint64_t held_before;	/* frames held then: they keep their due times */
};

struct dir {
	struct lr_netem q;
	struct lr_netem_conf nc;
	bool active;		/* the direction exists (its rx and tx queue) */
	bool pass;		/* no impairment: mbufs go straight through */
	bool stream;		/* long delays: the ring written around the
				 * caches (rec_write()) */
	uint16_t in_port, in_queue, out_port, out_queue;
	uint32_t limit;
	uint32_t late_ns;
	double late_share;	/* verdict late past it (of frames sent) */
	struct store store;	/* the ring, the wheel, the late heap, the
				 * head list (delay_store.h) */
	uint64_t last_tts;	/* due time of the last frame sent from the queue */
	/* Arrivals: the in port's stamps (lr_port_arrival_stamps(): when a
	 * frame entered the box's input ring), or -1: when its burst was
	 * read. Never before the box started, nor before the frame before
	 * it had arrived and its own bytes after it. */
	int stamp_off;
	uint64_t first_arrival, last_arrival;
	uint32_t arrival_ps;		/* last_arrival's ps below the ns */
	uint64_t wire_ps_per_byte;	/* the in port's speed: a frame's bytes
					 * (L1) take this long to arrive */
	/*
	 * netem's qlen as the model has it (a FIFO SPEC with a limit and no
	 * slots): the frames admitted whose due time is after the arrival
	 * at hand. A frame due by then has left sch_netem's queue, whether
	 * or not this lcore got to send it: a stall of the host moves when
	 * frames leave, not which ones the limit drops. mq: a ring of runs,
	 * mq_mask + 1 of them; mq_frames: the frames in it.
	 */
	bool model;
	struct mq_run *mq;
	uint32_t mq_mask, mq_head, mq_n;
	uint64_t mq_frames;
	/* tx */
	struct rte_mempool *pool;
	struct rte_mbuf *spare[LR_BURST];
	uint16_t nb_spare;
	struct rte_mbuf *pend[LR_BURST];
	uint16_t nb_pend, pend_off;
	/* Copied out of the ring, in the order they leave, not due yet when
	 * copied: still counted in held (send_ready()). */
	struct rte_mbuf *ready[LR_BURST];
	uint64_t ready_tts[LR_BURST];
	uint16_t nb_ready;
	uint64_t ahead_ns;	/* SEND_AHEAD_NS, or 0 where netem decides at
				 * the dequeue (slots) or sends ahead of the
				 * queue (reorder) */
	struct dir_counts c;
	struct lr_hist *lateness;
	uint64_t bdp_bytes;	/* what the ring was sized for */
	/* task:set{netem=}: the worker loads changes.pub once per poll
	 * (lr_change_peek()) */
	struct lr_changes changes;
	const struct lr_task *task;	/* control path: for the records */
};

struct delay {
	struct dir d[2];
	uint64_t busy_cycles;	/* of polls that moved frames, less the
				 * waits for a due time */
	uint64_t last_poll_tsc;	/* when the last poll began */
	uint64_t max_gap_cycles; /* the longest time between two polls: a
				  * stall of the lcore (the host took its CPU)
				  * that a queue of the netem limit may not
				  * hide (lua/rfc2544.lua reads it) */
	uint64_t stall_cycles;	/* the sum of gaps longer than STALL_US:
				  * frames that came while the lcore was
				  * away were let in late, together */
	uint64_t stall_min_cycles;	/* STALL_US in TSC cycles */
	uint64_t tsc0;
	double ns_per_tsc;
	uint64_t delay_max_ns;	/* --delay-max: changes may ask up to it */
};

/* A gap between two polls longer than this is the host's (a poll of the
 * box and of the other tasks on its lcore takes a few us): counted in
 * stalled_us and max_poll_gap_us. */
#define STALL_US 20

/* delay_report.c: the records of a direction's changes of SPEC. */
extern const struct lr_change_ops lr_delay_changes;

/* delay.c: a burst each way (lr_engine.h's poll). */
int lr_delay_poll(struct lr_task *t, uint64_t now_tsc);

/* delay_setup.c: how far ahead of due a frame may be copied out under @p c
 * (SEND_AHEAD_NS, at most the least delay; 0 with slots or reorder). */
uint64_t lr_delay_ahead_ns(const struct lr_netem_conf *c);

/* delay_report.c (lr_engine.h's report, results, live, verdict, check). */
void lr_delay_report(const struct lr_task *t, json_t *o);
/* What lr_delay_report() counts: the task's, then each direction's. */
extern const struct lr_counters lr_delay_counters;
void lr_delay_results(json_t *doc);
void lr_delay_live(char *buf, size_t len);
enum lr_verdict lr_delay_verdict(const struct lr_task *t, char *why,
				 size_t len);
int lr_delay_check(void);

#endif
