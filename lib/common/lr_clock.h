/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packet times in Unix ns, for every role that stamps or reads them (the
 * probe, the distributor): one place for the TSC to Unix ns conversion and
 * for what a port's rx timestamp means.
 *
 * - struct lr_clock: one CLOCK_REALTIME reading against the TSC. Reading
 *   the wall clock per burst would cost a vDSO call; the TSC is invariant
 *   on the machines linerate runs on (doc/TESTBED), so a line from one
 *   reading holds.
 * - struct lr_clock_rx: how an rx queue's packets carry their time. A NIC
 *   with RTE_ETH_RX_OFFLOAD_TIMESTAMP stamps its device clock, taken as ns
 *   and set against Unix time once (rte_eth_read_clock); a port replaying
 *   a capture file stamps each frame with its capture time in us
 *   (LR_PORT_CAPTURE_TS_NS); any other port stamps nothing, and a packet
 *   then takes its burst's TSC time.
 *
 * A queue's struct lr_clock_rx is filled by lr_clock_rx_init() (lr_capture.h,
 * in lib/port: it asks the port), so that this header needs no port.
 *
 * Threading: the init functions are control path (lr_clock_rx_init may
 * register the rx timestamp dynfield); the conversions are pure and meant
 * for the fast path.
 */
#ifndef LR_CLOCK_H
#define LR_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

/** Unix ns from the TSC. */
struct lr_clock {
	uint64_t tsc0;		/**< TSC at the reading */
	uint64_t ns0;		/**< CLOCK_REALTIME at the reading, Unix ns */
	double ns_per_tsc;	/**< 1e9 / TSC hz */
};

/** Read the wall clock and the TSC now. Control path, after EAL init. */
void lr_clock_init(struct lr_clock *c);

/** Unix ns at TSC @p tsc (not before the reading). */
static inline uint64_t
lr_clock_ns(const struct lr_clock *c, uint64_t tsc)
{
	return c->ns0 + (uint64_t)((double)(tsc - c->tsc0) * c->ns_per_tsc);
}

/** How the packets of an rx queue carry their reception time. */
struct lr_clock_rx {
	uint64_t flag;		/**< rx timestamp dynflag; 0: no stamps */
	int offset;		/**< rx timestamp dynfield */
	uint64_t mult;		/**< stamp unit to ns: 1 (a NIC), or
				 *   LR_PORT_CAPTURE_TS_NS (a capture's us,
				 *   lr_port.h) */
	int64_t add;		/**< NIC: device clock to Unix ns; else 0 */
	/** A capture's times: every packet its own, Unix time already. */
	bool trace;
};

/** The stamp of @p m in Unix ns. Only for m->ol_flags & rx->flag. */
static inline uint64_t
lr_clock_rx_ns(const struct lr_clock_rx *rx, const struct rte_mbuf *m)
{
	return *RTE_MBUF_DYNFIELD(m, rx->offset, const uint64_t *) * rx->mult +
	       (uint64_t)rx->add;
}

/** The stamp of @p m from a capture (rx->trace): its capture time in ns,
 *  with no offset to add. */
static inline uint64_t
lr_clock_rx_trace_ns(const struct lr_clock_rx *rx, const struct rte_mbuf *m)
{
	return *RTE_MBUF_DYNFIELD(m, rx->offset, const uint64_t *) * rx->mult;
}

/** The reception time of @p m, Unix ns: its stamp when it carries one,
 *  else @p tsc_ns (its burst's TSC time). */
static inline uint64_t
lr_clock_rx_or(const struct lr_clock_rx *rx, const struct rte_mbuf *m,
	       uint64_t tsc_ns)
{
	return (m->ol_flags & rx->flag) ? lr_clock_rx_ns(rx, m) : tsc_ns;
}

#endif
