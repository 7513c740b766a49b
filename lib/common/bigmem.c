/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "lr_bigmem.h"

#define HUGE_2M (2u << 20)

int
lr_bigmem_alloc(struct lr_bigmem *m, const char *name, size_t len, int socket)
{
	uint8_t *p;
	size_t span, lead;

	m->p = NULL;
	m->len = len;
	m->mapped = !rte_eal_has_hugepages();
	if (!m->mapped) {
		m->p = rte_zmalloc_socket(name, len, RTE_CACHE_LINE_SIZE, socket);
		return m->p != NULL ? 0 : -ENOMEM;
	}
	/* A 2 MB-aligned start, so that every 2 MB of the table can be one
	 * huge page: map 2 MB more and give back what is before and after. */
	len = RTE_ALIGN_CEIL(len, HUGE_2M);
	span = len + HUGE_2M;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	lead = RTE_ALIGN_CEIL((uintptr_t)p, HUGE_2M) - (uintptr_t)p;
	if (lead != 0)
		munmap(p, lead);
	if (span - lead - len != 0)
		munmap(p + lead + len, span - lead - len);
	m->p = p + lead;
	m->len = len;
	/* Advice only: without THP the table works in 4 KB pages. */
	(void)madvise(m->p, len, MADV_HUGEPAGE);
	return 0;
}

void
lr_bigmem_free(struct lr_bigmem *m)
{
	if (m->p == NULL)
		return;
	if (m->mapped)
		munmap(m->p, m->len);
	else
		rte_free(m->p);
	m->p = NULL;
}
