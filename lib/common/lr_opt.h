/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Option tables: each option of a port or a role written once, with its
 * type, range, field, help line and example, in the spirit of DPDK's
 * kvargs and VPP's unformat tables. One parser sets a conf from key=value
 * (the CLI's --key value and Lua's conf tables alike), and the same table
 * prints --help and the option tables of doc/usage.md (a test checks that
 * the two agree).
 *
 * Threading: control path only.
 */
#ifndef LR_OPT_H
#define LR_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum lr_opt_type {
	LR_OPT_UINT,		/**< an integer field of 1, 2, 4 or 8 bytes */
	LR_OPT_BOOL,		/**< 0 or 1 into a bool */
	LR_OPT_FLAG,		/**< a switch: given (without a value on the
				 *   command line: "", or "1") sets a bool;
				 *   "0" clears it */
	LR_OPT_MS,		/**< seconds into a uint32_t of milliseconds */
	LR_OPT_FUNC,		/**< the option's own parser (set) */
	LR_OPT_STR,		/**< text into a char array of size bytes
				 *   (NUL included), min bytes long at least;
				 *   set, if any, checks it first and writes
				 *   nothing (a SPEC that parses, a path that
				 *   can be written) */
	LR_OPT_INCLUDE,		/**< the rows of table sub, for the conf at
				 *   offset (name ""): the exporter's options
				 *   inside the probe's */
};

/** Parse @p val into @p conf; @return 0 or -EINVAL with lr_errmsg(). */
typedef int (*lr_opt_set_t)(void *conf, const char *key, const char *val);

struct lr_opt {
	const char *name;	/**< the key, without "--" */
	enum lr_opt_type type;
	size_t offset;		/**< of the field in the conf */
	size_t size;		/**< of the field (LR_OPT_UINT, LR_OPT_STR) */
	uint64_t min, max;	/**< LR_OPT_UINT: range; LR_OPT_MS: max seconds;
				 *   LR_OPT_STR: min bytes */
	lr_opt_set_t set;	/**< LR_OPT_FUNC; LR_OPT_STR: its check */
	const char *arg;	/**< what follows the key in help: "N", "S" */
	const char *help;	/**< meaning, the default in parentheses */
	const char *example;	/**< examples as doc/usage.md shows them
				 *   (markdown: `--key value`), or NULL */
	const struct lr_opt *sub;	/**< LR_OPT_INCLUDE: its rows */
};

#define LR_OPT_FIELD(type, field) \
	offsetof(type, field), sizeof(((type *)0)->field)

/** The type, field, minimum length and check (NULL: none) of a row of
 *  text; the row goes on with arg, help and example. */
#define LR_OPT_STRING(type, field, min_bytes, check) \
	LR_OPT_STR, LR_OPT_FIELD(type, field), (min_bytes), 0, (check)

/** A row that takes table @p tab's options for member @p field. A row of
 *  the including table with the same name wins, in parsing and in help. */
#define LR_OPT_INCLUDE_ROW(conf_type, member, tab) \
	{ .name = "", .type = LR_OPT_INCLUDE, \
	  .offset = offsetof(conf_type, member), .sub = (tab) }

/**
 * Set option @p key of @p conf from its text @p val by table @p tab.
 * @p who names the table in errors ("port: rate '...'", "rx"); NULL: the
 * option as given ("--json ''"), for a caller that says whose it is.
 * @return 0, -ENOENT (no such key in @p tab) or -EINVAL (bad value).
 */
int lr_opt_set(const struct lr_opt *tab, void *conf, const char *who,
	       const char *key, const char *val);

/**
 * A check of LR_OPT_STR: a file written after the run can be written
 * (lr_out_check()), so that a missing directory costs no measurement.
 * @p conf is not touched. @return 0 or -EINVAL ("--key 'val': cannot
 * write: ...").
 */
int lr_opt_check_out(void *conf, const char *key, const char *val);

/**
 * The key of @p tab (and the tables it includes) nearest to @p key by edit
 * distance, if nearer than *@p dist; *@p best and *@p dist are updated.
 * For "unknown option '--ratee'; did you mean '--rate'?".
 */
void lr_opt_nearest(const struct lr_opt *tab, const char *key,
		    const char **best, unsigned int *dist);

/** Is @p key an option of @p tab (or of a table it includes)? */
bool lr_opt_has(const struct lr_opt *tab, const char *key);

/** Print "  --key ARG  help" lines for --help: the rows of @p tab, then
 *  those of @p more (NULL: none) that @p tab does not have (a role's
 *  companion's, lr_engine.h). */
void lr_opt_help(FILE *f, const struct lr_opt *tab, const struct lr_opt *more);

/** Print the rows as lr_opt_help() does, as doc/usage.md's table:
 *  | `--key ARG` | help | `example` | */
void lr_opt_markdown(FILE *f, const struct lr_opt *tab,
		     const struct lr_opt *more);

/** Print the rows as lr_opt_help() does, as a manual page's option list
 *  (man(7): .TP, the key in bold, ARG in italics, the example after). */
void lr_opt_man(FILE *f, const struct lr_opt *tab, const struct lr_opt *more);

/** Print text @p s for roff (man(7)): backslashes, hyphens and a control
 *  character at a line's start escaped, `code` in bold, UTF-8 as groff's
 *  \[uXXXX] glyphs. */
void lr_opt_roff(FILE *f, const char *s);

#endif
