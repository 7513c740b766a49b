/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpu-gaps: how often a busy loop pinned to a CPU stops, and for how long:
 * what a poll-mode lcore loses to the machine (a VM's host, the kernel's
 * ticks). doc/performance.md quotes it beside the delay role's lateness.
 *
 *   cpu-gaps CPU [SECONDS=5]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <rte_cycles.h>

static uint64_t
hz(void)
{
	struct timespec a = { 0, 0 }, b;
	uint64_t t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = rte_rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 100000000L);
	t1 = rte_rdtsc();
	return (t1 - t0) * 10;
}

int
main(int argc, char **argv)
{
	uint64_t f, end, last, n10 = 0, n100 = 0, n1000 = 0, max = 0;
	cpu_set_t set;

	if (argc < 2) {
		fprintf(stderr, "usage: cpu-gaps CPU [SECONDS]\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("cpu-gaps: sched_setaffinity");
		return 1;
	}
	f = hz();
	last = rte_rdtsc();
	end = last + (uint64_t)(argc > 2 ? atof(argv[2]) : 5) * f;
	while (last < end) {
		uint64_t t = rte_rdtsc(), g = t - last;

		n10 += g > f / 100000;
		n100 += g > f / 10000;
		n1000 += g > f / 1000;
		if (g > max)
			max = g;
		last = t;
	}
	printf("cpu %s: stops > 10 us %lu, > 100 us %lu, > 1 ms %lu, longest "
	       "%.1f us\n", argv[1], (unsigned long)n10, (unsigned long)n100,
	       (unsigned long)n1000, (double)max * 1e6 / (double)f);
	return 0;
}
