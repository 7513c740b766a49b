/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The walk of a role's counter table (lr_counter.h) into its JSON: the
 * control path's only reader of the rows' offsets.
 */
#include "lr_counter.h"

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
