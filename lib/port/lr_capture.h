/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The capture file an rx queue replays: a net_pcap port with rx_pcap=FILE
 * (the q-th rx_pcap is queue q) and no infinite_rx. The PMD returns 0
 * frames for ever after the file's end, so a task that reads such a queue
 * must be told when it has had the file, or it would run until its count or
 * duration (none: for ever). The object knows the file's frames, counted as
 * the PMD reads them, and tells the end exactly: by count, never by a guess
 * from idle time.
 *
 * The engine opens one for each rx task on such a queue (struct lr_task's
 * capture), reports and logs its end; a role's poll asks one inline call on
 * a burst that brought nothing (lr_task_capture_end(), lr_engine.h).
 *
 * Here too, what any rx queue's stamps mean (lr_clock_rx_init(), in
 * capture.c): a capture's times, a NIC's clock, or none.
 *
 * Threading: lr_capture_open(), lr_capture_tell(), lr_capture_free() and
 * lr_clock_rx_init() are control path (main lcore). lr_capture_end() runs
 * on the one lcore that polls the queue; lr_capture_ended() may be read
 * from any thread.
 */
#ifndef LR_CAPTURE_H
#define LR_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "lr_clock.h"

/** A capture file replayed by one rx queue. */
struct lr_capture {
	uint64_t frames;	/**< frames in the queue's file */
	uint64_t base;		/**< the port's consumed count at open: the
				 *   PMD's counters run on over restarts of the
				 *   port, which reopen the file */
	uint32_t max_frame;	/**< the file's longest frame (B) */
	uint32_t ended;		/**< 1 once the end was seen (atomic) */
	uint16_t port;
	uint16_t queue;
	/** The port's only rx queue: the port's counters are this queue's,
	 *  so that frames the PMD read but could not deliver (no mbuf) count
	 *  towards the end. With several queues they cannot be told apart. */
	bool alone;
	bool told;		/**< the end was logged (control path) */
};

/**
 * The capture file rx queue @p queue of set-up port @p port replays, or
 * none. Its frames are counted as the PMD reads them (libpcap's
 * pcap_next_ex() until it stops: a cut last record ends the file), with a
 * walk over the record headers of a plain pcap file (no frame bytes read).
 * Such a port stamps every frame with its capture time
 * (LR_PORT_CAPTURE_TS_NS, lr_port.h).
 *
 * @param socket NUMA socket of the object (the queue's lcore reads it)
 * @return the capture, or NULL with rte_errno: ENOENT (the queue replays no
 *   capture file: not net_pcap, no rx_pcap for it, or infinite_rx), EIO
 *   (the file cannot be read, with lr_errmsg()) or ENOMEM.
 */
struct lr_capture *lr_capture_open(uint16_t port, uint16_t queue, int socket);

/**
 * Out of line: has the queue been read to the end of its file, after
 * @p delivered frames reached its task? True when @p delivered is the
 * file's frames, or (the port's only rx queue) when the PMD has taken them
 * all, counting those it could not deliver (no mbuf). Sets c->ended.
 */
bool lr_capture_at_end(struct lr_capture *c, uint64_t delivered);

/**
 * Fast path, on a burst that brought nothing: @p c is NULL for a queue
 * that replays no capture (one well-predicted branch), else
 * lr_capture_at_end().
 */
static inline bool
lr_capture_end(struct lr_capture *c, uint64_t delivered)
{
	return unlikely(c != NULL) && lr_capture_at_end(c, delivered);
}

/** Has the end been seen (lr_capture_at_end() said so)? Any thread. */
static inline bool
lr_capture_ended(const struct lr_capture *c)
{
	return __atomic_load_n(&c->ended, __ATOMIC_ACQUIRE) != 0;
}

/**
 * Control path: log once, at NOTICE, that the file was read to its end,
 * as softflowd -r does, so that a run that ended by itself says why:
 * "end of capture: N frames", with how many the PMD could not deliver.
 *
 * @param who the reader, for the message ("rx task 3")
 * @param delivered frames that reached the reader
 * @return true when it logged now, false when it had (or the end is not
 *   seen yet).
 */
bool lr_capture_tell(struct lr_capture *c, const char *who, uint64_t delivered);

/** Control path: free @p c (NULL: nothing). */
void lr_capture_free(struct lr_capture *c);

/**
 * What the packets of @p port carry: with @p capture (the queue replays a
 * capture file: an lr_capture) the capture's times; else, when
 * the port has the rx timestamp offload and its device clock reads, the
 * NIC's stamps, set against @p c's Unix time (@p c may be NULL with
 * @p capture: a capture's times need no reading); else nothing (flag 0).
 *
 * @return 0, or -ENOMEM: a capture, and no rx timestamp dynfield to read
 *   its times from.
 */
int lr_clock_rx_init(struct lr_clock_rx *rx, uint16_t port, bool capture,
		     const struct lr_clock *c);

#endif
