/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL for unit tests: --no-pci, --no-huge, two lcores (main + one worker),
 * and a file prefix of its own so that tests can run side by side.
 * lr_test_eal_fini() removes the runtime directory it leaves behind.
 */
#ifndef LR_TEST_EAL_H
#define LR_TEST_EAL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>

static char lr_test_prefix[64];

static inline int
lr_test_eal_init(const char *name)
{
	char prefix_arg[96];
	char *argv[] = {
		(char *)name, "--no-pci", "--no-huge", "-m", "256", "-l", "0-1",
		"--log-level=lib.eal:error", "--log-level=user.lr.*:error",
		prefix_arg, NULL,
	};

	snprintf(lr_test_prefix, sizeof(lr_test_prefix), "lr_ut_%s_%d", name,
		 (int)getpid());
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s", lr_test_prefix);
	return rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0 ?
	       -1 : 0;
}

static inline void
lr_test_eal_fini(void)
{
	char cmd[160];

	rte_eal_cleanup();
	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/dpdk/%s", lr_test_prefix);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove /var/run/dpdk/%s\n", lr_test_prefix);
}

#endif
