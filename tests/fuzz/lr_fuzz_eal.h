/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL for the harnesses that need DPDK (fuzz_dist, fuzz_replay,
 * fuzz_luaconf): once, in LLVMFuzzerInitialize, without PCI, hugepages or
 * shared config (--in-memory needs hugepages), a file prefix of its own
 * (any number side by side; its runtime directory removed at exit), two
 * lcores so that tasks have a worker lcore to be made on (they never
 * run there: the harnesses poll on the main lcore or start nothing).
 */
#ifndef LR_FUZZ_EAL_H
#define LR_FUZZ_EAL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "lr_engine.h"
#include "lr_port.h"
#include "lr_roles.h"

static char lr_fuzz_prefix[64];

static inline void
lr_fuzz_eal_fini(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/dpdk/%s", lr_fuzz_prefix);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove /var/run/dpdk/%s\n", lr_fuzz_prefix);
}

static inline void
lr_fuzz_eal_init(const char *name)
{
	char prefix_arg[96];
	char *argv[] = {
		(char *)name, "--no-pci", "--no-huge", "--no-shconf", "-m", "256",
		"-l", "0-1", "--log-level=lib.eal:error", "--log-level=pmd.*:error",
		"--log-level=user.lr.*:critical", prefix_arg, NULL,
	};

	snprintf(lr_fuzz_prefix, sizeof(lr_fuzz_prefix), "lr_fz_%s_%d", name,
		 (int)getpid());
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s", lr_fuzz_prefix);
	atexit(lr_fuzz_eal_fini);
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "%s: no EAL\n", name);
		exit(1);
	}
	lr_roles_builtin();
}

/*
 * A virtual wire @p name (ends wire[0], wire[1]), a worker lcore for tasks
 * to be made on, and a pool of @p mbufs of @p room data bytes without a
 * cache (its available count exact: a leak shows at once). Aborts on
 * failure: a harness without them tests nothing.
 */
static inline void
lr_fuzz_wire(const char *name, unsigned int *lcore, uint16_t wire[2],
	     struct rte_mempool **pool, unsigned int mbufs, unsigned int room)
{
	struct lr_port_conf c;
	char pname[RTE_MEMPOOL_NAMESIZE];
	unsigned int w[4];

	if (lr_engine_workers(w, 4) < 1)
		abort();
	*lcore = w[0];
	lr_port_conf_init(&c);
	if (lr_port_wire(name, 1, SOCKET_ID_ANY, wire) != 0 ||
	    lr_port_setup(wire[0], &c) != 0 || lr_port_setup(wire[1], &c) != 0)
		abort();
	snprintf(pname, sizeof(pname), "%s_pool", name);
	*pool = rte_pktmbuf_pool_create(pname, mbufs, 0, 0,
					(uint16_t)(RTE_PKTMBUF_HEADROOM + room),
					SOCKET_ID_ANY);
	if (*pool == NULL)
		abort();
}

#endif
