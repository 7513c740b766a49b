/* SPDX-License-Identifier: BSD-3-Clause */
#include <time.h>

#include <rte_cycles.h>

#include "lr_clock.h"

void
lr_clock_init(struct lr_clock *c)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	c->tsc0 = rte_rdtsc();
	c->ns0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	c->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
}
