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
 * Every frame sent is accounted for: sent = received + lost + in flight.
 * rx sees a loss only as a gap, so the frames after the last one back in
 * each flow (a reflector that went away, the last frames dropped) are
 * counted here: once every gen task of a plan has sent its last frame, rx
 * waits --drain for the rest, then ends, and what did not come back is
 * lost. A run stopped before that (Ctrl-C, a scenario's stop()) says
 * how many were in flight: sent, neither back nor known lost.
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
	char pair[2 * LR_RTT_NAME_MAX];	/**< --pair A,B: this end's device,
					 *   the reflector's; "": none */
	char samples[LR_RTT_PATH_MAX];	/**< CSV of every RTT, "": none */
	uint32_t samples_max;		/**< samples kept per queue */
	uint32_t drain_ms;		/**< after the last frame sent, rx waits
					 *   at most this long for the rest;
					 *   what is not back then is lost */
};

/** The rtt role (lr_engine.h). */
extern const struct lr_role lr_rtt_role;

#endif
