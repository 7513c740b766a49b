/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "lr_common.h"

static __thread char errmsg[256];
static bool stdout_binary;

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

int
lr_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	double v, mul = 1;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1e3; end++; break;
	case 'm': case 'M': mul = 1e6; end++; break;
	case 'g': case 'G': mul = 1e9; end++; break;
	default: break;
	}
	if (*end != '\0' || !isfinite(v) || v < 0)
		return -EINVAL;
	v *= mul;
	if (v >= 18446744073709551616.0 || v != floor(v))
		return -ERANGE;
	*out = (uint64_t)v;
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

int
lr_rate_parse(const char *s, struct lr_rate *r)
{
	char *end;
	double v, mul = 1;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	if (strcmp(s, "max") == 0) {
		*r = (struct lr_rate){ LR_RATE_MAX, 0 };
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1e3; end++; break;
	case 'M': mul = 1e6; end++; break;
	case 'G': mul = 1e9; end++; break;
	default: break;
	}
	v *= mul;
	if (*end == '\0' || strcmp(end, "pps") == 0)
		r->unit = LR_RATE_PPS;
	else if (strcmp(end, "bps") == 0)
		r->unit = LR_RATE_L2;
	else if (strcmp(end, "bpsl1") == 0)
		r->unit = LR_RATE_L1;
	else if (strcmp(end, "%") == 0 && mul == 1 && v <= 100)
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
