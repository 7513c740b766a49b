/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the reflect role says: a task's counters in JSON, every task's
 * summed in the result document (and whether they add up), the live line.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "reflect_internal.h"

#define ROW(f, k, m, kd, u, h) \
	LR_COUNTER_U64(struct reflect_counts, f, k, m, kd, u, h),
static const struct lr_counter reflect_rows[] = {
	LR_REFLECT_COUNTERS(ROW)
};
#undef ROW

/* A task's counters and the reflect section's sums alike. */
const struct lr_counters lr_reflect_counters = LR_COUNTERS(reflect_rows);

static void
counts_json(json_t *o, const struct reflect_counts *c)
{
	lr_counters_json(o, &lr_reflect_counters, c, 0);
}

void
lr_reflect_report(const struct lr_task *t, json_t *o)
{
	const struct reflect *r = t->priv;

	counts_json(o, &r->c);
	json_object_set_new(o, "tx_port", json_integer(r->tx_port));
	if (r->delay) {
		json_object_set_new(o, "hold", json_integer(r->hold));
		json_object_set_new(o, "max_delay_ns",
				    json_integer((json_int_t)r->max_delay_ns));
	}
}

/* The "reflect" section: every reflect task's counters summed. */
void
lr_reflect_results(json_t *doc)
{
	struct reflect_counts tot;
	unsigned int it = 0, nb = 0;
	bool running = false;
	const struct lr_task *t;
	json_t *o;

	memset(&tot, 0, sizeof(tot));
	while ((t = lr_role_next(&lr_reflect_role, &it)) != NULL) {
		const struct reflect *r = t->priv;

		nb++;
		running |= lr_task_state(t) == LR_TASK_RUNNING;
#define ADD(name, ...) tot.name += r->c.name;
		LR_REFLECT_COUNTERS(ADD)
#undef ADD
	}
	if (nb == 0)
		return;
	o = json_object();
	json_object_set_new(o, "tasks", json_integer(nb));
	counts_json(o, &tot);
	/* While the lcores count, a read sees frames between two counters:
	 * the sums hold at rest. */
	json_object_set_new(o, "conserved", running ? json_null() : json_boolean(
		tot.in == tot.reflected + tot.others_reflected +
			  tot.others_dropped + tot.looped + tot.no_mbuf &&
		tot.reflected + tot.others_reflected == tot.out + tot.tx_dropped +
			  tot.over_hold + tot.held + tot.held_at_stop));
	json_object_set_new(doc, "reflect", o);
}

/* The summary line: every counter, summed over the tasks, by its JSON
 * name (it used to say "reflected 0 dropped 0" after 33 M frames were
 * dropped as not linerate's). */
void
lr_reflect_live(char *buf, size_t len)
{
	struct reflect_counts tot;
	unsigned int it = 0, nb = 0;
	const struct lr_task *t;
	size_t k = 0;
	int n;

	buf[0] = '\0';
	memset(&tot, 0, sizeof(tot));
	while ((t = lr_role_next(&lr_reflect_role, &it)) != NULL) {
		const struct reflect *r = t->priv;

		nb++;
#define ADD(name, ...) tot.name += r->c.name;
		LR_REFLECT_COUNTERS(ADD)
#undef ADD
	}
	if (nb == 0)
		return;
#define WORDS(name, key, ...) \
	if (k < len) { \
		n = snprintf(buf + k, len - k, "%s%s %" PRIu64, k ? " " : "", \
			     key, tot.name); \
		k += n > 0 ? (size_t)n : 0; \
	}
	LR_REFLECT_COUNTERS(WORDS)
#undef WORDS
}
