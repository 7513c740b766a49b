/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What a role counts, named once: a table of rows, each a value of the
 * role's report with its JSON key, where it is read from, its Prometheus
 * metric (name, kind), its unit and its help text. The task's JSON, the
 * /metrics families (lib/engine/metrics.c walks the registered roles'
 * tables), doc/usage.md's table of metrics (linerate --metrics-md) and the
 * check of doc/schema come from the tables. A new counter is one row.
 *
 * The rows point into a struct of the role's own: its per-lcore counters
 * (plain uint64_t fields the fast path writes as ever) or a snapshot its
 * report fills on the control path. A table is read on the control path
 * only: the fast path never sees it.
 *
 * A role's X-macro of counters X(field, key, metric, kind, unit, help)
 * becomes its struct's fields and its table's rows alike:
 *
 *	#define ROW(f, k, m, kd, u, h) \
 *		LR_COUNTER_U64(struct my_counts, f, k, m, kd, u, h),
 *	static const struct lr_counter my_rows[] = { MY_COUNTERS(ROW) };
 */
#ifndef LR_COUNTER_H
#define LR_COUNTER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <jansson.h>

/** What a row is to Prometheus. */
enum lr_counter_kind {
	LR_COUNTER_NONE,	/**< in the document only */
	LR_COUNTER_COUNTER,	/**< only grows while the process runs */
	LR_COUNTER_GAUGE,	/**< a value now */
	LR_COUNTER_HISTOGRAM,	/**< an lr_hist_json() object of ns */
};

/** How a row's value is read and written. */
enum lr_counter_type {
	LR_COUNTER_TYPE_U64,	/**< uint64_t at off: a JSON integer */
	LR_COUNTER_TYPE_I64,	/**< int64_t at off: a JSON integer */
	LR_COUNTER_TYPE_REAL,	/**< double at off: a JSON real */
	LR_COUNTER_TYPE_PUT,	/**< put() writes it (a value derived from
				 *   others, with what explains a null) */
	LR_COUNTER_TYPE_CODE,	/**< written by the role's code beside the
				 *   table (an object: a histogram, a nested
				 *   count): the walk leaves it; key may be
				 *   dotted ("parsed.ok") */
};

struct lr_counter;

/** Write @p row's value, read from @p base, to @p o under row->key. */
typedef void (*lr_counter_put_t)(json_t *o, const struct lr_counter *row,
				 const void *base);

/** A row: one value of a role's report. */
struct lr_counter {
	const char *key;		/**< JSON key in its object */
	enum lr_counter_type type;
	size_t off;			/**< offset in the struct walked */
	lr_counter_put_t put;		/**< LR_COUNTER_TYPE_PUT's writer */
	/** 0: written always; else a bit of the walk's @p when (gen's
	 *  pacing rows exist for a paced gen only). */
	unsigned int when;
	/** The metric without "linerate_", NULL: none. A counter's ends
	 *  in _total, and the units are Prometheus' base units. */
	const char *metric;
	enum lr_counter_kind kind;
	const char *unit;		/**< "frames", "bytes", "ns", "s", "ratio", ... */
	const char *help;		/**< a sentence: the metric's HELP */
};

/**
 * A table: the rows of one object of a report. A task kind points at its
 * own (struct lr_task_kind's counters), a plan at its section's
 * (struct lr_plan's results_counters).
 */
struct lr_counters {
	const struct lr_counter *rows;
	unsigned int nb;
	/** NULL: the rows are keys of the report itself; else the objects
	 *  of the report that hold them, NULL-terminated, each a value of
	 *  the metrics' "direction" label (the delay box's "forward" and
	 *  "back"). */
	const char *const *dirs;
	/** The next table of the same report (a task's counters over two
	 *  structs, the probe's cache and its own), or NULL. */
	const struct lr_counters *next;
};

/** A table of the array @p a. */
#define LR_COUNTERS(a) { .rows = (a), .nb = sizeof(a) / sizeof((a)[0]) }

/** A row of field @p f of struct @p t, of type LR_COUNTER_TYPE_@p type_,
 *  written when @p w (0: always). */
#define LR_COUNTER_ROW(type_, t, f, k, w, m, kd, u, h) \
	{ .key = (k), .type = LR_COUNTER_TYPE_##type_, .off = offsetof(t, f), \
	  .when = (w), .metric = (m), .kind = LR_COUNTER_##kd, .unit = (u), \
	  .help = (h) }
/** A row of uint64_t field @p f of struct @p t (an X-macro's row). */
#define LR_COUNTER_U64(t, f, k, m, kd, u, h) LR_COUNTER_ROW(U64, t, f, k, 0, m, kd, u, h)
#define LR_COUNTER_I64(t, f, k, m, kd, u, h) LR_COUNTER_ROW(I64, t, f, k, 0, m, kd, u, h)
#define LR_COUNTER_REAL(t, f, k, m, kd, u, h) LR_COUNTER_ROW(REAL, t, f, k, 0, m, kd, u, h)
/** A row written by @p fn (lr_counter_put_t) from the struct walked. */
#define LR_COUNTER_PUT(fn, k, m, kd, u, h) \
	{ .key = (k), .type = LR_COUNTER_TYPE_PUT, .put = (fn), .metric = (m), \
	  .kind = LR_COUNTER_##kd, .unit = (u), .help = (h) }
/** A row the role's code writes beside the walk. */
#define LR_COUNTER_CODE(k, m, kd, u, h) \
	{ .key = (k), .type = LR_COUNTER_TYPE_CODE, .metric = (m), \
	  .kind = LR_COUNTER_##kd, .unit = (u), .help = (h) }

/**
 * Write the rows of @p c (not of c->next) read from @p base to @p o, in
 * the table's order: those whose when is 0 or a bit of @p when. Rows
 * without a key and LR_COUNTER_TYPE_CODE rows are left to the caller.
 * Control path.
 */
void lr_counters_json(json_t *o, const struct lr_counters *c, const void *base,
		      unsigned int when);

/** The value of a uint64_t row @p r of @p base. */
static inline uint64_t
lr_counter_u64(const struct lr_counter *r, const void *base)
{
	return *(const uint64_t *)(const void *)((const char *)base + r->off);
}

/**
 * Every registered role's tables as one JSON document (linerate
 * --counters-json): {"task": every task's tables, "roles": {NAME: {"task":
 * its kind's, "section": its section's}}}, each table {"dirs", "rows": [{key,
 * type, metric, kind, unit, help, when}]}. @return 0 or -EIO.
 */
int lr_counters_dump(FILE *f);

/** "counter", "gauge", "histogram" or "none". */
const char *lr_counter_kind_name(enum lr_counter_kind k);

/** The task report's counters every task has (struct lr_task_stats and
 *  the task's duration), before its kind's: engine.c. */
extern const struct lr_counters lr_task_counters;

#endif
