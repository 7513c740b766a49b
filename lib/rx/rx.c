/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include "lr_common.h"
#include "lr_gen.h"
#include "lr_rx.h"

struct rx {
	struct lr_rx_counts c;		/**< written by the task's lcore only */
	uint64_t remaining;		/**< UINT64_MAX: no limit */
};

void
lr_rx_conf_init(struct lr_rx_conf *c)
{
	memset(c, 0, sizeof(*c));
}

static void
rx_conf_init(void *conf)
{
	lr_rx_conf_init(conf);
}

static int
rx_conf_set(void *conf, const char *key, const char *val)
{
	struct lr_rx_conf *c = conf;

	if (strcmp(key, "count") != 0)
		return -ENOENT;
	if (lr_parse_u64(val, &c->count) != 0)
		return lr_err(EINVAL, "rx: count '%s' is not a number", val);
	return 0;
}

static int
rx_init(struct lr_task *t, const void *arg)
{
	const struct lr_rx_conf *c = arg;
	struct rx *r;

	r = rte_zmalloc_socket("lr_rx", sizeof(*r), RTE_CACHE_LINE_SIZE, t->socket);
	if (r == NULL)
		return lr_err(ENOMEM, "rx: no memory on socket %d", t->socket);
	r->remaining = c->count ? c->count : UINT64_MAX;
	t->priv = r;
	return 0;
}

/* Is this one of ours: untagged IPv4 without options, UDP, our magic? */
static inline bool
is_own(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)d;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const struct lr_pkt_hdr *h;

	if (m->data_len < LR_UDP4_HDRS_BYTES + LR_HDR_BYTES ||
	    eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->version_ihl != RTE_IPV4_VHL_DEF || ip->next_proto_id != IPPROTO_UDP)
		return false;
	h = (const struct lr_pkt_hdr *)(d + LR_UDP4_HDRS_BYTES);
	return h->magic == rte_cpu_to_be_16(LR_HDR_MAGIC);
}

static int
rx_poll(struct lr_task *t, uint64_t now)
{
	struct rx *r = t->priv;
	struct rte_mbuf *pkts[LR_BURST];
	uint64_t bytes = 0, own = 0;
	uint16_t n, i;

	RTE_SET_USED(now);
	n = rte_eth_rx_burst(t->port, t->queue, pkts, LR_BURST);
	if (n == 0)
		return 0;
	for (i = 0; i < n && i < LR_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		if (i + LR_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + LR_PREFETCH], void *));
		bytes += pkts[i]->pkt_len;
		own += is_own(pkts[i]);
	}
	rte_pktmbuf_free_bulk(pkts, n);
	t->st.rx_pkts += n;
	t->st.rx_bytes += bytes;
	r->c.own += own;
	r->c.foreign += n - own;
	if (r->remaining <= n) {
		r->remaining = 0;
		return 1;
	}
	r->remaining -= n;
	return 0;
}

void
lr_rx_counts(const struct lr_task *t, struct lr_rx_counts *out)
{
	const struct rx *r = t->priv;

	*out = r->c;
}

static void
rx_report(const struct lr_task *t, json_t *o)
{
	struct lr_rx_counts c;

	lr_rx_counts(t, &c);
	json_object_set_new(o, "own_packets", json_integer((json_int_t)c.own));
	json_object_set_new(o, "foreign_packets", json_integer((json_int_t)c.foreign));
}

static void
rx_free(struct lr_task *t)
{
	rte_free(t->priv);
	t->priv = NULL;
}

const struct lr_role lr_rx_role = {
	.name = "rx",
	.help =
	"  --count N         stop after N packets, 0: no limit (0)\n",
	.uses_rx = true,
	.conf_bytes = sizeof(struct lr_rx_conf),
	.conf_init = rx_conf_init,
	.conf_set = rx_conf_set,
	.init = rx_init,
	.poll = rx_poll,
	.report = rx_report,
	.free = rx_free,
};
