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

#include "lr_engine.h"

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

#endif
