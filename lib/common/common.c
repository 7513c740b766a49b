/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_errno.h>

#include "lr_common.h"

static __thread char errmsg[256];
static bool stdout_binary;
static volatile sig_atomic_t interrupted;

void
lr_interrupt(void)
{
	interrupted = 1;
}

bool
lr_interrupted(void)
{
	return interrupted != 0;
}

static void
vset(int errnum, const char *fmt, va_list ap)
{
	int n = vsnprintf(errmsg, sizeof(errmsg), fmt, ap);

	if (n >= 0 && (size_t)n < sizeof(errmsg) && errnum != 0)
		snprintf(errmsg + n, sizeof(errmsg) - n, " (%s)",
			 rte_strerror(errnum));
}

int
lr_err(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(errnum, fmt, ap);
	va_end(ap);
	return -errnum;
}

void *
lr_err_null(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(errnum, fmt, ap);
	va_end(ap);
	rte_errno = errnum;
	return NULL;
}

const char *
lr_errmsg(void)
{
	return errmsg;
}

void
lr_err_clear(void)
{
	errmsg[0] = '\0';
}

void
lr_stdout_set_binary(void)
{
	stdout_binary = true;
}

bool
lr_stdout_binary(void)
{
	return stdout_binary;
}

FILE *
lr_human_out(FILE *want)
{
	return want == stdout && stdout_binary ? stderr : want;
}

/*
 * Integers are parsed as integers, never through a double: a double holds
 * 53 bits, so 2^53 + 1 rounded and the uint64 maximum became 2^64 (out of
 * range). The grammar is strtod's decimal one less what is not an integer:
 * digits, an optional fraction, an optional exponent, then k, M or G
 * (powers of ten): "14.88M" and "1e9" are the integers they spell; "1.5" is
 * not one (-ERANGE), nor is anything past 2^64 - 1. "0x" takes hex digits.
 */
int
lr_parse_u64(const char *s, uint64_t *out)
{
	const char *p = s, *d0, *d1, *f0 = NULL, *f1 = NULL;
	char digits[64];
	size_t nd = 0, i;
	int64_t exp = 0, e = 0;
	uint64_t v = 0;
	bool eneg = false;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	if (*p == '+')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		char *end;

		if (!isxdigit((unsigned char)p[2]))
			return -EINVAL;
		errno = 0;
		v = strtoull(p + 2, &end, 16);
		if (*end != '\0')
			return -EINVAL;
		if (errno == ERANGE)
			return -ERANGE;
		*out = v;
		return 0;
	}
	d0 = p;
	while (isdigit((unsigned char)*p))
		p++;
	d1 = p;
	if (*p == '.') {
		f0 = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		f1 = p;
	}
	if (d1 == d0 && (f0 == NULL || f1 == f0))
		return -EINVAL;		/* no digit at all */
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		exp = eneg ? -e : e;
	}
	switch (*p) {
	case 'k': case 'K': exp += 3; p++; break;
	case 'm': case 'M': exp += 6; p++; break;
	case 'g': case 'G': exp += 9; p++; break;
	default: break;
	}
	if (*p != '\0')
		return -EINVAL;
	/* The significant digits, leading and trailing zeros left out (a
	 * trailing zero is a power of ten more). */
	for (; d0 < d1 && *d0 == '0'; d0++)
		;
	for (i = 0; d0 + i < d1; i++) {
		if (nd == sizeof(digits))
			return -ERANGE;
		digits[nd++] = d0[i];
	}
	if (f0 != NULL)
		for (; f0 < f1; f0++) {
			if (nd == 0 && *f0 == '0') {
				exp--;
				continue;
			}
			if (nd == sizeof(digits))
				return -ERANGE;
			digits[nd++] = *f0;
			exp--;
		}
	while (nd > 0 && digits[nd - 1] == '0') {
		nd--;
		exp++;
	}
	if (nd == 0) {
		*out = 0;
		return 0;
	}
	if (exp < 0)
		return -ERANGE;		/* a fraction left: not an integer */
	for (i = 0; i < nd; i++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(digits[i] - '0'), &v))
			return -ERANGE;
	for (; exp > 0; exp--)
		if (__builtin_mul_overflow(v, 10, &v))
			return -ERANGE;
	*out = v;
	return 0;
}

int
lr_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * A decimal number with an optional prefix k, M, G, T (powers of ten, any
 * case); *@p rest: what follows. No sign, space, hex, inf or nan (strtod()
 * takes them all: only digits, '.' and an exponent are let through).
 */
static int
parse_prefixed(const char *s, double *out, const char **rest)
{
	const char *p;
	char *end;
	double v;

	if (s == NULL || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	for (p = s; p < end; p++)
		if (!isdigit((unsigned char)*p) && *p != '.' && *p != 'e' &&
		    *p != 'E' && *p != '+' && *p != '-')
			return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v *= 1e3; end++; break;
	case 'm': case 'M': v *= 1e6; end++; break;
	case 'g': case 'G': v *= 1e9; end++; break;
	case 't': case 'T': v *= 1e12; end++; break;
	default: break;
	}
	if (!isfinite(v))
		return -EINVAL;
	*out = v;
	*rest = end;
	return 0;
}

/* Is @p u a unit of bit/s ("" included)? */
static bool
bit_unit(const char *u)
{
	return *u == '\0' || strcasecmp(u, "bps") == 0 ||
	       strcasecmp(u, "bit") == 0 || strcasecmp(u, "bit/s") == 0 ||
	       strcasecmp(u, "b/s") == 0;
}

int
lr_parse_bps(const char *s, double *bps)
{
	const char *u;
	double v;

	if (parse_prefixed(s, &v, &u) != 0 || !bit_unit(u) || v <= 0)
		return -EINVAL;
	*bps = v;
	return 0;
}

int
lr_rate_parse(const char *s, struct lr_rate *r)
{
	const char *u;
	double v;

	if (s != NULL && strcmp(s, "max") == 0) {
		*r = (struct lr_rate){ LR_RATE_MAX, 0 };
		return 0;
	}
	if (parse_prefixed(s, &v, &u) != 0)
		return -EINVAL;
	/* bps, not bit or b/s as a speed may say: a rate names its layer
	 * (bps or bpsl1), and the short word is L2's. Any case, as a
	 * speed's unit. */
	if (*u == '\0' || strcasecmp(u, "pps") == 0)
		r->unit = LR_RATE_PPS;
	else if (strcasecmp(u, "bps") == 0)
		r->unit = LR_RATE_L2;
	else if (strcasecmp(u, "bpsl1") == 0)
		r->unit = LR_RATE_L1;
	/* A percentage has no prefix: "5k%" is no share of a link. */
	else if (strcmp(u, "%") == 0 && strchr("kKmMgGtT", u[-1]) == NULL &&
		 v <= 100)
		r->unit = LR_RATE_PCT;
	else
		return -EINVAL;
	r->value = v;
	if (v == 0)
		r->unit = LR_RATE_MAX;
	return 0;
}

int
lr_rate_cost(const struct lr_rate *r, double link_bps, double *per_pkt,
	     double *per_byte)
{
	double l1_bps;

	*per_pkt = 0;
	*per_byte = 0;
	switch (r->unit) {
	case LR_RATE_MAX:
		return 0;
	case LR_RATE_PPS:
		*per_pkt = 1.0 / r->value;
		return 0;
	case LR_RATE_L2:
		*per_byte = 8.0 / r->value;
		return 0;
	case LR_RATE_L1:
		l1_bps = r->value;
		break;
	case LR_RATE_PCT:
		if (link_bps <= 0)
			return -EINVAL;
		l1_bps = link_bps * r->value / 100.0;
		break;
	default:
		return -EINVAL;
	}
	*per_byte = 8.0 / l1_bps;
	*per_pkt = 8.0 * LR_L1_EXTRA_BYTES / l1_bps;
	return 0;
}

const char *
lr_rate_str(const struct lr_rate *r, char *buf, size_t len)
{
	static const char *const units[] = {
		[LR_RATE_MAX] = "", [LR_RATE_PPS] = "pps",
		[LR_RATE_L2] = "bit/s L2", [LR_RATE_L1] = "bit/s L1",
		[LR_RATE_PCT] = "%",
	};

	if (r->unit == LR_RATE_MAX)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%.6g %s", r->value, units[r->unit]);
	return buf;
}
