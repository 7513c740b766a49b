/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The capture files a port writes: a net_pcap port with tx_pcap=FILE (the
 * q-th tx_pcap is tx queue q). The PMD writes them itself with libpcap's
 * pcap_dump() and drops every error: a capture onto a full disk ended in
 * exit 0 with part of the frames in the file and the last record cut
 * (issue 35, L10). Here each file is checked when its port closes: it
 * must hold, durably, what the PMD counted as written.
 *
 * Threading: control path (main lcore), in the order the functions are
 * listed, around the port's start and close (lib/port/port.c).
 */
#ifndef LR_CAPTURE_OUT_H
#define LR_CAPTURE_OUT_H

#include <stdint.h>

/**
 * After @p port started with @p nb_txq tx queues: the files its tx queues
 * write (none: not net_pcap, or no tx_pcap), and the PMD's tx counters
 * they start from. net_pcap opens (truncates) a file at each start, while
 * its counters run on over restarts: a port set up again starts anew.
 */
void lr_capture_out_start(uint16_t port, uint16_t nb_txq);

/** Before @p port closes (its lcores are done): the counters at the end. */
void lr_capture_out_stop(uint16_t port);

/**
 * After @p port closed (the PMD closed its files): each file made durable
 * (fsync) and its size compared with what the PMD counted; then the port
 * is forgotten.
 *
 * @return 0, or a negative errno with lr_errmsg() one line naming the
 *   port, the file and the reason: fsync's error, or the file's size
 *   against the bytes written and, where it can be told, why (the file
 *   system is full: ENOSPC; the file size limit: EFBIG).
 */
int lr_capture_out_check(uint16_t port);

#endif
