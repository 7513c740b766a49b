/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe's application labels (--flow-ext app): nDPI (Debian's
 * libndpi 4.2) names each TCP and UDP flow's application from its first
 * packets, on the worker that owns the flow, as nProbe and ndpiReader do.
 *
 * nDPI's state of a flow (ndpi_detection_get_sizeof_ndpi_flow_struct():
 * 688 B in 4.2, and what nDPI allocates for it) is lent from a pool
 * (--ndpi-flows) per task while the flow is being named, and given back as soon as
 * it is: named with nothing more to read (ndpi_extra_dissection_possible()),
 * LOOK_MAX packets read (then nDPI's guess from the ports), or the flow's
 * end. The side table keeps only the label (struct lr_label) and the
 * loan. With the pool empty the flow is counted (pool_full), not named.
 * Each task has its own detection module (nDPI's is not shared between
 * threads).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "lr_common.h"
#include "lr_pkt.h"
#include "probe_internal.h"

#define LOOK_MAX 24		/* packets a flow is read for, as ndpiReader's
				 * UDP bound (its TCP one is 80) */

#ifdef LR_HAVE_NDPI
#include <ndpi/ndpi_api.h>

struct lr_ndpi {
	struct ndpi_detection_module_struct *m;
	uint8_t *flows;			/* pool of nDPI's flow states */
	size_t fsize;
	uint32_t pool;			/* their number */
	uint32_t free_top;
	uint16_t *free;			/* indexes of those not lent */
	struct lr_ndpi_counts c;
};

struct lr_ndpi *
lr_ndpi_new(uint32_t flows, int socket)
{
	NDPI_PROTOCOL_BITMASK all;
	struct lr_ndpi *n;
	unsigned int i;

	n = rte_zmalloc_socket("lr_ndpi", sizeof(*n), RTE_CACHE_LINE_SIZE, socket);
	if (n == NULL)
		return lr_err_null(ENOMEM, "probe: no memory for nDPI");
	n->m = ndpi_init_detection_module(ndpi_no_prefs);
	if (n->m == NULL) {
		lr_ndpi_free(n);
		return lr_err_null(ENOMEM, "probe: nDPI's detection module failed");
	}
	NDPI_BITMASK_SET_ALL(all);
	ndpi_set_protocol_detection_bitmask2(n->m, &all);
	ndpi_finalize_initialization(n->m);
	n->fsize = RTE_ALIGN(ndpi_detection_get_sizeof_ndpi_flow_struct(), 64);
	n->pool = RTE_MIN(RTE_MAX(flows, 1u), 65535u);
	n->flows = rte_zmalloc_socket("lr_ndpi_flows", n->fsize * n->pool,
				      RTE_CACHE_LINE_SIZE, socket);
	n->free = rte_malloc_socket("lr_ndpi_free", sizeof(*n->free) * n->pool,
				    0, socket);
	if (n->flows == NULL || n->free == NULL) {
		lr_ndpi_free(n);
		return lr_err_null(ENOMEM, "probe: no memory for nDPI's %u flows "
				   "(--ndpi-flows)", n->pool);
	}
	for (i = 0; i < n->pool; i++)
		n->free[i] = (uint16_t)(n->pool - 1 - i);
	n->free_top = n->pool;
	return n;
}

void
lr_ndpi_free(struct lr_ndpi *n)
{
	if (n == NULL)
		return;
	if (n->flows != NULL && n->free != NULL) {
		uint8_t *idle = calloc(n->pool, 1);
		unsigned int i;

		/* Flows still lent at the end hold what nDPI allocated. */
		for (i = 0; idle != NULL && i < n->free_top; i++)
			idle[n->free[i]] = 1;
		for (i = 0; idle != NULL && i < n->pool; i++)
			if (!idle[i])
				ndpi_free_flow_data((struct ndpi_flow_struct *)
						    (n->flows + i * n->fsize));
		free(idle);
	}
	rte_free(n->free);
	rte_free(n->flows);
	if (n->m != NULL)
		ndpi_exit_detection_module(n->m);
	rte_free(n);
}

static inline struct ndpi_flow_struct *
flow_of(struct lr_ndpi *n, const struct lr_ndpi_side *s)
{
	return (struct ndpi_flow_struct *)(n->flows + (size_t)(s->flow - 1) *
					   n->fsize);
}

/* The label of @p proto into @p s, the flow's state back to the pool. */
static void
finish(struct lr_ndpi *n, struct lr_ndpi_side *s, ndpi_protocol proto,
       bool guessed)
{
	struct lr_label *l = &s->l;
	uint16_t id = proto.app_protocol != NDPI_PROTOCOL_UNKNOWN ?
		      proto.app_protocol : proto.master_protocol;
	char name[64];

	l->id[0] = LR_LABEL_ENGINE;
	l->id[1] = (uint8_t)(LR_LABEL_PEN >> 24);
	l->id[2] = (uint8_t)(LR_LABEL_PEN >> 16);
	l->id[3] = (uint8_t)(LR_LABEL_PEN >> 8);
	l->id[4] = (uint8_t)LR_LABEL_PEN;
	l->id[5] = (uint8_t)(id >> 8);
	l->id[6] = (uint8_t)id;
	ndpi_protocol2name(n->m, proto, name, sizeof(name));
	l->name_len = (uint8_t)RTE_MIN(strlen(name), sizeof(l->name));
	memcpy(l->name, name, l->name_len);
	l->guessed = guessed;
	if (id == NDPI_PROTOCOL_UNKNOWN)
		n->c.unknown++;
	else if (guessed)
		n->c.guessed++;
	else
		n->c.named++;
	ndpi_free_flow_data(flow_of(n, s));
	n->free[n->free_top++] = (uint16_t)(s->flow - 1);
	s->flow = 0;
	s->done = 1;
}

bool
lr_ndpi_packet(struct lr_ndpi *n, struct lr_ndpi_side *s,
	       const struct lr_fc_ext_pkt *k)
{
	struct ndpi_flow_struct *f;
	ndpi_protocol proto;
	struct lr_pkt pk;
	uint32_t len;

	if (s->done)
		return false;
	if (s->flow == 0) {
		if (n->free_top == 0) {
			n->c.pool_full++;
			s->done = 1;
			return false;
		}
		s->flow = (uint16_t)(n->free[--n->free_top] + 1);
		memset(flow_of(n, s), 0, n->fsize);
	}
	f = flow_of(n, s);
	/* nDPI reads from the IP header: found again (the parser keeps no
	 * L3 offset), for the few packets of a flow it reads. */
	if (lr_pkt_locate(k->frame, k->frame_len, k->frame_len, &pk) != LR_PKT_OK ||
	    pk.l3 == 0)
		return true;
	len = RTE_MIN(k->frame_len, pk.l3_end) - pk.l3;
	proto = ndpi_detection_process_packet(n->m, f, k->frame + pk.l3,
					      (unsigned short)RTE_MIN(len, 65535u),
					      k->now_ns / 1000000);
	n->c.packets++;
	if ((proto.app_protocol != NDPI_PROTOCOL_UNKNOWN ||
	     proto.master_protocol != NDPI_PROTOCOL_UNKNOWN) &&
	    !ndpi_extra_dissection_possible(n->m, f)) {
		finish(n, s, proto, false);
		return false;
	}
	if (++s->looked >= LOOK_MAX) {
		uint8_t guessed = 0;

		proto = ndpi_detection_giveup(n->m, f, 1, &guessed);
		finish(n, s, proto, guessed != 0);
		return false;
	}
	return true;
}

void
lr_ndpi_end(struct lr_ndpi *n, struct lr_ndpi_side *s)
{
	if (s->flow != 0) {
		uint8_t guessed = 0;
		ndpi_protocol proto = ndpi_detection_giveup(n->m, flow_of(n, s), 1,
							    &guessed);

		finish(n, s, proto, guessed != 0);
	}
}

const struct lr_ndpi_counts *
lr_ndpi_counts(const struct lr_ndpi *n)
{
	return &n->c;
}

const char *
lr_ndpi_version(void)
{
	return ndpi_revision();
}

#else /* !LR_HAVE_NDPI */

struct lr_ndpi *
lr_ndpi_new(uint32_t flows, int socket)
{
	RTE_SET_USED(flows);
	RTE_SET_USED(socket);
	return lr_err_null(ENOTSUP, "probe: flow-ext app: this linerate was "
			   "built without nDPI (apt-get install libndpi-dev, "
			   "then rebuild)");
}

void
lr_ndpi_free(struct lr_ndpi *n)
{
	RTE_SET_USED(n);
}

bool
lr_ndpi_packet(struct lr_ndpi *n, struct lr_ndpi_side *s,
	       const struct lr_fc_ext_pkt *k)
{
	RTE_SET_USED(n);
	RTE_SET_USED(s);
	RTE_SET_USED(k);
	return false;
}

void
lr_ndpi_end(struct lr_ndpi *n, struct lr_ndpi_side *s)
{
	RTE_SET_USED(n);
	RTE_SET_USED(s);
}

const struct lr_ndpi_counts *
lr_ndpi_counts(const struct lr_ndpi *n)
{
	RTE_SET_USED(n);
	return NULL;
}

const char *
lr_ndpi_version(void)
{
	return NULL;
}

#endif
