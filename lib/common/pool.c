/* SPDX-License-Identifier: BSD-3-Clause */
/* Mbuf pools recycled between tasks (lr_pool.h). */
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "lr_pool.h"

#define PARKED_MAX 256

static struct rte_mempool *parked[PARKED_MAX];
static unsigned int nb_parked;
static unsigned int seq;	/* names are unique for the process's life */
static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;

struct rte_mempool *
lr_pool_get(const char *prefix, unsigned int n, unsigned int cache,
	    uint16_t data_room, int socket)
{
	struct rte_mempool *mp = NULL;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int i;

	rte_spinlock_lock(&lock);
	for (i = 0; i < nb_parked; i++) {
		struct rte_mempool *p = parked[i];

		if (p->size == n && p->cache_size == cache &&
		    (socket == SOCKET_ID_ANY || p->socket_id == socket) &&
		    rte_pktmbuf_data_room_size(p) == data_room &&
		    rte_pktmbuf_priv_size(p) == 0 && rte_mempool_full(p)) {
			mp = p;
			parked[i] = parked[--nb_parked];
			break;
		}
	}
	snprintf(name, sizeof(name), "%s_%u", prefix, seq++);
	rte_spinlock_unlock(&lock);
	if (mp != NULL)
		return mp;
	return rte_pktmbuf_pool_create(name, n, cache, 0, data_room, socket);
}

void
lr_pool_put(struct rte_mempool *mp)
{
	if (mp == NULL)
		return;
	rte_spinlock_lock(&lock);
	/* Past PARKED_MAX a pool is not recycled: it lives to the end. */
	if (nb_parked < PARKED_MAX)
		parked[nb_parked++] = mp;
	rte_spinlock_unlock(&lock);
}

void
lr_pool_cleanup(void)
{
	unsigned int i, k = 0;

	rte_spinlock_lock(&lock);
	for (i = 0; i < nb_parked; i++) {
		if (rte_mempool_full(parked[i]))
			rte_mempool_free(parked[i]);
		else
			parked[k++] = parked[i];	/* mbufs still out */
	}
	nb_parked = k;
	rte_spinlock_unlock(&lock);
}
