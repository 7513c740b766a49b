/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Live changes of a running task (task:set{}): gen's rate or multiplier,
 * the delay box's netem SPEC. One design for every role that has them.
 *
 * The control path makes a block (the role's struct, a struct lr_change
 * first in it), publishes it (lr_changes_publish()) and the worker takes
 * it at a burst boundary: one acquire load a burst (lr_change_peek()),
 * then lr_change_taken() once it no longer reads the block before it. A
 * change published before the worker took the one before replaces it.
 *
 * The blocks are kept only while the worker may read them, and the record
 * of changes is bounded, whatever a script asks (a netem schedule every
 * millisecond, a rate ramp of a million steps): lr_changes_reap(), on the
 * control path, turns each block the worker is done with into a record
 * (the role's JSON object of it) and frees it. A block is done with when
 *  - the worker took it and then a later one (it no longer reads it: the
 *    block in force is kept, as the next record's "from");
 *  - the worker took a later one (it takes the newest, in order);
 *  - it was replaced and the worker began a poll since (a poll loads the
 *    published block afresh: the one before may still be reading it);
 *  - the task is done (its worker reads none any more).
 * The records of the last LR_CHANGES_KEEP changes are listed, every one is
 * counted. At most LR_CHANGES_LIVE_MAX blocks wait for the worker: a set
 * past them waits for its next poll (a stalled host), a bounded time.
 *
 * Threading: the worker calls the two inline functions; every other one
 * is control path and takes the set's own lock.
 */
#ifndef LR_CHANGE_H
#define LR_CHANGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct lr_task;

/** Records of changes listed: the most recent ones. */
#define LR_CHANGES_KEEP 64
/** Blocks published that the worker may still read, at most. */
#define LR_CHANGES_LIVE_MAX 64

/** The head of a role's change block. */
struct lr_change {
	uint64_t asked_tsc;	/**< control: when published */
	uint64_t applied_tsc;	/**< worker (release): when taken, 0: not */
	uint64_t replaced_tsc;	/**< control: when a later one replaced it
				 *   untaken, 0: not */
	struct lr_change *next;	/**< control: the blocks kept, in order */
};

/** Why a change was never taken, or not yet. */
enum lr_change_fate {
	LR_CHANGE_TAKEN,
	LR_CHANGE_REPLACED,	/**< a later one came before the worker's
				 *   next burst */
	LR_CHANGE_ENDED,	/**< the task ended first */
	LR_CHANGE_PENDING,	/**< not yet taken */
};

/** What a role does with its blocks. */
struct lr_change_ops {
	/** The record of @p ch (a JSON object, new reference): taken (in
	 *  order) after @p from, NULL: the task's start's setting; or not
	 *  (@p from NULL, @p fate why). @p why is fate's text. Called with
	 *  the set's lock held, once per change, in order, before @p ch
	 *  (or @p from) is freed; a PENDING one each time it is listed. */
	json_t *(*record)(void *arg, const struct lr_change *ch,
			  const struct lr_change *from,
			  enum lr_change_fate fate, const char *why);
	/** Free a block (its tables with it). */
	void (*free)(void *arg, struct lr_change *ch);
};

/** The changes of one task (one direction of a delay box). */
struct lr_changes {
	/** The block published and not taken: the worker's one load. */
	struct lr_change *pub;
	/* control path only, under lock */
	pthread_mutex_t lock;
	const struct lr_change_ops *ops;
	void *arg;
	const struct lr_task *task;
	const uint64_t *poll_tsc;	/**< the worker's latest poll start */
	struct lr_change *in_force;	/**< the last taken, NULL: the start's */
	struct lr_change *head, *tail;	/**< published, not yet recorded */
	uint32_t nb_live;
	uint64_t asked, taken, replaced, ended;
	json_t *recent;			/**< ring of the last KEEP records */
	uint32_t recent_next;
};

/** The block published and not yet taken, NULL: none (worker). */
static inline struct lr_change *
lr_change_peek(struct lr_changes *c)
{
	return __atomic_load_n(&c->pub, __ATOMIC_ACQUIRE);
}

/** The worker took @p ch and no longer reads the block before it. */
static inline void
lr_change_taken(struct lr_changes *c, struct lr_change *ch, uint64_t tsc)
{
	struct lr_change *want = ch;

	__atomic_store_n(&ch->applied_tsc, tsc, __ATOMIC_RELEASE);
	/* Taken, unless a newer one came meanwhile: the next burst takes
	 * that (this one's record says when it ran). */
	__atomic_compare_exchange_n(&c->pub, &want, NULL, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/** Start @p c for task @p t, whose worker writes @p poll_tsc at each
 *  poll's start. 0, or -errno. */
int lr_changes_init(struct lr_changes *c, const struct lr_change_ops *ops,
		    void *arg, const struct lr_task *t, const uint64_t *poll_tsc);

/** Publish @p ch for the worker. Records and frees what it can first; past
 *  LR_CHANGES_LIVE_MAX blocks waits for the worker up to a second. 0, or a
 *  negative errno with lr_err() set (@p ch is then not the set's). */
int lr_changes_publish(struct lr_changes *c, struct lr_change *ch);

/** Record and free the blocks the worker is done with. */
void lr_changes_reap(struct lr_changes *c);

/** The records listed (the last LR_CHANGES_KEEP, and those pending), in
 *  order: a new JSON array. */
json_t *lr_changes_json(struct lr_changes *c);

/** The counts: asked, taken, replaced, ended, pending and listed. */
json_t *lr_changes_counts_json(struct lr_changes *c);

void lr_changes_lock(struct lr_changes *c);
void lr_changes_unlock(struct lr_changes *c);

/** Free every block and record (the task's end). */
void lr_changes_free(struct lr_changes *c);

#endif /* LR_CHANGE_H */
