/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Things every linerate library shares: burst size, frame arithmetic and the
 * error message of the last failed control-path call.
 *
 * Threading: lr_err() and lr_errmsg() belong to the control path. The message
 * buffer is per thread, so the telemetry thread and the main lcore never
 * overwrite each other's text; worker lcores never call them.
 */
#ifndef LR_COMMON_H
#define LR_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "lr_wire.h"

#define LR_BURST 32		/**< packets per rx/tx burst, as l3fwd */
#define LR_PREFETCH 4		/**< packets prefetched ahead in a burst */


/**
 * The frame that carries @p user bytes of UDP data over IPv4 (or IPv6),
 * padded to 64 B as Ethernet pads it: 18 B -> 64 B, 1472 B -> 1518 B.
 */
static inline uint32_t
lr_frame_for_user(uint32_t user, int ipv6)
{
	uint32_t f = user + (ipv6 ? LR_UDP6_OVERHEAD : LR_UDP4_OVERHEAD);

	return f < LR_FRAME_MIN_BYTES ? LR_FRAME_MIN_BYTES : f;
}

/** UDP data bytes in a frame of @p frame bytes (without padding). */
static inline uint32_t
lr_user_for_frame(uint32_t frame, int ipv6)
{
	uint32_t o = ipv6 ? LR_UDP6_OVERHEAD : LR_UDP4_OVERHEAD;

	return frame > o ? frame - o : 0;
}

/** Frames per second of @p frame bytes that fill a link of @p bps bit/s. */
static inline double
lr_line_rate_pps(double bps, uint32_t frame)
{
	return bps / (8.0 * (frame + LR_L1_EXTRA_BYTES));
}

/**
 * The share of the link that is not user data, Table 1's "overhead":
 * 1 - user / (frame + 20), e.g. 78.6 % for 18 B in a 64 B frame.
 */
static inline double
lr_overhead(uint32_t user, uint32_t frame)
{
	return 1.0 - (double)user / (double)(frame + LR_L1_EXTRA_BYTES);
}

/** How a rate is given. */
enum lr_rate_unit {
	LR_RATE_MAX = 0,	/**< as fast as the port takes */
	LR_RATE_PPS,		/**< packets per second */
	LR_RATE_L2,		/**< bit/s of frames with FCS */
	LR_RATE_L1,		/**< bit/s with preamble and gap (20 B/frame) */
	LR_RATE_PCT,		/**< percent of the link speed, at L1 */
};

struct lr_rate {
	enum lr_rate_unit unit;
	double value;
};

/**
 * Parse a rate: "0" or "max" (unlimited), "1000", "1.5Mpps" (packets/s),
 * "10Gbps" (L2 bit/s), "10Gbpsl1" (L1 bit/s), "50%" (of the link speed,
 * no prefix). The number and its prefix are read as lr_parse_bps() reads
 * them ("10G" is 10e9 here too: packets/s, a rate's bare unit).
 * @return 0 or -EINVAL.
 */
int lr_rate_parse(const char *s, struct lr_rate *r);

/**
 * Parse a speed in bit/s: a decimal number (a fraction and an exponent
 * allowed: "2.5G", "1e10"), a prefix k, M, G or T (powers of ten, any
 * case), then nothing or a unit bps, bit, bit/s or b/s (any case): "10G",
 * "10g", "10Gbps", "10000M", "100mbit" are all bit/s. No sign, no spaces,
 * no hex. One parser for every speed (port --speed, the scenarios'
 * testbed.bps() through linerate.parse_bps()) and the number of every rate
 * (lr_rate_parse()), so that "10G" is read one way.
 * @return 0 with *@p bps finite and > 0, or -EINVAL.
 */
int lr_parse_bps(const char *s, double *bps);

/**
 * Pacing cost of a rate: a frame of f bytes (FCS included) takes
 * per_pkt + per_byte * f seconds. @p link_bps is needed for LR_RATE_PCT.
 * @return 0, or -EINVAL (a percentage without a link speed).
 */
int lr_rate_cost(const struct lr_rate *r, double link_bps, double *per_pkt,
		 double *per_byte);

/** The rate as text ("1.5 Mpps", "10 Gbit/s L2", "50 %"), for messages. */
const char *lr_rate_str(const struct lr_rate *r, char *buf, size_t len);

/**
 * Record the reason of a failure for the caller's caller.
 *
 * Formats the message, appends ": <strerror(errnum)>" and keeps it for
 * lr_errmsg(). Use it where the context (port, queue, option) is known:
 *   return lr_err(EINVAL, "port %s: %u rx queues > max %u", name, n, max);
 *
 * @return -errnum, so that it can be returned directly.
 */
int lr_err(int errnum, const char *fmt, ...) __rte_format_printf(2, 3);

/** Like lr_err() for constructors: sets rte_errno, returns NULL. */
void *lr_err_null(int errnum, const char *fmt, ...) __rte_format_printf(2, 3);

/** The message of the last lr_err() on this thread, "" when none. */
const char *lr_errmsg(void);

/** Forget the last message. */
void lr_err_clear(void);

/**
 * From a signal handler (async-signal-safe): make every control-path wait
 * give up (the engine's waits, a port's wait for link up, the exporter's
 * last delivery), as Ctrl-C asks. Here, below every library that waits,
 * so that none of them reaches up to the engine for it.
 */
void lr_interrupt(void);

/** Has lr_interrupt() been called? Any thread. */
bool lr_interrupted(void);

/**
 * From now on stdout carries binary data (IPFIX to "file:-"): text for
 * people that would go there goes to stderr (lr_human_out()), and results
 * may not be written there. Control path.
 */
void lr_stdout_set_binary(void);

/** Does stdout carry binary data (lr_stdout_set_binary())? */
bool lr_stdout_binary(void);

/** Where text for people meant for @p want goes: stderr instead of a
 *  binary stdout, else @p want. */
FILE *lr_human_out(FILE *want);

/** Parse a non-negative number with an optional k/M/G suffix (powers of 10). */
int lr_parse_u64(const char *s, uint64_t *out);

/** Parse a non-negative decimal number of seconds ("1.5"). */
int lr_parse_seconds(const char *s, double *out);

#endif
