/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU lists as sysfs writes them (a node's cpulist, cpu/isolated) and as EAL
 * takes lcores (-l, --lcores with its lcore@cpu groups).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_doctor.h"

/* One number at *@p s, below LR_DOCTOR_CPUS; *@p s moves past it. */
static int
number(const char **s, unsigned int *v)
{
	char *end;
	unsigned long n;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	n = strtoul(*s, &end, 10);
	if (n >= LR_DOCTOR_CPUS)
		return -EINVAL;
	*s = end;
	*v = (unsigned int)n;
	return 0;
}

/* "3" or "1-3" added to @p out; *@p s moves past it. @return the CPUs
 * it added, or -EINVAL. */
static int
add_range(const char **s, struct lr_doctor_cpus *out)
{
	unsigned int a, b, i;
	int n = 0;

	if (number(s, &a) < 0)
		return -EINVAL;
	b = a;
	if (**s == '-') {
		(*s)++;
		if (number(s, &b) < 0 || b < a)
			return -EINVAL;
	}
	for (i = a; i <= b; i++) {
		n += !out->on[i];
		out->on[i] = true;
	}
	return n;
}

/* "0-3,8" up to @p stop (a character, or '\0'), added to @p out. */
static int
add_list(const char **s, char stop, struct lr_doctor_cpus *out)
{
	int n = 0, k;

	while (**s != '\0' && **s != stop && **s != '\n') {
		if ((k = add_range(s, out)) < 0)
			return -EINVAL;
		n += k;
		if (**s == ',')
			(*s)++;
		else if (**s != '\0' && **s != stop && **s != '\n')
			return -EINVAL;
	}
	return n;
}

int
lr_doctor_cpulist(const char *s, struct lr_doctor_cpus *out)
{
	memset(out, 0, sizeof(*out));
	return add_list(&s, '\0', out);
}

/* A set of --lcores: "3", "1-3" or "(1-3,5)"; *@p s moves past it. */
static int
lcore_set(const char **s, struct lr_doctor_cpus *out)
{
	memset(out, 0, sizeof(*out));
	if (**s == '(') {
		(*s)++;
		if (add_list(s, ')', out) <= 0 || **s != ')')
			return -EINVAL;
		(*s)++;
		return 0;
	}
	/* An unbracketed set ends at a comma: one number or range. */
	return add_range(s, out) < 0 ? -EINVAL : 0;
}

static int
lowest(const struct lr_doctor_cpus *set)
{
	int i;

	for (i = 0; i < LR_DOCTOR_CPUS; i++)
		if (set->on[i])
			return i;
	return -1;
}

/* One pass over --lcores: the lowest lcore (@p main < 0), or the CPUs. */
static int
walk(const char *s, int *main_lcore, struct lr_doctor_cpus *workers,
     int *main_cpu)
{
	struct lr_doctor_cpus lc, cpu;
	int i, c, lo = -1;
	bool at;

	while (*s != '\0') {
		if (lcore_set(&s, &lc) < 0)
			return -EINVAL;
		at = *s == '@';
		if (at) {
			s++;
			if (lcore_set(&s, &cpu) < 0)
				return -EINVAL;
		}
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -EINVAL;
		if (lo < 0 || lowest(&lc) < lo)
			lo = lowest(&lc);
		for (i = 0; workers != NULL && i < LR_DOCTOR_CPUS; i++) {
			if (!lc.on[i])
				continue;
			/* Without @, lcore i runs on CPU i. */
			if (!at) {
				memset(&cpu, 0, sizeof(cpu));
				cpu.on[i] = true;
			}
			if (i == *main_lcore) {
				*main_cpu = lowest(&cpu);
				continue;
			}
			for (c = 0; c < LR_DOCTOR_CPUS; c++)
				if (cpu.on[c])
					workers->on[c] = true;
		}
	}
	if (lo < 0)
		return -EINVAL;
	if (*main_lcore < 0)
		*main_lcore = lo;
	return 0;
}

int
lr_doctor_lcores(const char *s, int main_lcore, struct lr_doctor_cpus *workers,
		 int *main_cpu)
{
	memset(workers, 0, sizeof(*workers));
	*main_cpu = -1;
	if (walk(s, &main_lcore, NULL, main_cpu) < 0)
		return -EINVAL;
	return walk(s, &main_lcore, workers, main_cpu);
}

char *
lr_doctor_cpulist_str(const struct lr_doctor_cpus *set, char *buf, size_t len)
{
	size_t n = 0;
	int i, j;

	buf[0] = '\0';
	for (i = 0; i < LR_DOCTOR_CPUS && n < len; i = j) {
		if (!set->on[i]) {
			j = i + 1;
			continue;
		}
		for (j = i; j < LR_DOCTOR_CPUS && set->on[j]; j++)
			;
		if (j - 1 == i)
			n += (size_t)snprintf(buf + n, len - n, "%s%d",
					      n ? "," : "", i);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%d-%d",
					      n ? "," : "", i, j - 1);
	}
	return buf;
}
