/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The process's one IPFIX exporter: the RFC 7011 encoder (lr_ipfix.h)
 * over the transport its destination names (file, udp, tcp or none), fed
 * by the metering tasks through single-producer rings it drains itself,
 * with pacing, delivery at the end, counters and the exit check.
 *
 * Threading: producers (a probe task's lcore) only enqueue struct
 * lr_flow_rec into the ring lr_exporter_ring() gave them. Every other call
 * is for the main lcore. The exporter drains the rings, paces and
 * reconnects from two places: lr_exporter_poll() (the probe's tick hook,
 * while the main lcore waits or sleeps) and an EAL alarm on the interrupt
 * thread every millisecond, so that export goes on while a script computes
 * or blocks. One lock makes them take turns: the rings are single-consumer
 * and only the lock's holder dequeues. The alarm only tries the lock and
 * skips a turn while the main lcore holds it (delivering at the end holds
 * it for up to export-wait seconds). The lock is never on a worker's path.
 */
#ifndef LR_EXPORTER_H
#define LR_EXPORTER_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "lr_ipfix.h"
#include "lr_opt.h"

struct rte_ring;

#define LR_EXPORTER_TO_MAX 256
#define LR_EXPORTER_BUFFER (16u << 20)	/**< IPFIX waiting for a TCP
					 *   collector or for the UDP pace */
/** UDP export pace, messages a second: about 50,000 records/s, 18 Mbit/s
 *  at the default MTU. nfcapd on loopback (default 208 KiB socket buffer)
 *  kept all 16384 flows of probe-flows.lua at 2000 and at 8000 with two CPU
 *  hogs beside it on this 2-CPU machine, and 4594 of them unpaced: 2000
 *  leaves a 4x margin for a collector on a shared host. */
#define LR_EXPORTER_RATE 2000
#define LR_EXPORTER_WAIT_S 10		/**< end of run: delivery bound */

struct lr_exporter_conf {
	char to[LR_EXPORTER_TO_MAX];	/**< udp:HOST:PORT, tcp:HOST:PORT,
					 *   file:PATH (RFC 5655) or none */
	uint32_t rate_mps;		/**< UDP messages a second, 0: unpaced
					 *   (LR_EXPORTER_RATE) */
	uint32_t wait_s;		/**< when the tasks stop, what waits for
					 *   the collector or the pace gets this
					 *   long, then is dropped and counted
					 *   lost (LR_EXPORTER_WAIT_S) */
	size_t buffer_bytes;		/**< messages that may wait in the
					 *   transport (LR_EXPORTER_BUFFER) */
	struct lr_ipfix_conf ipfix;	/**< domain, MTU, template timing, ns,
					 *   biflow */
};

void lr_exporter_conf_init(struct lr_exporter_conf *c);

/**
 * Set one option as the CLI and Lua give it: export, export-rate,
 * export-wait, biflow, ns, domain, ipfix-mtu, template-every,
 * template-period. A collector's port and host form are checked here (a
 * bad option, before EAL); names are resolved by lr_exporter_open().
 *
 * @return 0, -EINVAL (lr_errmsg() says why) or -ENOENT (not an exporter
 *   option).
 */
/** The export options as a table (lr_opt.h), for the probe's. */
extern const struct lr_opt lr_exporter_opts[];

int lr_exporter_conf_set(struct lr_exporter_conf *c, const char *key,
			 const char *val);

/**
 * Open the exporter, or join it when it is open with the same
 * destination, biflow, ns and (UDP) rate. Each open is one user; the last
 * lr_exporter_close() closes it.
 *
 * @return 0, -EINVAL (a different conf, a bad MTU, a collector that does
 *   not resolve), -ENOMEM, or the transport's -errno; lr_errmsg() says why.
 */
int lr_exporter_open(const struct lr_exporter_conf *c);

/**
 * One user is done. The last one sends what the encoder holds, gives the
 * transport up to wait_s to deliver (lr_exporter_deliver()) and closes it;
 * its lost records, and a close that failed (a file whose last writes the
 * file system refused late), still count in lr_exporter_check().
 */
void lr_exporter_close(void);

/**
 * A ring of @p records (rounded up to a power of two) struct lr_flow_rec
 * on @p socket, for one producer, drained by the exporter.
 *
 * @return the ring, or NULL with rte_errno and lr_errmsg().
 */
struct rte_ring *lr_exporter_ring(unsigned int records, int socket);

/** Bytes of a record in the rings: a struct lr_flow_rec_app when the
 *  exporter sends the flow extensions' fields (its conf's apps or xtra), else a
 *  struct lr_flow_rec. For the open exporter. */
size_t lr_exporter_rec_bytes(void);

/** Drain what @p r still holds into the exporter and free it. */
void lr_exporter_ring_free(struct rte_ring *r);

/**
 * Drain the rings, send what the pace or a reconnect allows, and send a
 * half-full message once a second. Bounded work, never waits.
 */
void lr_exporter_poll(void);

/**
 * Add one record straight to the messages (the main lcore's own records:
 * flows still cached when the tasks have stopped).
 *
 * @return 0, or the transport's error for an earlier message, whose
 *   records the exporter counts lost: this record is in the exporter.
 */
int lr_exporter_add(const struct lr_flow_rec *r);

/**
 * Send the statistics record (lr_ipfix_stats()): packets the metering
 * ignored (@p ignored) and lost before it (@p dropped), records it could
 * not hand on (@p not_sent).
 */
int lr_exporter_stats(uint64_t ignored, uint64_t dropped, uint64_t not_sent);

/**
 * The end of a run: drain the rings, send the message being built, and
 * give what waits in the transport up to wait_s (cut short by
 * lr_interrupt()); what still waits then is dropped, counted lost,
 * and said on stderr. The results read after it are final.
 */
void lr_exporter_deliver(void);

/** Is the exporter open? */
bool lr_exporter_up(void);

/** Data records delivered so far (0 when closed). */
uint64_t lr_exporter_records(void);

/** Add "to" and the counters (with the transport's own) to @p o. */
void lr_exporter_report(json_t *o);

/**
 * After the tasks have stopped: did the exporter deliver every record it
 * was given, over every open and close of the process? For the
 * application's exit status.
 *
 * @return 0, or -EIO with lr_errmsg() saying how many records were lost
 *   and where to (records_lost in the result document), or that closing
 *   the transport failed.
 */
int lr_exporter_check(void);

#endif
