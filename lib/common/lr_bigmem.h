/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Large tables read at random by a fast path (the probe's flow cache) in
 * 2 MB pages whether or not EAL has hugepages. With --no-huge, DPDK's
 * memory is 4 KB pages: a 22 MB flow table spans 5,600 of them, more than
 * the TLB holds, and each lookup's lines cost a page walk on top of the
 * miss (probe-bench, 131072 flows: cycles a packet 2.8 x those at 16384
 * with --no-huge, 1.3 x with hugepages). Without hugepages the table is
 * anonymous memory the kernel backs with transparent huge pages
 * (MADV_HUGEPAGE: Debian's default THP mode is madvise).
 *
 * Threading: control path (allocate and free); the memory is the caller's.
 */
#ifndef LR_BIGMEM_H
#define LR_BIGMEM_H

#include <stdbool.h>
#include <stddef.h>

struct lr_bigmem {
	void *p;		/**< zeroed, 64-byte aligned; NULL: none */
	size_t len;
	bool mapped;		/**< mmap'ed (EAL without hugepages) */
};

/** @p len zeroed bytes for @p name on @p socket into @p m: EAL's heap when
 *  it has hugepages, else THP-backed anonymous memory. @return 0, or
 *  -ENOMEM (m->p NULL). */
int lr_bigmem_alloc(struct lr_bigmem *m, const char *name, size_t len,
		    int socket);

/** Free what lr_bigmem_alloc gave (none: nothing). */
void lr_bigmem_free(struct lr_bigmem *m);

#endif
