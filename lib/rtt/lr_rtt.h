/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The rtt role: reflect's other end. --role rtt --port P (linerate.plan{
 * role = "rtt", ...}) lays a gen task and an rx task on each queue of P,
 * on one lcore: gen sends exactly as gen does (every gen option: gen is the
 * role's companion, lr_engine.h's `with`), a reflector sends the frames
 * back, and rx receives them on the same port and queue. Since one TSC
 * stamps both ends, rx's latency is the round-trip time; loss, reordering
 * and duplicates per flow are rx's. The rtt role itself runs no task: it
 * owns the plan, the "rtt" section of the result document (the RTT, and
 * with a stamping reflector its residence time and the RTT less it) and the
 * --samples file, one "a,b,rtt_ns" line per frame received (the solver's
 * input), with the pair's names from --pair A,B.
 *
 * Threading: control path only; the tasks are gen's and rx's.
 */
#ifndef LR_RTT_H
#define LR_RTT_H

#include <stdint.h>

#include "lr_engine.h"

#define LR_RTT_NAME_MAX 64	/**< bytes of a device name */
#define LR_RTT_PATH_MAX 256

struct lr_rtt_conf {
	char a[LR_RTT_NAME_MAX];	/**< --pair A,B: this end's device */
	char b[LR_RTT_NAME_MAX];	/**< and the reflector's */
	char samples[LR_RTT_PATH_MAX];	/**< CSV of every RTT, "": none */
	uint32_t samples_max;		/**< samples kept per queue */
};

/** The rtt role (lr_engine.h). */
extern const struct lr_role lr_rtt_role;

#endif
