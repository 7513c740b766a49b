/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>

#include "lr_common.h"
#include "lr_opt.h"
#include "lr_out.h"

/* How an error names option @p o: "gen: rate" (table @p who), or
 * "--json" for a caller that says "linerate: " itself (@p who NULL). */
static const char *
label(char *buf, size_t len, const char *who, const struct lr_opt *o)
{
	if (who == NULL)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "%s: %s", who, o->name);
	return buf;
}

/* A switch's value: 0 or 1, or false or true (a Lua boolean's text,
 * lr_lua_apply_table()). @return 0 or -EINVAL. */
static int
parse_bool(const char *val, bool *b)
{
	if (strcmp(val, "1") == 0 || strcmp(val, "true") == 0)
		*b = true;
	else if (strcmp(val, "0") == 0 || strcmp(val, "false") == 0)
		*b = false;
	else
		return -EINVAL;
	return 0;
}

static int
set_uint(const struct lr_opt *o, void *conf, const char *who, const char *val)
{
	uint8_t *field = (uint8_t *)conf + o->offset;
	uint64_t v;
	char l[80];
	bool b;

	/* A 0..1 number is a switch: it takes a boolean too. */
	if (o->min == 0 && o->max == 1 && parse_bool(val, &b) == 0)
		v = b;
	else if (lr_parse_u64(val, &v) != 0 || v < o->min || v > o->max)
		return lr_err(EINVAL, "%s '%s': want a number in %" PRIu64
			      "..%" PRIu64, label(l, sizeof(l), who, o), val,
			      o->min, o->max);
	switch (o->size) {
	case 1:
		*field = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)field = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)field = (uint32_t)v;
		break;
	default:
		*(uint64_t *)field = v;
		break;
	}
	return 0;
}

static int
set_str(const struct lr_opt *o, void *conf, const char *who, const char *val)
{
	size_t len = strlen(val);
	char l[80];
	int ret;

	if (len < o->min || len >= o->size)
		return lr_err(EINVAL, "%s '%s': want %" PRIu64 "..%zu bytes",
			      label(l, sizeof(l), who, o), val, o->min,
			      o->size - 1);
	if (o->set != NULL && (ret = o->set(conf, o->name, val)) != 0)
		return ret;
	memcpy((char *)conf + o->offset, val, len + 1);
	return 0;
}

int
lr_opt_check_out(void *conf, const char *key, const char *val)
{
	int ret = lr_out_check(val);

	RTE_SET_USED(conf);
	if (ret == 0)
		return 0;
	/* -EINVAL: -ENOENT would say the key is unknown. */
	lr_err(-ret, "--%s '%s': cannot write", key, val);
	return -EINVAL;
}

int
lr_opt_set(const struct lr_opt *tab, void *conf, const char *who,
	   const char *key, const char *val)
{
	const struct lr_opt *o;
	double secs;
	char l[80];
	bool b;

	for (o = tab; o->name != NULL; o++) {
		if (o->type == LR_OPT_INCLUDE) {
			int ret = lr_opt_set(o->sub, (uint8_t *)conf + o->offset,
					     who, key, val);

			if (ret != -ENOENT)
				return ret;
			continue;
		}
		if (strcmp(o->name, key) == 0)
			break;
	}
	if (o->name == NULL)
		return -ENOENT;
	switch (o->type) {
	case LR_OPT_UINT:
		return set_uint(o, conf, who, val);
	case LR_OPT_BOOL:
		if (parse_bool(val, &b) != 0)
			return lr_err(EINVAL, "%s '%s': want 0 or 1",
				      label(l, sizeof(l), who, o), val);
		*(bool *)((uint8_t *)conf + o->offset) = b;
		return 0;
	case LR_OPT_FLAG:
		b = true;
		if (val[0] != '\0' && parse_bool(val, &b) != 0)
			return lr_err(EINVAL, "%s takes no value",
				      label(l, sizeof(l), who, o));
		*(bool *)((uint8_t *)conf + o->offset) = b;
		return 0;
	case LR_OPT_MS:
		if (lr_parse_seconds(val, &secs) != 0 || secs > (double)o->max)
			return lr_err(EINVAL, "%s '%s': want seconds in 0..%"
				      PRIu64, label(l, sizeof(l), who, o), val,
				      o->max);
		*(uint32_t *)((uint8_t *)conf + o->offset) = (uint32_t)(secs * 1000);
		return 0;
	case LR_OPT_FUNC:
		return o->set(conf, key, val);
	case LR_OPT_STR:
		return set_str(o, conf, who, val);
	case LR_OPT_INCLUDE:
		break;
	}
	return -ENOENT;
}

/* @p s in a markdown table cell: '|' escaped. */
static void
put_cell(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

#define HELP_INDENT 20
#define HELP_WIDTH 79

/* @p s for a terminal: backquotes left out, words wrapped at HELP_WIDTH
 * under HELP_INDENT. */
static void
put_wrapped(FILE *f, const char *s)
{
	size_t col = HELP_INDENT, w;

	while (*s != '\0') {
		while (*s == ' ')
			s++;
		w = strcspn(s, " ");
		if (col > HELP_INDENT && col + 1 + w > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_INDENT, "");
			col = HELP_INDENT;
		} else if (col > HELP_INDENT) {
			fputc(' ', f);
			col++;
		}
		for (; w > 0; w--, s++)
			if (*s != '`') {
				fputc(*s, f);
				col++;
			}
	}
}

/* Is @p name a row of @p outer's own (the including table's)? */
static bool
shadowed(const struct lr_opt *outer, const char *name)
{
	const struct lr_opt *o;

	for (o = outer; o != NULL && o->name != NULL; o++)
		if (o->type != LR_OPT_INCLUDE && strcmp(o->name, name) == 0)
			return true;
	return false;
}

bool
lr_opt_has(const struct lr_opt *tab, const char *key)
{
	const struct lr_opt *o;

	for (o = tab; o->name != NULL; o++)
		if (o->type == LR_OPT_INCLUDE ? lr_opt_has(o->sub, key) :
		    strcmp(o->name, key) == 0)
			return true;
	return false;
}

typedef void (*row_fn)(FILE *f, const struct lr_opt *o);

/* Each row of @p tab as a user sees it, in order: a table it includes in
 * its place, less the rows the including table (@p outer) has itself;
 * none that table @p skip has. */
static void
each_row(FILE *f, const struct lr_opt *tab, const struct lr_opt *outer,
	 const struct lr_opt *skip, row_fn fn)
{
	const struct lr_opt *o;

	for (o = tab; o->name != NULL; o++) {
		if (o->type == LR_OPT_INCLUDE)
			each_row(f, o->sub, tab, skip, fn);
		else if (!shadowed(outer, o->name) &&
			 (skip == NULL || !lr_opt_has(skip, o->name)))
			fn(f, o);
	}
}

static void
each_row_more(FILE *f, const struct lr_opt *tab, const struct lr_opt *more,
	      row_fn fn)
{
	each_row(f, tab, NULL, NULL, fn);
	if (more != NULL)
		each_row(f, more, NULL, tab, fn);
}

static void
help_row(FILE *f, const struct lr_opt *o)
{
	char k[40];

	snprintf(k, sizeof(k), "--%s%s%s", o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
	/* A key that leaves less than two spaces before the text column:
	 * its help on the next line (one space reads as part of the key,
	 * "--stall-timeout S end the task"). */
	if (strlen(k) > HELP_INDENT - 4)
		fprintf(f, "  %s\n%*s", k, HELP_INDENT, "");
	else
		fprintf(f, "  %-*s", HELP_INDENT - 2, k);
	put_wrapped(f, o->help);
	fputc('\n', f);
}

void
lr_opt_help(FILE *f, const struct lr_opt *tab, const struct lr_opt *more)
{
	each_row_more(f, tab, more, help_row);
}

static void
markdown_row(FILE *f, const struct lr_opt *o)
{
	fprintf(f, "| `--%s%s", o->name, o->arg ? " " : "");
	put_cell(f, o->arg ? o->arg : "");
	fputs("` | ", f);
	put_cell(f, o->help);
	fputs(" | ", f);
	if (o->example != NULL)
		put_cell(f, o->example);
	fputs(" |\n", f);
}

void
lr_opt_markdown(FILE *f, const struct lr_opt *tab, const struct lr_opt *more)
{
	fputs("| option | meaning (default) | example |\n| --- | --- | --- |\n", f);
	each_row_more(f, tab, more, markdown_row);
}

/* The code point of the UTF-8 sequence at @p s and its length in *@p n;
 * a byte that starts no valid sequence is U+FFFD, one byte long. */
static uint32_t
utf8_at(const unsigned char *s, size_t *n)
{
	uint32_t c = s[0];
	size_t len = c < 0xc0 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf8 ? 4 : 0;
	size_t i;

	*n = 1;
	if (len == 0)
		return 0xfffd;
	c &= 0x3f >> (len - 1);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0xfffd;
		c = c << 6 | (s[i] & 0x3f);
	}
	*n = len;
	return c;
}

void
lr_opt_roff(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	bool line_start = true, bold = false;
	size_t n;

	for (; *u != '\0'; u += n) {
		n = 1;
		/* A control character at a line's start would be a request. */
		if (line_start && (*u == '.' || *u == '\''))
			fputs("\\&", f);
		line_start = *u == '\n';
		if (*u == '\\')
			fputs("\\e", f);
		else if (*u == '-')	/* an option's ASCII hyphen, not a dash */
			fputs("\\-", f);
		else if (*u == '`') {
			fputs(bold ? "\\fR" : "\\fB", f);
			bold = !bold;
		} else if (*u >= 0x80)
			/* groff reads Latin-1 unless told: µ and × by name. */
			fprintf(f, "\\[u%04" PRIX32 "]", utf8_at(u, &n));
		else
			fputc(*u, f);
	}
	if (bold)
		fputs("\\fR", f);
}

static void
man_row(FILE *f, const struct lr_opt *o)
{
	fputs(".TP\n\\fB", f);
	lr_opt_roff(f, "--");
	lr_opt_roff(f, o->name);
	fputs("\\fR", f);
	if (o->arg != NULL) {
		fputs(" \\fI", f);
		lr_opt_roff(f, o->arg);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	lr_opt_roff(f, o->help);
	fputc('\n', f);
	if (o->example != NULL) {
		fputs(".br\nExample: ", f);
		lr_opt_roff(f, o->example);
		fputc('\n', f);
	}
}

void
lr_opt_man(FILE *f, const struct lr_opt *tab, const struct lr_opt *more)
{
	each_row_more(f, tab, more, man_row);
}

/* Levenshtein distance of two short keys (longer ones count as far). */
static unsigned int
edits(const char *a, const char *b)
{
	unsigned int row[33], i, j, prev, cur;
	size_t la = strlen(a), lb = strlen(b);

	if (la > 32 || lb > 32)
		return UINT32_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = RTE_MIN(RTE_MIN(row[j] + 1, row[j - 1] + 1),
					 prev + (a[i - 1] != b[j - 1]));
			prev = cur;
		}
	}
	return row[lb];
}

void
lr_opt_nearest(const struct lr_opt *tab, const char *key, const char **best,
	       unsigned int *dist)
{
	const struct lr_opt *o;
	unsigned int d;

	for (o = tab; o->name != NULL; o++) {
		if (o->type == LR_OPT_INCLUDE) {
			lr_opt_nearest(o->sub, key, best, dist);
			continue;
		}
		d = edits(o->name, key);
		if (d < *dist) {
			*dist = d;
			*best = o->name;
		}
	}
}
