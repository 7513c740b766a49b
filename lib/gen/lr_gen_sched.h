/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * gen's schedule as its lcore keeps it: a struct only, read by gen.c's
 * verdict (lr_gen_offered(), lr_gen.h) and advanced by the fast path's
 * steps that gen.c and replay.c share (gen_internal.h).
 *
 * Threading: written by the task's lcore; read on the control path after.
 */
#ifndef LR_GEN_SCHED_H
#define LR_GEN_SCHED_H

#include <stdint.h>

/**
 * A paced task's schedule, in TSC cycles, as its lcore kept it: packet k is
 * due when the costs (1 / rate, or bits / rate) of the packets before it
 * have passed since the first was due. What a stall of more than the
 * catch-up bound would owe is not sent but added to late_tsc.
 */
struct lr_gen_sched {
	uint64_t first_tsc;	/**< when the first packet was due, 0: never */
	uint64_t next_tsc;	/**< when the next is due, whole cycles */
	double next_frac;	/**< and the fraction of a cycle */
	uint64_t late_tsc;	/**< schedule given up after stalls */
	double unsent_tsc;	/**< schedule of packets built, never taken */
};

#endif
