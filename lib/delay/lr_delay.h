/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The delay role: a netem box between two ports. Frames from port A leave
 * by its peer B and frames from B leave by A, each direction with its own
 * impairments in tc-netem(8)'s words (lib/netem decides, exactly as the
 * kernel's sch_netem would). One task serves one queue pair: A's queue q
 * and B's queue q, both directions, on one lcore.
 *
 * Delayed frames are not held as mbufs: their bytes and due time go into a
 * per-direction byte ring in arrival order (16 B of header and the frame
 * rounded up to 8 B: 80 B for a 64 B frame), sized from the bandwidth-delay
 * product; a timing wheel over the jitter's span puts them back in the order
 * they are due. See doc/architecture.md, "The delay role".
 *
 * Threading: the conf functions are control path; a task's state belongs to
 * its lcore; counters are read by the main lcore while it runs.
 */
#ifndef LR_DELAY_H
#define LR_DELAY_H

#include <stdint.h>

#include "lr_engine.h"

#define LR_DELAY_SPEC_MAX 512	/**< bytes of a netem SPEC */
#define LR_DELAY_PEER_MAX 256	/**< bytes of the peer's port spec */

struct lr_delay_conf {
	char peer[LR_DELAY_PEER_MAX];	/**< port B: id, name or devargs */
	char netem[LR_DELAY_SPEC_MAX];	/**< A -> B, tc-netem(8) SPEC */
	char netem_back[LR_DELAY_SPEC_MAX];	/**< B -> A ("": none) */
	uint64_t buffer;	/**< bytes of storage per direction, 0: from
				 *   the bandwidth-delay product */
	uint32_t late_ns;	/**< a frame sent later than due by more than
				 *   this is counted late (10000) */
	double late_share;	/**< a direction with more of its frames late
				 *   than this fraction: verdict late (0.01) */
	uint64_t delay_max_ns;	/**< the greatest delay task:set{netem=} may
				 *   ask: storage and wheel sized for it;
				 *   0: no live changes */
};

/** The delay role (lr_engine.h). */
extern const struct lr_role lr_delay_role;

#endif
