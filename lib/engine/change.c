/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live changes of a running task: published blocks, freed once the worker
 * is done with them, a bounded record (lr_change.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "lr_change.h"
#include "lr_common.h"
#include "lr_engine.h"

/* A poll that began this long after a block was replaced loaded the newer
 * one: the TSC read at a poll's start may run ahead of its loads by a few
 * cycles, never by this. */
#define REPLACED_MARGIN_US 10
/* How long a set waits for a stalled worker past LR_CHANGES_LIVE_MAX. */
#define PUBLISH_WAIT_MS 1000

static const char *const fate_why[] = {
	[LR_CHANGE_TAKEN] = NULL,
	[LR_CHANGE_REPLACED] = "a later change came before the worker's next burst",
	[LR_CHANGE_ENDED] = "the task ended before the worker took it",
	[LR_CHANGE_PENDING] = "not yet: the worker takes it at its next burst",
};

int
lr_changes_init(struct lr_changes *c, const struct lr_change_ops *ops,
		void *arg, const struct lr_task *t, const uint64_t *poll_tsc)
{
	memset(c, 0, sizeof(*c));
	c->recent = json_array();
	if (c->recent == NULL)
		return lr_err(ENOMEM, "no memory for the record of changes");
	pthread_mutex_init(&c->lock, NULL);
	c->ops = ops;
	c->arg = arg;
	c->task = t;
	c->poll_tsc = poll_tsc;
	return 0;
}

void
lr_changes_lock(struct lr_changes *c)
{
	pthread_mutex_lock(&c->lock);
}

void
lr_changes_unlock(struct lr_changes *c)
{
	pthread_mutex_unlock(&c->lock);
}

/* Keep @p rec among the last LR_CHANGES_KEEP. */
static void
keep(struct lr_changes *c, json_t *rec)
{
	if (rec == NULL)
		return;
	if (json_array_size(c->recent) < LR_CHANGES_KEEP) {
		json_array_append_new(c->recent, rec);
		return;
	}
	json_array_set_new(c->recent, c->recent_next, rec);
	c->recent_next = (c->recent_next + 1) % LR_CHANGES_KEEP;
}

static void
unlink_head(struct lr_changes *c)
{
	c->head = c->head->next;
	if (c->head == NULL)
		c->tail = NULL;
	c->nb_live--;
}

/* A later block than @p ch the worker took: it took the newest at each
 * burst, so it is done with every block before that one. */
static bool
later_taken(const struct lr_change *ch)
{
	for (ch = ch->next; ch != NULL; ch = ch->next)
		if (__atomic_load_n(&ch->applied_tsc, __ATOMIC_ACQUIRE) != 0)
			return true;
	return false;
}

static void
reap_locked(struct lr_changes *c)
{
	bool done = lr_task_state(c->task) == LR_TASK_DONE;
	uint64_t margin = rte_get_tsc_hz() / 1000000 * REPLACED_MARGIN_US;
	uint64_t polled = c->poll_tsc != NULL ?
		__atomic_load_n(c->poll_tsc, __ATOMIC_ACQUIRE) : 0;
	struct lr_change *ch;

	while ((ch = c->head) != NULL) {
		enum lr_change_fate fate;

		if (__atomic_load_n(&ch->applied_tsc, __ATOMIC_ACQUIRE) != 0) {
			unlink_head(c);
			keep(c, c->ops->record(c->arg, ch, c->in_force,
					       LR_CHANGE_TAKEN, NULL));
			if (c->in_force != NULL)
				c->ops->free(c->arg, c->in_force);
			c->in_force = ch;
			c->taken++;
			continue;
		}
		if (ch->replaced_tsc != 0 &&
		    (done || later_taken(ch) || polled > ch->replaced_tsc + margin))
			fate = LR_CHANGE_REPLACED;
		else if (done)
			fate = LR_CHANGE_ENDED;
		else
			break;
		unlink_head(c);
		keep(c, c->ops->record(c->arg, ch, NULL, fate, fate_why[fate]));
		c->ops->free(c->arg, ch);
		if (fate == LR_CHANGE_REPLACED)
			c->replaced++;
		else
			c->ended++;
	}
}

void
lr_changes_reap(struct lr_changes *c)
{
	pthread_mutex_lock(&c->lock);
	reap_locked(c);
	pthread_mutex_unlock(&c->lock);
}

int
lr_changes_publish(struct lr_changes *c, struct lr_change *ch)
{
	unsigned int waited = 0;
	struct lr_change *old;

	pthread_mutex_lock(&c->lock);
	reap_locked(c);
	while (c->nb_live >= LR_CHANGES_LIVE_MAX) {
		pthread_mutex_unlock(&c->lock);
		if (waited == PUBLISH_WAIT_MS || lr_interrupted())
			return lr_err(EBUSY, "%u changes wait for the task's worker, "
				      "which has not polled for %u ms",
				      LR_CHANGES_LIVE_MAX, waited);
		rte_delay_us_sleep(1000);
		waited++;
		pthread_mutex_lock(&c->lock);
		reap_locked(c);
	}
	ch->next = NULL;
	ch->applied_tsc = 0;
	ch->replaced_tsc = 0;
	if (c->tail != NULL)
		c->tail->next = ch;
	else
		c->head = ch;
	c->tail = ch;
	c->nb_live++;
	c->asked++;
	ch->asked_tsc = rte_rdtsc();
	old = __atomic_exchange_n(&c->pub, ch, __ATOMIC_ACQ_REL);
	if (old != NULL && __atomic_load_n(&old->applied_tsc, __ATOMIC_ACQUIRE) == 0) {
		/* After the store: a poll that began past it loads ch. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		old->replaced_tsc = rte_rdtsc_precise();
	}
	pthread_mutex_unlock(&c->lock);
	return 0;
}

json_t *
lr_changes_json(struct lr_changes *c)
{
	json_t *a = json_array();
	const struct lr_change *ch;
	size_t i, n;

	pthread_mutex_lock(&c->lock);
	reap_locked(c);
	n = json_array_size(c->recent);
	for (i = 0; i < n; i++)
		json_array_append(a, json_array_get(c->recent,
			(c->recent_next + i) % n));
	for (ch = c->head; ch != NULL; ch = ch->next)
		json_array_append_new(a, c->ops->record(c->arg, ch, NULL,
			LR_CHANGE_PENDING, fate_why[LR_CHANGE_PENDING]));
	pthread_mutex_unlock(&c->lock);
	return a;
}

json_t *
lr_changes_counts_json(struct lr_changes *c)
{
	json_t *o;

	pthread_mutex_lock(&c->lock);
	reap_locked(c);
	o = json_pack("{sI sI sI sI sI sI}",
		      "asked", (json_int_t)c->asked,
		      "taken", (json_int_t)c->taken,
		      "replaced", (json_int_t)c->replaced,
		      "ended", (json_int_t)c->ended,
		      "pending", (json_int_t)c->nb_live,
		      "listed", (json_int_t)(json_array_size(c->recent) + c->nb_live));
	pthread_mutex_unlock(&c->lock);
	return o;
}

void
lr_changes_free(struct lr_changes *c)
{
	struct lr_change *ch;

	if (c->ops == NULL)
		return;
	while ((ch = c->head) != NULL) {
		unlink_head(c);
		c->ops->free(c->arg, ch);
	}
	if (c->in_force != NULL)
		c->ops->free(c->arg, c->in_force);
	c->in_force = NULL;
	json_decref(c->recent);
	c->recent = NULL;
	pthread_mutex_destroy(&c->lock);
	c->ops = NULL;
}
