/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * munmap taken over so that a PMD's interrupt-thread teardown cannot pull
 * memory from under a polling lcore (see lr_quiesce.h). The executable
 * exports munmap (app/meson.build) so that the PMDs, which EAL dlopen()s,
 * bind to this one. glibc's own calls (malloc) do not come here: they use
 * its internal name.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "lr_quiesce.h"

struct rte_rcu_qsbr *lr_quiesce_v;
static unsigned long waits;

int
lr_quiesce_init(void)
{
	struct rte_rcu_qsbr *v;
	size_t sz;
	unsigned int l;

	if (lr_quiesce_v != NULL)
		return 0;
	sz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);
	v = rte_zmalloc("lr_quiesce", sz, RTE_CACHE_LINE_SIZE);
	if (v == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(v, RTE_MAX_LCORE) != 0) {
		rte_free(v);
		return -EINVAL;
	}
	RTE_LCORE_FOREACH_WORKER(l)
		rte_rcu_qsbr_thread_register(v, l);
	__atomic_store_n(&lr_quiesce_v, v, __ATOMIC_RELEASE);
	return 0;
}

void
lr_quiesce_wait(void)
{
	struct rte_rcu_qsbr *v = __atomic_load_n(&lr_quiesce_v, __ATOMIC_ACQUIRE);

	if (v == NULL)
		return;
	rte_rcu_qsbr_synchronize(v, RTE_QSBR_THRID_INVALID);
	__atomic_fetch_add(&waits, 1, __ATOMIC_RELAXED);
}

unsigned long
lr_quiesce_waits(void)
{
	return __atomic_load_n(&waits, __ATOMIC_RELAXED);
}

/*
 * Only the interrupt thread waits: it is where a PMD handles a peer that
 * went. The main lcore unmaps a port's memory only after the engine has
 * stopped the lcores (port close), and an lcore never waits for itself.
 */
int
munmap(void *addr, size_t len)
{
	if (rte_thread_is_intr())
		lr_quiesce_wait();
	return (int)syscall(SYS_munmap, addr, len);
}
