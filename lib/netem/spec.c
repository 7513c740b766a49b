/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tc-netem(8)'s grammar, with iproute2 6.x's q_netem.c rules: keywords
 * matched by prefix in tc's order, optional numbers taken only when the
 * next word starts with a digit, tc's units (get_time64, get_rate64,
 * get_size, get_percent with rint), tc's defaults and implied values, and
 * the kernel's own checks and caps (netem_change(), get_slot()).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lr_common.h"
#include "lr_netem.h"

#define MAX_WORDS 128

struct parser {
	const char *spec;
	const char *buf;	/* spec's copy that w[] points into */
	char *w[MAX_WORDS];
	int n;
	char *err;
	size_t errlen;
};

/*
 * An error names the SPEC, the reason and the word, in that order, and is
 * never cut in its reason: the callers put it after their own words in a
 * message of 256 bytes (lr_errmsg()). So it keeps to about 200 bytes: a
 * SPEC longer than ECHO_MAX is shown around the word at fault, and a run
 * of more than LONG_MAX_BYTES non-blanks (a file's path, a garbage word)
 * in the reason keeps its two ends; the reasons themselves are short.
 */
#define REASON_MAX 112
#define ECHO_MAX 64
#define LONG_MAX_BYTES 40
#define LONG_KEEP 18

/* @p in with every run of non-blanks over LONG_MAX_BYTES shortened to its
 * ends around "...". */
static void
shorten_runs(const char *in, char *out, size_t len)
{
	size_t at = 0;

	while (*in != '\0' && at + 1 < len) {
		size_t run = strcspn(in, " ");

		if (run > LONG_MAX_BYTES) {
			int n = snprintf(out + at, len - at, "%.*s...%.*s",
					 LONG_KEEP, in, LONG_KEEP,
					 in + run - LONG_KEEP);

			at += n > 0 ? RTE_MIN((size_t)n, len - at - 1) : 0;
			in += run;
			continue;
		}
		out[at++] = *in++;
	}
	out[at] = '\0';
}

/* The SPEC as an error shows it: whole when short, else ECHO_MAX bytes
 * around word @p i (its start, or the end for a word past the last). */
static void
echo(const struct parser *p, int i, char *out, size_t len)
{
	size_t n = strlen(p->spec), off, from, to;
	char win[ECHO_MAX + 1];

	if (n <= ECHO_MAX) {
		shorten_runs(p->spec, out, len);
		return;
	}
	off = i >= 0 && i < p->n && p->buf != NULL ?
	      (size_t)(p->w[i] - p->buf) : n;
	from = off > ECHO_MAX / 2 ? off - ECHO_MAX / 2 : 0;
	to = RTE_MIN(n, from + ECHO_MAX);
	if (to - from < ECHO_MAX)
		from = to > ECHO_MAX ? to - ECHO_MAX : 0;
	snprintf(win, sizeof(win), "%.*s", (int)(to - from), p->spec + from);
	shorten_runs(win, out + (from > 0 ? 3 : 0), len - 6);
	if (from > 0)
		memcpy(out, "...", 3);
	if (to < n)
		strcat(out, "...");
}

static int
fail(struct parser *p, int i, const char *fmt, ...)
{
	char msg[1024], why[REASON_MAX], shown[ECHO_MAX + 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	shorten_runs(msg, why, sizeof(why));
	echo(p, i, shown, sizeof(shown));
	if (p->err != NULL && p->errlen > 0)
		snprintf(p->err, p->errlen, "netem: '%s': %s (word %d)",
			 shown, why, i + 1);
	return -EINVAL;
}

/* iproute2's matches(): @p w is a non-empty prefix of @p key. */
static bool
matches(const char *w, const char *key)
{
	if (*w == '\0')
		return false;
	while (*key && *w == *key) {
		w++;
		key++;
	}
	return *w == '\0';
}

static bool
next_is_number(const struct parser *p, int i)
{
	return i + 1 < p->n && isdigit((unsigned char)p->w[i + 1][0]);
}

static bool
next_is_signed_number(const struct parser *p, int i)
{
	return i + 1 < p->n && (isdigit((unsigned char)p->w[i + 1][0]) ||
				p->w[i + 1][0] == '-');
}

/* get_time64(): a double with s/ms/us/ns (and their long forms); none is
 * nanoseconds. */
static int
get_time64(int64_t *t, const char *s)
{
	static const struct {
		const char *name;
		double scale;
	} units[] = {
		{ "s", 1e9 }, { "sec", 1e9 }, { "secs", 1e9 },
		{ "ms", 1e6 }, { "msec", 1e6 }, { "msecs", 1e6 },
		{ "us", 1e3 }, { "usec", 1e3 }, { "usecs", 1e3 },
		{ "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	};
	double v;
	char *end;
	size_t k;

	v = strtod(s, &end);
	if (end == s)
		return -1;
	if (*end) {
		for (k = 0; k < RTE_DIM(units); k++)
			if (strcasecmp(end, units[k].name) == 0)
				break;
		if (k == RTE_DIM(units))
			return -1;
		v *= units[k].scale;
	}
	/* 2^62 ns (146 years) at most: the draws add a jitter times a table
	 * value (< 2^47) and a transmission time to it in int64_t. */
	if (!isfinite(v) || fabs(v) >= 4.6e18)
		return -1;
	*t = (int64_t)v;
	return 0;
}

int
lr_netem_parse_time(const char *s, int64_t *ns)
{
	return get_time64(ns, s) == 0 ? 0 : -EINVAL;
}

/* parse_percent() + set_percent(): "30%" or "30" is 0.3, kept as
 * rint(0.3 * UINT32_MAX). 1 out of [0, 100] %, -1 malformed. */
static int
parse_percent(double *v, const char *s)
{
	char *end;

	*v = strtod(s, &end) / 100.;
	if (isnan(*v))
		return -1;
	if (*v > 1.0 || *v < 0.0)
		return 1;
	if (*end && strcmp(end, "%") != 0)
		return -1;
	return 0;
}

static lr_netem_prob_t
set_percent(double v)
{
	return (lr_netem_prob_t)rint(v * UINT32_MAX);
}

static int
get_percent(lr_netem_prob_t *pr, const char *s)
{
	double v;

	if (parse_percent(&v, s) != 0)
		return -1;
	*pr = set_percent(v);
	return 0;
}

/* get_size(): bytes with k/m/g (1024s) and kbit/mbit/gbit suffixes. */
static int
get_size(uint32_t *out, const char *s)
{
	double sz;
	char *end;

	sz = strtod(s, &end);
	if (end == s)
		return -1;
	if (*end) {
		if (strcasecmp(end, "kb") == 0 || strcasecmp(end, "k") == 0)
			sz *= 1024;
		else if (strcasecmp(end, "gb") == 0 || strcasecmp(end, "g") == 0)
			sz *= 1024 * 1024 * 1024;
		else if (strcasecmp(end, "gbit") == 0)
			sz *= 1024 * 1024 * 1024 / 8;
		else if (strcasecmp(end, "mb") == 0 || strcasecmp(end, "m") == 0)
			sz *= 1024 * 1024;
		else if (strcasecmp(end, "mbit") == 0)
			sz *= 1024 * 1024 / 8;
		else if (strcasecmp(end, "kbit") == 0)
			sz *= 1024 / 8;
		else if (strcasecmp(end, "b") != 0)
			return -1;
	}
	/* tc: "detect if an overflow happened" */
	if (!(sz >= 0) || sz >= 4294967296.0)
		return -1;
	*out = (uint32_t)sz;
	if ((double)*out != floor(sz))
		return -1;
	return 0;
}

/* get_rate64(): bit/s with tc's suffixes, kept as bytes/s. */
static int
get_rate64(uint64_t *rate, const char *s)
{
	static const struct {
		const char *name;
		double scale;
	} sfx[] = {
		{ "bit", 1. }, { "Kibit", 1024. }, { "kbit", 1000. },
		{ "mibit", 1024. * 1024. }, { "mbit", 1000000. },
		{ "gibit", 1024. * 1024. * 1024. }, { "gbit", 1000000000. },
		{ "tibit", 1024. * 1024. * 1024. * 1024. },
		{ "tbit", 1000000000000. },
		{ "Bps", 8. }, { "KiBps", 8. * 1024. }, { "KBps", 8000. },
		{ "MiBps", 8. * 1024 * 1024 }, { "MBps", 8000000. },
		{ "GiBps", 8. * 1024. * 1024. * 1024. },
		{ "GBps", 8000000000. },
		{ "TiBps", 8. * 1024. * 1024. * 1024. * 1024. },
		{ "TBps", 8000000000000. },
	};
	double bps;
	char *end;
	size_t k;

	bps = strtod(s, &end);
	if (end == s)
		return -1;
	if (*end) {
		for (k = 0; k < RTE_DIM(sfx); k++)
			if (strcasecmp(sfx[k].name, end) == 0)
				break;
		if (k == RTE_DIM(sfx))
			return -1;
		bps *= sfx[k].scale;
	}
	bps /= 8;
	if (!(bps >= 0) || bps >= 1.8e19)
		return -1;
	*rate = (uint64_t)bps;
	return 0;
}

static int
get_u32(uint32_t *v, const char *s, int base)
{
	unsigned long long r;
	char *end;

	if (*s == '\0')
		return -1;
	errno = 0;
	r = strtoull(s, &end, base);
	if (end == s || *end || errno == ERANGE || r > 0xffffffffULL)
		return -1;
	*v = (uint32_t)r;
	return 0;
}

static int
get_s32(int32_t *v, const char *s, int base)
{
	long long r;
	char *end;

	if (*s == '\0')
		return -1;
	errno = 0;
	r = strtoll(s, &end, base);
	if (end == s || *end || errno == ERANGE || r > INT32_MAX ||
	    r < INT32_MIN)
		return -1;
	*v = (int32_t)r;
	return 0;
}

static int
get_u64(uint64_t *v, const char *s)
{
	unsigned long long r;
	char *end;

	if (*s == '\0')
		return -1;
	errno = 0;
	r = strtoull(s, &end, 10);
	if (end == s || *end || errno == ERANGE)
		return -1;
	*v = r;
	return 0;
}

/* tc's get_distribution(), ours: "uniform" is the kernel's default (no
 * table; tc itself would look for uniform.dist and fail). */
static int
load_dist(struct parser *p, int i, struct lr_netem_dist **d, bool slot)
{
	const char *name = p->w[i];

	lr_netem_dist_free(*d);
	*d = NULL;
	if (strcmp(name, "uniform") == 0) {
		if (slot)
			return fail(p, i, "slot distribution 'uniform' has no "
				    "table (use slot MIN MAX)");
		return 0;
	}
	*d = lr_netem_dist_load(name);
	if (*d == NULL) {
		const char *m = lr_errmsg();

		if (strncmp(m, "netem: ", 7) == 0)
			m += 7;
		return fail(p, i, "%s", m);
	}
	return 0;
}

#define NEXT_ARG() do {							\
	if (i + 1 >= p->n)						\
		return fail(p, i, "'%s' needs an argument", p->w[i]);	\
	i++;								\
} while (0)

struct state {
	int64_t latency64, jitter64;
	bool corr_present;
	lr_netem_prob_t dup_corr;
	bool loss_typed;	/* loss state / gemodel given */
	int dist_word, reorder_word, gap_word, slot_word;
};

static int
parse_loss(struct parser *p, int *ip, struct lr_netem_conf *c,
	   struct state *st)
{
	int i = *ip;
	double v;

	if (c->loss > 0 || st->loss_typed)
		return fail(p, i, "duplicate loss argument");
	NEXT_ARG();
	if (isdigit((unsigned char)p->w[i][0]) || strcmp(p->w[i], "random") == 0) {
		if (!isdigit((unsigned char)p->w[i][0]))
			NEXT_ARG();
		if (get_percent(&c->loss, p->w[i]))
			return fail(p, i, "bad loss percent '%s'", p->w[i]);
		if (next_is_number(p, i)) {
			NEXT_ARG();
			st->corr_present = true;
			if (get_percent(&c->loss_corr, p->w[i]))
				return fail(p, i, "bad loss correlation '%s'",
					    p->w[i]);
		}
	} else if (strcmp(p->w[i], "state") == 0) {
		static const char *const names[] = { "p31", "p32", "p23", "p14" };
		lr_netem_prob_t *dst[] = { &c->a2, &c->a3, &c->a5, &c->a4 };
		int k;

		NEXT_ARG();
		if (parse_percent(&v, p->w[i]))
			return fail(p, i, "bad loss p13 '%s'", p->w[i]);
		c->loss_model = LR_NETEM_LOSS_4STATE;
		st->loss_typed = true;
		c->a1 = set_percent(v);		/* p13 */
		c->a2 = set_percent(1. - v);	/* p31 */
		c->a3 = set_percent(0);		/* p32 */
		c->a5 = set_percent(1.);	/* p23 */
		c->a4 = set_percent(0);		/* p14 */
		for (k = 0; k < 4 && next_is_number(p, i); k++) {
			NEXT_ARG();
			if (get_percent(dst[k], p->w[i]))
				return fail(p, i, "bad loss %s '%s'", names[k],
					    p->w[i]);
		}
	} else if (strcmp(p->w[i], "gemodel") == 0) {
		NEXT_ARG();
		if (parse_percent(&v, p->w[i]))
			return fail(p, i, "bad loss gemodel p '%s'", p->w[i]);
		c->loss_model = LR_NETEM_LOSS_GEMODEL;
		st->loss_typed = true;
		c->a1 = set_percent(v);		/* p */
		c->a2 = set_percent(1. - v);	/* r */
		c->a3 = set_percent(0);		/* h */
		c->a4 = set_percent(0);		/* 1-k */
		if (next_is_number(p, i)) {
			NEXT_ARG();
			if (get_percent(&c->a2, p->w[i]))
				return fail(p, i, "bad loss gemodel r '%s'",
					    p->w[i]);
		}
		if (next_is_number(p, i)) {
			NEXT_ARG();
			if (get_percent(&c->a3, p->w[i]))
				return fail(p, i, "bad loss gemodel 1-h '%s'",
					    p->w[i]);
			/* tc's word is 1-h, the kernel keeps h */
			c->a3 = UINT32_MAX - c->a3;
		}
		if (next_is_number(p, i)) {
			NEXT_ARG();
			if (get_percent(&c->a4, p->w[i]))
				return fail(p, i, "bad loss gemodel 1-k '%s'",
					    p->w[i]);
		}
	} else {
		return fail(p, i, "unknown loss parameter '%s'", p->w[i]);
	}
	*ip = i;
	return 0;
}

static int
parse_slot(struct parser *p, int *ip, struct lr_netem_conf *c)
{
	int i = *ip;
	uint32_t bytes;
	int rc;

	if (next_is_number(p, i)) {
		NEXT_ARG();
		c->slot = true;
		if (get_time64(&c->slot_min_ns, p->w[i]))
			return fail(p, i, "bad slot min_delay '%s'", p->w[i]);
		if (next_is_number(p, i)) {
			NEXT_ARG();
			if (get_time64(&c->slot_max_ns, p->w[i]) ||
			    c->slot_max_ns < c->slot_min_ns)
				return fail(p, i, "bad slot max_delay '%s'",
					    p->w[i]);
		} else {
			c->slot_max_ns = c->slot_min_ns;
		}
	} else {
		NEXT_ARG();
		if (strcmp(p->w[i], "distribution") != 0)
			return fail(p, i, "unknown slot parameter '%s'",
				    p->w[i]);
		c->slot = true;
		NEXT_ARG();
		rc = load_dist(p, i, &c->slot_dist, true);
		if (rc)
			return rc;
		NEXT_ARG();
		if (get_time64(&c->slot_dist_delay_ns, p->w[i]))
			return fail(p, i, "bad slot delay '%s'", p->w[i]);
		NEXT_ARG();
		if (get_time64(&c->slot_dist_jitter_ns, p->w[i]))
			return fail(p, i, "bad slot jitter '%s'", p->w[i]);
		if (c->slot_dist_jitter_ns <= 0)
			return fail(p, i, "non-positive slot jitter '%s'",
				    p->w[i]);
	}
	if (i + 1 < p->n && matches(p->w[i + 1], "packets")) {
		NEXT_ARG();
		if (i + 1 >= p->n || get_s32(&c->slot_max_packets, p->w[i + 1], 0))
			return fail(p, i + 1 < p->n ? i + 1 : i,
				    "bad slot packets");
		NEXT_ARG();
	}
	if (i + 1 < p->n && matches(p->w[i + 1], "bytes")) {
		NEXT_ARG();
		if (i + 1 >= p->n || get_size(&bytes, p->w[i + 1]))
			return fail(p, i + 1 < p->n ? i + 1 : i,
				    "bad slot bytes");
		c->slot_max_bytes = (int32_t)bytes;
		NEXT_ARG();
	}
	*ip = i;
	return 0;
}

static int
parse_words(struct parser *p, struct lr_netem_conf *c)
{
	struct state st = { .dist_word = -1, .reorder_word = -1,
			    .gap_word = -1, .slot_word = -1 };
	const char *w;
	int i, rc;

	for (i = 0; i < p->n; i++) {
		w = p->w[i];
		/* ours first, whole words only */
		if (strcmp(w, "no-reorder") == 0) {
			c->no_reorder = true;
		} else if (strcmp(w, "jitter-ar1") == 0) {
			c->ar1 = true;
		} else if (matches(w, "limit")) {
			NEXT_ARG();
			if (get_size(&c->limit, p->w[i]))
				return fail(p, i, "bad limit '%s'", p->w[i]);
			c->limit_given = true;
		} else if (matches(w, "latency") || matches(w, "delay")) {
			NEXT_ARG();
			if (get_time64(&st.latency64, p->w[i]))
				return fail(p, i, "bad time '%s'", p->w[i]);
			if (st.latency64 < 0)
				return fail(p, i, "negative latency '%s'",
					    p->w[i]);
			if (next_is_number(p, i)) {
				NEXT_ARG();
				if (get_time64(&st.jitter64, p->w[i]))
					return fail(p, i, "bad time '%s'",
						    p->w[i]);
				if (next_is_number(p, i)) {
					NEXT_ARG();
					st.corr_present = true;
					if (get_percent(&c->delay_corr, p->w[i]))
						return fail(p, i, "bad delay "
							    "correlation '%s'",
							    p->w[i]);
				}
			}
		} else if (matches(w, "loss") || matches(w, "drop")) {
			rc = parse_loss(p, &i, c, &st);
			if (rc)
				return rc;
		} else if (matches(w, "seed")) {
			NEXT_ARG();
			if (get_u64(&c->seed, p->w[i]))
				return fail(p, i, "bad seed '%s'", p->w[i]);
			c->seed_given = true;
		} else if (matches(w, "ecn")) {
			return fail(p, i, "ecn is not supported (no ECN marking)");
		} else if (matches(w, "reorder")) {
			st.reorder_word = i;
			NEXT_ARG();
			if (get_percent(&c->reorder, p->w[i]))
				return fail(p, i, "bad reorder percent '%s'",
					    p->w[i]);
			if (next_is_number(p, i)) {
				NEXT_ARG();
				st.corr_present = true;
				if (get_percent(&c->reorder_corr, p->w[i]))
					return fail(p, i, "bad reorder "
						    "correlation '%s'", p->w[i]);
			}
		} else if (matches(w, "corrupt")) {
			NEXT_ARG();
			if (get_percent(&c->corrupt, p->w[i]))
				return fail(p, i, "bad corrupt percent '%s'",
					    p->w[i]);
			if (next_is_number(p, i)) {
				NEXT_ARG();
				st.corr_present = true;
				if (get_percent(&c->corrupt_corr, p->w[i]))
					return fail(p, i, "bad corrupt "
						    "correlation '%s'", p->w[i]);
			}
		} else if (matches(w, "gap")) {
			st.gap_word = i;
			NEXT_ARG();
			if (get_u32(&c->gap, p->w[i], 0))
				return fail(p, i, "bad gap '%s'", p->w[i]);
		} else if (matches(w, "duplicate")) {
			NEXT_ARG();
			if (get_percent(&c->duplicate, p->w[i]))
				return fail(p, i, "bad duplicate percent '%s'",
					    p->w[i]);
			if (next_is_number(p, i)) {
				NEXT_ARG();
				/* tc does not count this one as present */
				if (get_percent(&st.dup_corr, p->w[i]))
					return fail(p, i, "bad duplicate "
						    "correlation '%s'", p->w[i]);
			}
		} else if (matches(w, "distribution")) {
			NEXT_ARG();
			rc = load_dist(p, i, &c->delay_dist, false);
			if (rc)
				return rc;
			st.dist_word = i;
		} else if (matches(w, "rate")) {
			NEXT_ARG();
			if (strchr(p->w[i], '%') != NULL)
				return fail(p, i, "rate in %% of a device's "
					    "speed needs a device: '%s'", p->w[i]);
			if (get_rate64(&c->rate_Bps, p->w[i]))
				return fail(p, i, "bad rate '%s'", p->w[i]);
			if (next_is_signed_number(p, i)) {
				NEXT_ARG();
				if (get_s32(&c->packet_overhead, p->w[i], 0))
					return fail(p, i, "bad packet overhead "
						    "'%s'", p->w[i]);
			}
			if (next_is_number(p, i)) {
				NEXT_ARG();
				if (get_u32(&c->cell_size, p->w[i], 0))
					return fail(p, i, "bad cell size '%s'",
						    p->w[i]);
			}
			if (next_is_signed_number(p, i)) {
				NEXT_ARG();
				if (get_s32(&c->cell_overhead, p->w[i], 0))
					return fail(p, i, "bad cell overhead "
						    "'%s'", p->w[i]);
			}
		} else if (matches(w, "slot")) {
			st.slot_word = i;
			rc = parse_slot(p, &i, c);
			if (rc)
				return rc;
		} else {
			return fail(p, i, "what is '%s'?", w);
		}
	}

	/* tc's checks after the words */
	if (c->reorder) {
		if (st.latency64 == 0)
			return fail(p, st.reorder_word, "reordering not "
				    "possible without specifying some delay");
		if (c->gap == 0)
			c->gap = 1;
	} else if (c->gap > 0) {
		return fail(p, st.gap_word, "gap specified without reorder "
			    "probability");
	}
	if (st.dist_word >= 0 && (st.latency64 == 0 || st.jitter64 == 0))
		return fail(p, st.dist_word, "distribution specified but no "
			    "latency and jitter values");
	/* TCA_NETEM_CORR goes only with a delay, loss, reorder or corrupt
	 * correlation: without it the kernel's dup_corr stays 0 */
	if (st.corr_present)
		c->dup_corr = st.dup_corr;
	/* netem_change(): jitter capped to what tabledist() takes */
	c->latency_ns = st.latency64;
	c->jitter_ns = st.jitter64 < 0 ? -st.jitter64 : st.jitter64;
	if (c->jitter_ns > INT32_MAX)
		c->jitter_ns = INT32_MAX;
	if (c->slot) {
		if (c->slot_max_packets < 0 || c->slot_max_bytes < 0)
			return fail(p, st.slot_word, "negative slot limit");
		if (c->slot_min_ns < 0 || c->slot_max_ns < 0 ||
		    c->slot_dist_delay_ns < 0)
			return fail(p, st.slot_word, "negative slot delay");
		if (c->slot_max_packets == 0)
			c->slot_max_packets = INT32_MAX;
		if (c->slot_max_bytes == 0)
			c->slot_max_bytes = INT32_MAX;
		if (c->slot_dist_jitter_ns > INT32_MAX)
			c->slot_dist_jitter_ns = INT32_MAX;
	}
	return 0;
}

static void
conf_defaults(struct lr_netem_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->limit = 1000;
	c->slot_max_packets = INT32_MAX;
	c->slot_max_bytes = INT32_MAX;
}

int
lr_netem_parse(const char *spec, struct lr_netem_conf *c, char *err,
	       size_t errlen)
{
	struct parser p = { .spec = spec, .err = err, .errlen = errlen };
	struct lr_netem_conf t;
	char *buf, *save = NULL, *tok;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	conf_defaults(c);
	if (spec == NULL)
		spec = p.spec = "";
	buf = strdup(spec);
	if (buf == NULL)
		return -ENOMEM;
	p.buf = buf;
	for (tok = strtok_r(buf, " \t\r\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (p.n == MAX_WORDS) {
			free(buf);
			return fail(&p, p.n, "more than %d words", MAX_WORDS);
		}
		p.w[p.n++] = tok;
	}
	if (p.n == 0 || (p.n == 1 && strcmp(p.w[0], "none") == 0)) {
		free(buf);
		return 0;
	}
	conf_defaults(&t);
	rc = parse_words(&p, &t);
	free(buf);
	p.buf = NULL;
	if (rc) {
		lr_netem_conf_free(&t);
		return rc;
	}
	*c = t;
	return 0;
}

void
lr_netem_conf_free(struct lr_netem_conf *c)
{
	lr_netem_dist_free(c->delay_dist);
	lr_netem_dist_free(c->slot_dist);
	c->delay_dist = NULL;
	c->slot_dist = NULL;
}

bool
lr_netem_conf_is_none(const struct lr_netem_conf *c)
{
	bool loss = c->loss_model != LR_NETEM_LOSS_RANDOM || c->loss != 0;

	/* "limit 0" is not nothing: sch_netem drops a frame when qlen >=
	 * limit, so it drops every one. */
	return c->latency_ns == 0 && c->jitter_ns == 0 && !loss &&
	       c->duplicate == 0 && c->corrupt == 0 && c->gap == 0 &&
	       c->rate_Bps == 0 && !c->slot &&
	       !(c->limit_given && c->limit == 0);
}

/* A time in the largest unit that keeps it whole. */
static const char *
fmt_time(int64_t ns, char *b, size_t len)
{
	if (ns != 0 && ns % 1000000000 == 0)
		snprintf(b, len, "%" PRId64 "s", ns / 1000000000);
	else if (ns != 0 && ns % 1000000 == 0)
		snprintf(b, len, "%" PRId64 "ms", ns / 1000000);
	else if (ns != 0 && ns % 1000 == 0)
		snprintf(b, len, "%" PRId64 "us", ns / 1000);
	else
		snprintf(b, len, "%" PRId64 "ns", ns);
	return b;
}

static const char *
fmt_pct(lr_netem_prob_t v, char *b, size_t len)
{
	snprintf(b, len, "%.9g%%", 100. * (double)v / UINT32_MAX);
	return b;
}

struct out {
	char *buf;
	size_t len, at;
};

static void __rte_format_printf(2, 3)
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->at >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->at += (size_t)n;
}

void
lr_netem_conf_format(const struct lr_netem_conf *c, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	char a[32], b[32], d[32];

	if (len == 0)
		return;
	buf[0] = '\0';
	if (lr_netem_conf_is_none(c)) {
		put(&o, "none");
		if (c->limit_given)
			put(&o, " limit %u", c->limit);
		return;
	}
	if (c->latency_ns || c->jitter_ns) {
		put(&o, " delay %s", fmt_time(c->latency_ns, a, sizeof(a)));
		if (c->jitter_ns) {
			put(&o, " %s", fmt_time(c->jitter_ns, b, sizeof(b)));
			if (c->delay_corr)
				put(&o, " %s", fmt_pct(c->delay_corr, d,
						       sizeof(d)));
		}
		if (c->delay_dist != NULL)
			put(&o, " distribution %s", c->delay_dist->name);
	}
	switch (c->loss_model) {
	case LR_NETEM_LOSS_RANDOM:
		if (c->loss) {
			put(&o, " loss random %s", fmt_pct(c->loss, a, sizeof(a)));
			if (c->loss_corr)
				put(&o, " %s", fmt_pct(c->loss_corr, b,
						       sizeof(b)));
		}
		break;
	case LR_NETEM_LOSS_4STATE:
		put(&o, " loss state %s", fmt_pct(c->a1, a, sizeof(a)));
		put(&o, " %s", fmt_pct(c->a2, a, sizeof(a)));
		put(&o, " %s", fmt_pct(c->a3, a, sizeof(a)));
		put(&o, " %s", fmt_pct(c->a5, a, sizeof(a)));
		put(&o, " %s", fmt_pct(c->a4, a, sizeof(a)));
		break;
	case LR_NETEM_LOSS_GEMODEL:
		put(&o, " loss gemodel %s", fmt_pct(c->a1, a, sizeof(a)));
		put(&o, " %s", fmt_pct(c->a2, a, sizeof(a)));
		put(&o, " %s", fmt_pct(UINT32_MAX - c->a3, a, sizeof(a)));
		put(&o, " %s", fmt_pct(c->a4, a, sizeof(a)));
		break;
	}
	if (c->duplicate) {
		put(&o, " duplicate %s", fmt_pct(c->duplicate, a, sizeof(a)));
		if (c->dup_corr)
			put(&o, " %s", fmt_pct(c->dup_corr, b, sizeof(b)));
	}
	if (c->corrupt) {
		put(&o, " corrupt %s", fmt_pct(c->corrupt, a, sizeof(a)));
		if (c->corrupt_corr)
			put(&o, " %s", fmt_pct(c->corrupt_corr, b, sizeof(b)));
	}
	if (c->gap) {
		put(&o, " reorder %s", fmt_pct(c->reorder, a, sizeof(a)));
		if (c->reorder_corr)
			put(&o, " %s", fmt_pct(c->reorder_corr, b, sizeof(b)));
		put(&o, " gap %u", c->gap);
	}
	if (c->rate_Bps) {
		put(&o, " rate %" PRIu64 "bit", c->rate_Bps * 8);
		if (c->packet_overhead || c->cell_size || c->cell_overhead)
			put(&o, " %d %u %d", c->packet_overhead, c->cell_size,
			    c->cell_overhead);
	}
	if (c->slot) {
		if (c->slot_dist != NULL)
			put(&o, " slot distribution %s %s %s", c->slot_dist->name,
			    fmt_time(c->slot_dist_delay_ns, a, sizeof(a)),
			    fmt_time(c->slot_dist_jitter_ns, b, sizeof(b)));
		else
			put(&o, " slot %s %s",
			    fmt_time(c->slot_min_ns, a, sizeof(a)),
			    fmt_time(c->slot_max_ns, b, sizeof(b)));
		if (c->slot_max_packets != INT32_MAX)
			put(&o, " packets %d", c->slot_max_packets);
		if (c->slot_max_bytes != INT32_MAX)
			put(&o, " bytes %d", c->slot_max_bytes);
	}
	if (c->limit_given)
		put(&o, " limit %u", c->limit);
	if (c->seed_given)
		put(&o, " seed %" PRIu64, c->seed);
	if (c->no_reorder)
		put(&o, " no-reorder");
	if (c->ar1)
		put(&o, " jitter-ar1");
	/* drop the leading blank */
	if (buf[0] == ' ')
		memmove(buf, buf + 1, strlen(buf));
}

void
lr_netem_delay_bounds(const struct lr_netem_conf *c, int64_t *min_ns,
		      int64_t *max_ns)
{
	int64_t mu = c->latency_ns;
	int32_t sigma = (int32_t)c->jitter_ns;
	int16_t tmin = INT16_MAX, tmax = INT16_MIN;
	uint32_t k;

	if (sigma == 0) {
		*min_ns = *max_ns = mu;
		return;
	}
	if (c->delay_dist == NULL) {
		/* rnd % 2 sigma in [0, 2 sigma - 1] */
		*min_ns = mu - sigma;
		*max_ns = mu + sigma - 1;
		return;
	}
	for (k = 0; k < c->delay_dist->size; k++) {
		if (c->delay_dist->table[k] < tmin)
			tmin = c->delay_dist->table[k];
		if (c->delay_dist->table[k] > tmax)
			tmax = c->delay_dist->table[k];
	}
	/* tabledist() grows with the table's value */
	*min_ns = (int64_t)(sigma % LR_NETEM_DIST_SCALE) * tmin;
	*min_ns += *min_ns >= 0 ? LR_NETEM_DIST_SCALE / 2 :
		   -LR_NETEM_DIST_SCALE / 2;
	*min_ns = *min_ns / LR_NETEM_DIST_SCALE +
		  (int64_t)(sigma / LR_NETEM_DIST_SCALE) * tmin + mu;
	*max_ns = (int64_t)(sigma % LR_NETEM_DIST_SCALE) * tmax;
	*max_ns += *max_ns >= 0 ? LR_NETEM_DIST_SCALE / 2 :
		   -LR_NETEM_DIST_SCALE / 2;
	*max_ns = *max_ns / LR_NETEM_DIST_SCALE +
		  (int64_t)(sigma / LR_NETEM_DIST_SCALE) * tmax + mu;
}
