/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The rx role: receives from one (port, queue), counts packets and bytes,
 * and tells linerate's own frames (a valid struct lr_pkt_hdr after
 * Ethernet/IPv4/UDP) from foreign ones.
 *
 * Threading: as lr_gen.h.
 */
#ifndef LR_RX_H
#define LR_RX_H

#include <stdint.h>

#include "lr_engine.h"

struct lr_rx_conf {
	uint64_t count;		/**< stop after this many packets, 0: no limit */
};

void lr_rx_conf_init(struct lr_rx_conf *c);

extern const struct lr_role lr_rx_role;

/** Counters of an rx task beyond struct lr_task_stats. */
struct lr_rx_counts {
	uint64_t own;		/**< frames with a valid linerate header */
	uint64_t foreign;	/**< any other frame */
};

/** Read them (control path; a snapshot while the task runs). */
void lr_rx_counts(const struct lr_task *t, struct lr_rx_counts *out);

#endif
