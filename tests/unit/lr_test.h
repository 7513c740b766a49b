/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL for unit tests: --no-pci, --no-huge, two lcores (main + one worker),
 * and a file prefix of its own so that tests can run side by side.
 * lr_test_eal_fini() removes the runtime directory it leaves behind;
 * lr_test_teardown() also stops every task and closes every port first.
 */
#ifndef LR_TEST_H
#define LR_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>

#include "lr_engine.h"
#include "lr_port.h"

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

/* A virtual wire with default port confs, both ends set up. */
static inline int
lr_test_wire(const char *name, uint16_t wire[2])
{
	struct lr_port_conf c;

	lr_port_conf_init(&c);
	if (lr_port_wire(name, 1, SOCKET_ID_ANY, wire) != 0 ||
	    lr_port_setup(wire[0], &c) != 0 || lr_port_setup(wire[1], &c) != 0)
		return -1;
	return 0;
}

/* cmocka group teardown shared by the tests that use the engine. */
static inline int
lr_test_teardown(void **state)
{
	(void)state;
	lr_engine_cleanup();
	lr_port_close_all();
	lr_test_eal_fini();
	return 0;
}

#endif
