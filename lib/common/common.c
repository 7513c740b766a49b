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
