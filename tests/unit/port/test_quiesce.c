/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMD's teardown on the interrupt thread against a polling lcore, the
 * way DPDK 22.11's net_memif does it when its peer goes: clear the
 * connected flag, then munmap the rings. The lcore tests the flag and then
 * spends a "burst" of 200 us inside the memory. Without lib/port/quiesce.c
 * the munmap lands inside a burst and the lcore dies of SIGSEGV; with it,
 * the munmap waits until the lcore is between two bursts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "lr_quiesce.h"
#include "../lr_test.h"

#define REGION (64 * 1024)

static uint8_t *region;
static int connected;
static int unmapped;
static int stop;
static uint64_t bursts;

static int
poller(void *arg)
{
	unsigned int self = rte_lcore_id();
	uint64_t sum = 0;

	(void)arg;
	lr_quiesce_online(self);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		lr_quiesce_point(self);
		if (!__atomic_load_n(&connected, __ATOMIC_ACQUIRE))
			continue;
		/* One burst: in the memory for 200 us. */
		volatile uint8_t *r = region;
		uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 5000;
		unsigned int i = 0;

		while (rte_rdtsc() < end)
			sum += r[(i++ * 64) % REGION];
		__atomic_fetch_add(&bursts, 1, __ATOMIC_RELAXED);
	}
	lr_quiesce_offline(self);
	return (int)(sum & 0);
}

/* On the interrupt thread, as memif_disconnect runs there. */
static void
peer_gone(void *arg)
{
	(void)arg;
	__atomic_store_n(&connected, 0, __ATOMIC_RELEASE);
	munmap(region, REGION);
	__atomic_store_n(&unmapped, 1, __ATOMIC_RELEASE);
}

static void
munmap_waits_for_the_poller(void **state)
{
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	unsigned long waits0 = lr_quiesce_waits();
	int round;

	(void)state;
	assert_int_equal(lr_quiesce_init(), 0);
	assert_true(worker < RTE_MAX_LCORE);
	for (round = 0; round < 20; round++) {
		uint64_t b;

		region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(region != MAP_FAILED);
		__atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&unmapped, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&connected, 1, __ATOMIC_RELEASE);
		b = __atomic_load_n(&bursts, __ATOMIC_RELAXED);
		assert_int_equal(rte_eal_remote_launch(poller, NULL, worker), 0);
		/* The poller is in its bursts before the peer goes. */
		while (__atomic_load_n(&bursts, __ATOMIC_RELAXED) < b + 2)
			rte_pause();
		assert_int_equal(rte_eal_alarm_set(1, peer_gone, NULL), 0);
		while (!__atomic_load_n(&unmapped, __ATOMIC_ACQUIRE))
			rte_delay_us_sleep(100);
		__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
		assert_int_equal(rte_eal_wait_lcore(worker), 0);
	}
	/* Every munmap on the interrupt thread waited for a grace period. */
	assert_true(lr_quiesce_waits() >= waits0 + 20);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(munmap_waits_for_the_poller),
	};
	int rc;

	if (lr_test_eal_init("quiesce") != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	lr_test_eal_fini();
	return rc;
}
