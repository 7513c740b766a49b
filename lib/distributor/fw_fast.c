/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "lr_fw_fast.h"

void
lr_uh_from_pkt(const struct lr_parsed *p, uint32_t wire, struct lr_fw_uh *uh)
{
	memcpy(uh->src, p->src, 16);
	memcpy(uh->dst, p->dst, 16);
	uh->ip_bytes = p->ip_bytes;
	uh->wire_len = (uint16_t)RTE_MIN(wire, (uint32_t)UINT16_MAX);
	uh->vlan = p->vlan;
	uh->sport = p->sport;		/* ICMP: 0 (lr_parse) */
	uh->dport = p->dport;
	uh->tcp_flags = p->tcp_flags;
	uh->ip_ver = p->ipv6 ? 6 : 4;
	uh->proto = p->proto;
	uh->tos = p->tos;
	uh->ttl = p->ttl;
	uh->frag = p->frag;
	uh->status = 0;
	uh->frag_id = p->frag_id;
	uh->pad = 0;
	uh->vlan_inner = p->vlan_inner;
}

static uint32_t
fast_hash(const struct lr_fw_conf *c, const uint8_t *in, size_t len)
{
	return lr_thash(c->state, in, len);
}

static void
fast_parse(const struct lr_fw_conf *c, const uint8_t *d, uint32_t len,
	   uint64_t ts_ns, struct lr_fw_uh *uh)
{
	struct lr_parsed p;

	lr_fw_fast_uh(c, lr_parse(d, len, &p), &p, len, ts_ns, uh);
}

const struct lr_fw_ops lr_fw_fast_ops = {
	.name = "fast",
	.parse = fast_parse,
	.hash = fast_hash,
};
