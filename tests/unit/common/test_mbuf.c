/* SPDX-License-Identifier: BSD-3-Clause */
/* lr_mbuf_free_bulk() (lr_mbuf.h) against what rte_pktmbuf_free() frees:
 * every mbuf back to its own pool, chains, clones, runs longer than its
 * array, NULL entries. lr_bigmem (lr_bigmem.h) under an EAL without
 * hugepages: 2 MB-aligned, zeroed, writable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <rte_mbuf.h>

#include "lr_bigmem.h"
#include "lr_mbuf.h"
#include "lr_test.h"

#define N 256u

static struct rte_mempool *pa, *pb;

static int
setup(void **state)
{
	(void)state;
	if (lr_test_eal_init("mbuf") != 0)
		return -1;
	pa = rte_pktmbuf_pool_create("ut_mbuf_a", N, 32, 0, 512, SOCKET_ID_ANY);
	pb = rte_pktmbuf_pool_create("ut_mbuf_b", N, 32, 0, 512, SOCKET_ID_ANY);
	return pa != NULL && pb != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(pa);
	rte_mempool_free(pb);
	lr_test_eal_fini();
	return 0;
}

static void
all_back(void)
{
	assert_int_equal(rte_mempool_avail_count(pa), N);
	assert_int_equal(rte_mempool_avail_count(pb), N);
}

/* 150 mbufs of two pools in runs of 1..5: more than one array of 64. */
static void
mixed_pools_in_runs(void **state)
{
	struct rte_mbuf *m[150];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(m); i++) {
		m[i] = rte_pktmbuf_alloc((i / (1 + i % 5)) % 2 ? pa : pb);
		assert_non_null(m[i]);
	}
	lr_mbuf_free_bulk(m, RTE_DIM(m));
	all_back();
}

/* Chains across pools, a clone (indirect, the data's refcnt 2) freed
 * before and after its parent, and NULL entries. */
static void
chains_clones_nulls(void **state)
{
	struct rte_mbuf *m[8] = { NULL };
	struct rte_mbuf *head, *seg, *clone;

	(void)state;
	head = rte_pktmbuf_alloc(pa);
	seg = rte_pktmbuf_alloc(pb);
	assert_non_null(head);
	assert_non_null(seg);
	assert_non_null(rte_pktmbuf_append(head, 100));
	assert_non_null(rte_pktmbuf_append(seg, 100));
	assert_int_equal(rte_pktmbuf_chain(head, seg), 0);
	m[0] = head;
	m[2] = rte_pktmbuf_alloc(pb);
	clone = rte_pktmbuf_clone(m[2], pa);	/* indirect mbufs from pa */
	assert_non_null(clone);
	m[3] = clone;
	lr_mbuf_free_bulk(m, 4);
	/* The clone went first: m[2]'s data is free only now. */
	assert_int_equal(rte_mempool_avail_count(pb), N);
	all_back();
	m[0] = rte_pktmbuf_alloc(pa);
	clone = rte_pktmbuf_clone(m[0], pb);
	assert_non_null(clone);
	lr_mbuf_free_bulk(m, 1);	/* the parent: still held by the clone */
	assert_int_equal(rte_mempool_avail_count(pa), N - 1);
	lr_mbuf_free_bulk(&clone, 1);
	all_back();
}

static void
bigmem_without_hugepages(void **state)
{
	struct lr_bigmem m;
	size_t i;

	(void)state;
	assert_false(rte_eal_has_hugepages());	/* lr_test.h: --no-huge */
	assert_int_equal(lr_bigmem_alloc(&m, "ut_big", 5u << 20, SOCKET_ID_ANY), 0);
	assert_non_null(m.p);
	assert_true(m.mapped);
	assert_int_equal((uintptr_t)m.p % (2u << 20), 0);
	assert_true(m.len >= (5u << 20));
	for (i = 0; i < m.len; i += 4096) {
		assert_int_equal(((uint8_t *)m.p)[i], 0);
		((uint8_t *)m.p)[i] = 1;
	}
	((uint8_t *)m.p)[m.len - 1] = 1;
	lr_bigmem_free(&m);
	assert_null(m.p);
	lr_bigmem_free(&m);	/* twice: nothing */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mixed_pools_in_runs),
		cmocka_unit_test(chains_clones_nulls),
		cmocka_unit_test(bigmem_without_hugepages),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
