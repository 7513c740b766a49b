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

#include <stdint.h>

#include <rte_common.h>

#define LR_BURST 32		/**< packets per rx/tx burst, as l3fwd */
#define LR_PREFETCH 4		/**< packets prefetched ahead in a burst */

/*
 * A frame is counted as the ESS paper's Table 1 counts it: Ethernet header,
 * payload and FCS. The mbuf holds the frame without its FCS.
 */
#define LR_FCS_BYTES 4		/**< Ethernet frame check sequence */
#define LR_L1_EXTRA_BYTES 20	/**< preamble + SFD (8) and inter-frame gap (12) */
#define LR_FRAME_MIN_BYTES 64
#define LR_FRAME_MAX_BYTES 9018	/**< MTU 9000 + 14 B header + 4 B FCS */

/** Frame bytes on the wire (FCS included) for an mbuf of @p pkt_len bytes. */
static inline uint32_t
lr_frame_bytes(uint32_t pkt_len)
{
	return pkt_len + LR_FCS_BYTES;
}

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

/** Parse a non-negative number with an optional k/M/G suffix (powers of 10). */
int lr_parse_u64(const char *s, uint64_t *out);

/** Parse a non-negative decimal number of seconds ("1.5"). */
int lr_parse_seconds(const char *s, double *out);

#endif
