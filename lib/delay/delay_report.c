/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the delay role says: a task's JSON, the sum of all in the result
 * document, the live line, the verdict (late), and the check that every
 * frame that came in is accounted for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "delay_internal.h"
#include "lr_port.h"

static const char *const dir_name[3] = { "forward", "back", NULL };

/* What a task says of its lcore, read on the control path; the first two
 * are the delay section's too (cost_json()). */
struct task_counts {
	double cycles_per_frame, mpps_ceiling;
	uint64_t delay_max_ns;
	double max_poll_gap_us, stalled_us;
};

#define CHANGES 1u	/* the rows of a box that may change (--delay-max) */

#define TASK_ROW(ty, f, w, u, h) \
	LR_COUNTER_ROW(ty, struct task_counts, f, #f, w, NULL, NONE, u, h)
static const struct lr_counter task_rows[] = {
	TASK_ROW(REAL, cycles_per_frame, 0, "cycles",
		 "TSC cycles a frame costs the lcore, its way in and out."),
	TASK_ROW(REAL, mpps_ceiling, 0, "Mpps",
		 "The frame rate one lcore holds at that cost."),
	TASK_ROW(U64, delay_max_ns, CHANGES, "ns",
		 "The greatest delay the box may be asked (--delay-max)."),
	TASK_ROW(REAL, max_poll_gap_us, 0, "us",
		 "Longest time between two polls: a stall of the lcore."),
	TASK_ROW(REAL, stalled_us, 0, "us",
		 "The sum of the gaps between polls longer than a stall."),
};
#undef TASK_ROW

static const struct lr_counters cost_counters = { .rows = task_rows, .nb = 2 };

/* A direction's counters, in its "forward" and "back" objects. */
#define DIR_ROW(f, k, m, kd, u, h) \
	LR_COUNTER_U64(struct dir_counts, f, k, m, kd, u, h),
static const struct lr_counter dir_rows[] = {
	DELAY_COUNTERS(DIR_ROW)
	LR_COUNTER_CODE("lateness", NULL, NONE, "ns",
			"How late the frames held to a due time were sent."),
};
#undef DIR_ROW

static const struct lr_counters dir_counters = {
	.rows = dir_rows, .nb = RTE_DIM(dir_rows), .dirs = dir_name,
};

const struct lr_counters lr_delay_counters = {
	.rows = task_rows, .nb = RTE_DIM(task_rows), .next = &dir_counters,
};

/* The counters of a direction, and what they say of each other. The
 * lateness of the frames sent, or null and why there is none. */
static void
counts_json(json_t *o, const struct dir_counts *c, const struct lr_hist *late)
{
	lr_counters_json(o, &dir_counters, c, 0);
	if (late != NULL && late->count != 0) {
		json_object_set_new(o, "lateness", lr_hist_json(late));
		return;
	}
	json_object_set_new(o, "lateness", json_null());
	json_object_set_new(o, "lateness_why", json_string(late == NULL ?
			    "no impairment: frames pass straight through, not "
			    "held to a due time" : "no frame held to a due time was sent"));
}

/* The record of a change of SPEC (task:set{netem=}, lr_change_ops): when
 * it was asked and when the worker took it, the SPEC before it. */
static json_t *
record_change(void *arg, const struct lr_change *lc,
	      const struct lr_change *before, enum lr_change_fate fate,
	      const char *why)
{
	const struct dir *d = arg;
	const struct change *ch = (const struct change *)lc;
	double hz = (double)rte_get_tsc_hz(), start = (double)d->task->st.start_tsc;
	json_t *c = json_object();
	char buf[LR_DELAY_SPEC_MAX];

	lr_netem_conf_format(&ch->nc, buf, sizeof(buf));
	json_object_set_new(c, "netem", json_string(buf));
	json_object_set_new(c, "asked_s", json_real(
			    ((double)lc->asked_tsc - start) / hz));
	if (fate != LR_CHANGE_TAKEN) {
		json_object_set_new(c, "applied_s", json_null());
		json_object_set_new(c, "why_not", json_string(why));
		return c;
	}
	lr_netem_conf_format(before == NULL ? &d->nc :
			     &((const struct change *)before)->nc, buf, sizeof(buf));
	json_object_set_new(c, "from", json_string(buf));
	json_object_set_new(c, "applied_s", json_real(
			    ((double)lc->applied_tsc - start) / hz));
	json_object_set_new(c, "in_before", json_integer((json_int_t)ch->in_before));
	json_object_set_new(c, "held_before", json_integer((json_int_t)ch->held_before));
	return c;
}

static void
free_change(void *arg, struct lr_change *lc)
{
	struct change *ch = (struct change *)lc;

	RTE_SET_USED(arg);
	lr_netem_conf_free(&ch->nc);
	rte_free(ch);
}

const struct lr_change_ops lr_delay_changes = {
	.record = record_change,
	.free = free_change,
};

/* Frames taken from the ring or the rx queue that the tx queue has not
 * taken yet. Read by the main lcore while the task runs: a snapshot. */
static uint64_t
tx_wait(const struct dir *d)
{
	uint16_t n = d->nb_pend, off = d->pend_off;

	return n > off ? (uint64_t)(n - off) : 0;
}

/* in + duplicated = out + lost + over_limit + no_room + held + waiting for
 * the tx queue + held at stop: every frame is somewhere. */
static bool
conserved(const struct dir_counts *c, uint64_t wait)
{
	return c->in + c->duplicated == c->out + c->lost + c->over_limit +
	       c->no_room + c->held + wait + c->held_at_stop;
}

/* Cycles a frame costs the lcore (its way in and its way out, the PMDs'
 * work included), and the frame rate one lcore would hold at that cost. */
static void
cost_of(struct task_counts *c, uint64_t cycles, uint64_t frames)
{
	double cpf = frames ? (double)cycles / (double)frames : 0;

	c->cycles_per_frame = cpf;
	c->mpps_ceiling = cpf > 0 ? (double)rte_get_tsc_hz() / cpf / 1e6 : 0;
}

static void
cost_json(json_t *o, uint64_t cycles, uint64_t frames)
{
	struct task_counts c;

	cost_of(&c, cycles, frames);
	lr_counters_json(o, &cost_counters, &c, 0);
}

void
lr_delay_report(const struct lr_task *t, json_t *o)
{
	struct delay *dl = t->priv;
	struct task_counts tc = {
		.delay_max_ns = dl->delay_max_ns,
		.max_poll_gap_us = (double)dl->max_gap_cycles * 1e6 /
				   (double)rte_get_tsc_hz(),
		.stalled_us = (double)dl->stall_cycles * 1e6 /
			      (double)rte_get_tsc_hz(),
	};
	unsigned int i;

	cost_of(&tc, dl->busy_cycles, dl->d[0].c.in + dl->d[1].c.in);
	lr_counters_json(o, &lr_delay_counters, &tc,
			 dl->delay_max_ns != 0 ? CHANGES : 0);
	for (i = 0; i < 2; i++) {
		struct dir *d = &dl->d[i];
		json_t *j;
		char buf[LR_DELAY_SPEC_MAX];

		if (!d->active)
			continue;
		j = json_object();
		lr_netem_conf_format(&d->nc, buf, sizeof(buf));
		json_object_set_new(j, "netem", json_string(buf));
		json_object_set_new(j, "in_port", json_string(lr_port_info(d->in_port)->name));
		json_object_set_new(j, "out_port", json_string(lr_port_info(d->out_port)->name));
		if (!d->pass) {
			json_object_set_new(j, "limit", json_integer(d->limit));
			json_object_set_new(j, "storage_bytes", json_integer((json_int_t)d->store.size));
			json_object_set_new(j, "bdp_bytes", json_integer((json_int_t)d->bdp_bytes));
			/* Whether netem's limit counts on the model's clock
			 * (a stall of the host drops nothing of its own) or
			 * what the box holds (jitter that reorders, slots). */
			json_object_set_new(j, "model_clock", json_boolean(d->model));
			json_object_set_new(j, "arrival_stamps", json_boolean(d->stamp_off >= 0));
		}
		counts_json(j, &d->c, d->pass ? NULL : d->lateness);
		if (dl->delay_max_ns != 0) {
			json_object_set_new(j, "netem_changes",
					    lr_changes_json(&d->changes));
			json_object_set_new(j, "netem_changes_counts",
					    lr_changes_counts_json(&d->changes));
		}
		json_object_set_new(o, dir_name[i], j);
	}
}

static void
counts_add(struct dir_counts *s, const struct dir_counts *c)
{
#define DELAY_ADD(name, ...) s->name += c->name;
	DELAY_COUNTERS(DELAY_ADD)
#undef DELAY_ADD
}

void
lr_delay_results(json_t *doc)
{
	struct lr_hist *late[2] = { NULL, NULL };
	struct dir_counts sum[2];
	uint64_t wait[2] = { 0, 0 }, cycles = 0;
	json_t *o = json_object();
	unsigned int it = 0, i, n = 0;
	bool running = false, timed[2] = { false, false };
	struct lr_task *t;

	memset(sum, 0, sizeof(sum));
	for (i = 0; i < 2; i++) {
		late[i] = malloc(sizeof(*late[i]));
		if (late[i] != NULL)
			lr_hist_init(late[i]);
	}
	while ((t = lr_role_next(&lr_delay_role, &it)) != NULL) {
		const struct delay *dl = t->priv;

		n++;
		running |= lr_task_state(t) == LR_TASK_RUNNING;
		cycles += dl->busy_cycles;
		for (i = 0; i < 2; i++) {
			if (!dl->d[i].active)
				continue;
			counts_add(&sum[i], &dl->d[i].c);
			wait[i] += tx_wait(&dl->d[i]);
			timed[i] |= !dl->d[i].pass;
			if (late[i] != NULL && !dl->d[i].pass)
				lr_hist_merge(late[i], dl->d[i].lateness);
		}
	}
	if (n == 0) {
		json_decref(o);
		free(late[0]);
		free(late[1]);
		return;
	}
	for (i = 0; i < 2; i++) {
		json_t *j = json_object();

		if (timed[i] && late[i] == NULL) {
			counts_json(j, &sum[i], NULL);
			json_object_set_new(j, "lateness_why",
					    json_string("no memory to sum it"));
		} else {
			counts_json(j, &sum[i], timed[i] ? late[i] : NULL);
		}
		/* While the lcores count, a read sees frames between two
		 * counters: the sum holds at rest, and is checked then. */
		json_object_set_new(j, "conserved", running ? json_null() :
				    json_boolean(conserved(&sum[i], wait[i])));
		json_object_set_new(o, dir_name[i], j);
		free(late[i]);
	}
	cost_json(o, cycles, sum[0].in + sum[1].in);
	json_object_set_new(doc, "delay", o);
}

/* One direction's counters as the summary line shows them: every one the
 * conservation check (conserved()) adds up, "held" with what waits for the
 * tx queue, and late. */
static int
dir_words(char *buf, size_t len, const struct dir_counts *c, uint64_t wait)
{
	return snprintf(buf, len, "in %" PRIu64 " duplicated %" PRIu64
			" out %" PRIu64 " lost %" PRIu64 " over-limit %" PRIu64
			" no-room %" PRIu64 " held %" PRIu64 " held-at-stop %"
			PRIu64 " late %" PRIu64, c->in, c->duplicated, c->out,
			c->lost, c->over_limit, c->no_room, c->held + wait,
			c->held_at_stop, c->late);
}

void
lr_delay_live(char *buf, size_t len)
{
	struct dir_counts s[2];
	uint64_t wait[2] = { 0, 0 };
	unsigned int it = 0, i;
	struct lr_task *t;
	bool any = false, back = false;
	int k;

	memset(s, 0, sizeof(s));
	buf[0] = '\0';
	while ((t = lr_role_next(&lr_delay_role, &it)) != NULL) {
		const struct delay *dl = t->priv;

		any = true;
		back |= dl->d[1].active;
		for (i = 0; i < 2; i++) {
			counts_add(&s[i], &dl->d[i].c);
			wait[i] += tx_wait(&dl->d[i]);
		}
	}
	if (!any)
		return;
	k = dir_words(buf, len, &s[0], wait[0]);
	if (back && k > 0 && (size_t)k < len) {
		k += snprintf(buf + k, len - (size_t)k, "; back ");
		if (k > 0 && (size_t)k < len)
			dir_words(buf + k, len - (size_t)k, &s[1], wait[1]);
	}
}

/*
 * Late: more of a direction's frames left later than --late after their
 * due time than --late-share allows. The box did not emulate the path it
 * was asked for (its lcore stalled, or could not keep up): a result
 * measured through it is the machine's, not the SPEC's.
 */
enum lr_verdict
lr_delay_verdict(const struct lr_task *t, char *why, size_t len)
{
	const struct delay *dl = t->priv;
	unsigned int i;

	if (dl == NULL)
		return LR_VERDICT_OK;
	for (i = 0; i < 2; i++) {
		const struct dir *d = &dl->d[i];
		uint64_t n, late;

		if (!d->active || d->pass || d->lateness == NULL)
			continue;
		n = d->lateness->count;
		late = d->c.late;
		if (n == 0 || (double)late <= d->late_share * (double)n)
			continue;
		snprintf(why, len, "delay %s -> %s queue %u: late: %.3g %% of %"
			 PRIu64 " frames left more than %u ns after due (p99 "
			 "%.3f ms late) > %.3g %% (--late-share)",
			 lr_port_info(d->in_port)->name,
			 lr_port_info(d->out_port)->name, d->in_queue,
			 100.0 * (double)late / (double)n, n, d->late_ns,
			 lr_hist_quantile(d->lateness, 0.99) / 1e6,
			 d->late_share * 100);
		return LR_VERDICT_LATE;
	}
	return LR_VERDICT_OK;
}

/* Every frame that came in is accounted for, or the run fails. */
int
lr_delay_check(void)
{
	unsigned int it = 0, i;
	struct lr_task *t;

	while ((t = lr_role_next(&lr_delay_role, &it)) != NULL) {
		const struct delay *dl = t->priv;

		for (i = 0; i < 2; i++) {
			const struct dir_counts *c = &dl->d[i].c;

			if (dl->d[i].active && !conserved(c, tx_wait(&dl->d[i])))
				return lr_err(EIO, "delay task %u %s: %" PRIu64
					      " in + %" PRIu64 " duplicated != %"
					      PRIu64 " out + %" PRIu64 " lost + %"
					      PRIu64 " over limit + %" PRIu64
					      " no room + %" PRIu64 " held",
					      t->id, dir_name[i], c->in,
					      c->duplicated, c->out, c->lost,
					      c->over_limit, c->no_room,
					      c->held + c->held_at_stop +
					      tx_wait(&dl->d[i]));
		}
	}
	return 0;
}
