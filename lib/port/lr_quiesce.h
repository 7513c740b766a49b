/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A port's memory may go while an lcore polls it: DPDK 22.11's net_memif
 * unmaps its rings from the EAL interrupt thread the moment its peer goes
 * (memif_disconnect -> memif_free_regions). It clears its CONNECTED flag
 * first, but a burst that tested the flag before is still inside the ring:
 * a DUT or a peer process killed mid-run took linerate down with SIGSEGV in
 * eth_memif_tx. Here every polling lcore is a reader of DPDK's QSBR RCU,
 * and an munmap from the interrupt thread waits (quiesce.c) until each
 * polling lcore has been between two bursts since: by then every burst
 * sees the flag cleared and returns 0.
 *
 * Threading: lr_quiesce_init() on the main lcore before lcores poll; each
 * polling lcore calls online, quiescent between its rounds of polls, and
 * offline before it stops polling (a reader left online would hold every
 * interrupt-thread munmap forever).
 */
#ifndef LR_QUIESCE_H
#define LR_QUIESCE_H

#include <rte_rcu_qsbr.h>

/** The readers' state; NULL until lr_quiesce_init(). */
extern struct rte_rcu_qsbr *lr_quiesce_v;

/** Make the readers' state for every lcore: 0 or a negative errno. */
int lr_quiesce_init(void);

/** Lcore @p id starts polling (it was registered by lr_quiesce_init). */
static inline void
lr_quiesce_online(unsigned int id)
{
	rte_rcu_qsbr_thread_online(lr_quiesce_v, id);
}

/** Lcore @p id holds no pointer into any port's memory now. */
static inline void
lr_quiesce_point(unsigned int id)
{
	rte_rcu_qsbr_quiescent(lr_quiesce_v, id);
}

/** Lcore @p id has stopped polling. */
static inline void
lr_quiesce_offline(unsigned int id)
{
	rte_rcu_qsbr_thread_offline(lr_quiesce_v, id);
}

/** Wait until every polling lcore has passed a quiescent point. */
void lr_quiesce_wait(void);

/** Grace periods munmap waited for (tests read it). */
unsigned long lr_quiesce_waits(void);

#endif
