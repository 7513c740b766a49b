/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The gen role: UDP over IPv4 or IPv6, frames of 64..9018 B (one size, a
 * weighted list such as IMIX, or a random size in a range), N flows made of
 * address and port ranges, paced by the TSC. Frames are built once, in the
 * mbufs of the task's own pool; per packet only what changes is written:
 * lengths, flow fields, checksums (by incremental update) and the 18 B
 * struct lr_wire_hdr with flow id, sequence number and TX TSC.
 *
 * Its conf and tables: lr_gen_conf.h; its schedule: lr_gen_sched.h.
 *
 * Threading: lr_gen_conf_init(), lr_gen_flow_at(), lr_gen_size_table() and
 * the role's conf/init/report/free run on the control path; the task's poll
 * runs on its worker lcore.
 */
#ifndef LR_GEN_H
#define LR_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "lr_engine.h"
#include "lr_gen_conf.h"
#include "lr_gen_sched.h"

/**
 * The offered ratio: the rate achieved over the task's sending time against
 * the rate asked, in the rate's own unit (packets, L2 or L1 bits). The
 * sending time runs from when the first packet was due to the later of the
 * end of the last packet's slot (@p s->next_tsc) and @p end_tsc (when the
 * task ended, or its duration's deadline if that came first). A gen that
 * kept its schedule gives 1; each cycle it owed and did not send lowers it.
 *
 * @param s the schedule; @param end_tsc the end as above
 * @param window_tsc if not NULL, the sending time in cycles
 * @return the ratio (1 for a task never polled)
 */
double lr_gen_offered(const struct lr_gen_sched *s, uint64_t end_tsc,
		      double *window_tsc);

/**
 * Is a paced task short: its offered ratio below @p tolerance?
 * A tiny epsilon keeps a ratio of exactly the tolerance (a run that sends
 * tolerance x asked) on the right side despite rounding.
 */
bool lr_gen_is_short(double offered, double tolerance);

extern const struct lr_role lr_gen_role;

#endif
