/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Mbuf pools recycled between the tasks of a process's life. A scenario
 * that runs trial after trial (lua/rfc2544.lua, lua/device-latency.lua)
 * makes new tasks for each; without recycling every trial's generator and
 * delay box kept its pool until the process ended. A task that is done
 * parks its pool (lr_pool_put); a new task takes a parked pool of the same
 * shape once every mbuf of it has come back (rte_mempool_full), or makes a
 * new one.
 *
 * Threading: lr_pool_put may run on a worker lcore (a role's finish hook),
 * lr_pool_get on the control path; a spinlock keeps the parked list.
 */
#ifndef LR_POOL_H
#define LR_POOL_H

#include <stdint.h>

#include <rte_mempool.h>

/**
 * A pktmbuf pool of @p n mbufs of @p data_room bytes on @p socket (names
 * "PREFIX_K"): a parked one of that shape with every mbuf back, or a new
 * one. @return the pool, or NULL with rte_errno set.
 */
struct rte_mempool *lr_pool_get(const char *prefix, unsigned int n,
				unsigned int cache, uint16_t data_room,
				int socket);

/** The task is done with @p mp (NULL: nothing): parked for another. */
void lr_pool_put(struct rte_mempool *mp);

/** Free the parked pools whose mbufs are all back (at the end). */
void lr_pool_cleanup(void);

#endif
