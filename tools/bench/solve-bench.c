/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/latency at scale: N devices on a ring with chords (i, i+1) and
 * (i, i+2) (2 N pairs), S samples in all, streamed pair after pair in
 * bursts; then one solve. Prints the time of a bare loop that only draws
 * the samples, of the same loop feeding the solver, and of the solve.
 *   solve-bench [DEVICES [SAMPLES [BOOT]]]   (1000 100000000 200)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lr_latency.h"

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t s = 42;

/* An RTT: the pair's base plus a cheap exponential-ish jitter. */
static inline double
sample(double base)
{
	uint64_t z = (s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z ^= z >> 27;
	return base + (double)(z >> 52) * 2.0;
}

int
main(int argc, char **argv)
{
	unsigned int nd = argc > 1 ? (unsigned int)atoi(argv[1]) : 1000;
	unsigned long long ns = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000000ULL;
	struct lr_latency_conf conf = { .boot = argc > 3 ?
		(unsigned int)atoi(argv[3]) : 200, .seed = 1 };
	struct lr_latency *lat = lr_latency_create(&conf);
	struct lr_latency_result res;
	unsigned int np = 2 * nd, i, *pid = malloc(np * sizeof(*pid));
	double *base = malloc(np * sizeof(*base)), t0, t_bare, t_add, t_solve;
	double sink = 0;
	unsigned long long k;
	char a[32], b[32];
	int ret;

	for (i = 0; i < np; i++) {
		unsigned int x = i / 2, y = (x + 1 + i % 2) % nd;

		snprintf(a, sizeof(a), "dev%u", x);
		snprintf(b, sizeof(b), "dev%u", y);
		pid[i] = (unsigned int)lr_latency_pair(lat, a, b);
		base[i] = 2000.0 * (x % 97) + 2000.0 * (y % 97) + 4000;
	}
	t0 = now();
	for (k = 0; k < ns; k++)
		sink += sample(base[(k >> 10) % np]);
	t_bare = now() - t0;
	t0 = now();
	for (k = 0; k < ns; k++)
		lr_latency_add_pair(lat, (int)pid[(k >> 10) % np],
				    sample(base[(k >> 10) % np]));
	t_add = now() - t0;
	t0 = now();
	ret = lr_latency_solve(lat, &res);
	t_solve = now() - t0;
	printf("devices %u pairs %u samples %llu boot %u: bare loop %.3f s, "
	       "feeding the solver %.2f s (%.1f ns/sample, %.1f M samples/s), "
	       "solve %.2f s; rank %u of %u, ret %d%s\n", nd, np, ns, conf.boot,
	       t_bare, t_add, t_add * 1e9 / (double)ns, (double)ns / t_add / 1e6,
	       t_solve, res.rank, res.unknowns, ret, "");
	fprintf(stderr, "(bare loop's sum %g)\n", sink);
	if (ret == 0)
		printf("dev0 mean %.1f ns ci [%.1f, %.1f]\n", res.devs[0].mean_ns,
		       res.devs[0].ci_lo_ns, res.devs[0].ci_hi_ns);
	lr_latency_result_free(&res);
	lr_latency_free(lat);
	free(pid);
	free(base);
	return ret == 0 ? 0 : 1;
}
