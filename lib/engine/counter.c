/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The walk of a role's counter table (lr_counter.h) into its JSON, the
 * control path's only reader of the rows' offsets; and every registered
 * role's tables as JSON (linerate --counters-json), which the schema's
 * test checks doc/schema against.
 */
#include <errno.h>
#include <stdio.h>

#include "lr_counter.h"
#include "lr_engine.h"

void
lr_counters_json(json_t *o, const struct lr_counters *c, const void *base,
		 unsigned int when)
{
	const char *b = base;
	unsigned int i;

	for (i = 0; i < c->nb; i++) {
		const struct lr_counter *r = &c->rows[i];

		if (r->key == NULL || (r->when != 0 && (r->when & when) == 0))
			continue;
		switch (r->type) {
		case LR_COUNTER_TYPE_U64:
			json_object_set_new(o, r->key, json_integer(
				(json_int_t)lr_counter_u64(r, base)));
			break;
		case LR_COUNTER_TYPE_I64:
			json_object_set_new(o, r->key, json_integer(
				(json_int_t)*(const int64_t *)(const void *)(b + r->off)));
			break;
		case LR_COUNTER_TYPE_REAL:
			json_object_set_new(o, r->key, json_real(
				*(const double *)(const void *)(b + r->off)));
			break;
		case LR_COUNTER_TYPE_PUT:
			r->put(o, r, base);
			break;
		case LR_COUNTER_TYPE_CODE:
			break;
		}
	}
}

const char *
lr_counter_kind_name(enum lr_counter_kind k)
{
	switch (k) {
	case LR_COUNTER_COUNTER:
		return "counter";
	case LR_COUNTER_GAUGE:
		return "gauge";
	case LR_COUNTER_HISTOGRAM:
		return "histogram";
	default:
		return "none";
	}
}

static const char *
type_name(enum lr_counter_type t)
{
	static const char *const names[] = {
		[LR_COUNTER_TYPE_U64] = "u64", [LR_COUNTER_TYPE_I64] = "i64",
		[LR_COUNTER_TYPE_REAL] = "real", [LR_COUNTER_TYPE_PUT] = "put",
		[LR_COUNTER_TYPE_CODE] = "code",
	};

	return names[t];
}

/* A chain of tables as a JSON array, one object a table. */
static json_t *
tables_json(const struct lr_counters *c)
{
	json_t *a = json_array();
	unsigned int i;

	for (; c != NULL; c = c->next) {
		json_t *t = json_object(), *rows = json_array(), *dirs = json_null();

		if (c->dirs != NULL) {
			dirs = json_array();
			for (i = 0; c->dirs[i] != NULL; i++)
				json_array_append_new(dirs, json_string(c->dirs[i]));
		}
		for (i = 0; i < c->nb; i++) {
			const struct lr_counter *r = &c->rows[i];

			if (r->key == NULL)
				continue;
			json_array_append_new(rows, json_pack(
				"{s:s, s:s, s:o, s:s, s:s, s:s, s:i}",
				"key", r->key, "type", type_name(r->type),
				"metric", r->metric ? json_string(r->metric) : json_null(),
				"kind", lr_counter_kind_name(r->kind),
				"unit", r->unit ? r->unit : "",
				"help", r->help ? r->help : "", "when", (int)r->when));
		}
		json_object_set_new(t, "dirs", dirs);
		json_object_set_new(t, "rows", rows);
		json_array_append_new(a, t);
	}
	return a;
}

int
lr_counters_dump(FILE *f)
{
	json_t *doc = json_object(), *roles = json_object();
	const struct lr_role *r;
	unsigned int i;
	int ret;

	json_object_set_new(doc, "task", tables_json(&lr_task_counters));
	for (i = 0; (r = lr_role_at(i)) != NULL; i++)
		json_object_set_new(roles, r->name, json_pack("{s:o, s:o}",
			"task", tables_json(r->task ? r->task->counters : NULL),
			"section", tables_json(r->report ? r->report->results_counters : NULL)));
	json_object_set_new(doc, "roles", roles);
	ret = json_dumpf(doc, f, JSON_INDENT(1));
	fputc('\n', f);
	json_decref(doc);
	return ret == 0 && !ferror(f) ? 0 : -EIO;
}
