/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_conf.c's own for the rest of lib/gen: the option table, the role's
 * conf hooks, the ranges with their defaults, the defaults of the pacing,
 * the seeded sequence, and gen's log type. Not a
 * public header (lr_gen_conf.h is).
 */
#ifndef LR_GEN_CONF_INTERNAL_H
#define LR_GEN_CONF_INTERNAL_H

#include <stdint.h>

#include "lr_gen_conf.h"
#include "lr_opt.h"

/* A stalled sender catches up at most this far by default: never an
 * unbounded burst. What it owes beyond is counted late, not hidden. */
#define GEN_CATCH_UP_S 100e-6
#define GEN_RATE_TOLERANCE 0.999
/* No tx progress this long while packets wait: the port has stopped
 * taking them (link down, memif peer gone). */
#define GEN_STALL_TIMEOUT_S 1.0

/* splitmix64: a seeded, repeatable sequence for shuffles and sizes. */
static inline uint64_t
next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* gen's log type (gen_conf.c: the lowest of gen's files, so that gen.c and
 * replay.c both log on it without reaching into each other). */
extern int lr_gen_logtype;

/* The conf's source and destination ranges, IPv6 defaults applied.
 * @return 0, or -EINVAL for mixed families (lr_errmsg says which). */
int lr_gen_ranges(const struct lr_gen_conf *c, struct lr_ip_range *src,
		  struct lr_ip_range *dst);

/* Is a frame of @p f bytes (FCS included) one gen can build under @p c
 * (IPv6 or not)? The least holds the headers, tags, linerate's header and
 * FCS. @return 0 or -EINVAL ("gen: frame size 64 B outside 68..9018 (a
 * VLAN tag and the 18 B header need 68 B)"). */
int lr_gen_frame_check(const struct lr_gen_conf *c, bool ipv6, uint32_t f);

/* gen's option table (lr_opt.h). */
extern const struct lr_opt lr_gen_opts[];

/* The role's conf hooks (struct lr_role). */
void lr_gen_conf_init_any(void *conf);
int lr_gen_conf_set_key(void *conf, const char *key, const char *val);
int lr_gen_conf_check(const void *conf);
/* The task kind's slice: queue @p q of @p nq takes its share of the flows,
 * count, bytes and rate (as the option slice=q/nq). */
void lr_gen_conf_slice(void *conf, unsigned int q, unsigned int nq);

#endif
