/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the L2-L4 parsers on any bytes. The header locator
 * (lr_pkt.h), lr_parse (the flow parser on it), the trimmed-capture form
 * with a wire length taken from the input, and the reflect role's parse,
 * swap, mark and stamps. Invariants beside ASan/UBSan: an OK locate's
 * headers lie inside the frame and the datagram, and the flow parser says
 * what the locator said; an OK parse's offsets lie inside the frame; a swap applied
 * twice gives the frame back; after the reflector's swap, mark and both
 * stamps, a UDP sum that verified still verifies (tried on the frame as it
 * is and on a copy whose sum was made right first), and an IPv4 UDP sum of
 * 0 (none) stays 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

#include "lr_parse.h"
#include "lr_pkt.h"
#include "lr_reflect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Does the frame hold the whole UDP datagram its IP length says (so that
 * its sum can be checked)? DPDK's IPv6 sum takes the payload length for the
 * datagram's: only without extension headers. */
static bool
udp_inside(const uint8_t *d, uint32_t len, const struct lr_reflect_frame *f)
{
	if (f->ipv4) {
		const struct rte_ipv4_hdr *ip = (const void *)(d + f->l3);
		uint32_t total = rte_be_to_cpu_16(ip->total_length);

		return total >= rte_ipv4_hdr_len(ip) + 8u && f->l3 + total <= len;
	}
	if (f->l4 != f->l3 + 40u)
		return false;
	return rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)(const void *)
				 (d + f->l3))->payload_len) >= 8 &&
	       f->l3 + 40u + rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)
			(const void *)(d + f->l3))->payload_len) <= len;
}

static bool
udp_sum_ok(const uint8_t *d, const struct lr_reflect_frame *f)
{
	const void *ip = d + f->l3;

	return (f->ipv4 ? rte_ipv4_udptcp_cksum_verify(ip, d + f->l4) :
		rte_ipv6_udptcp_cksum_verify(ip, d + f->l4)) == 0;
}

static uint16_t
udp_sum(const uint8_t *d, const struct lr_reflect_frame *f)
{
	uint16_t c;

	memcpy(&c, d + f->l4 + offsetof(struct rte_udp_hdr, dgram_cksum), 2);
	return c;
}

/* What the reflector does to a frame it sends back (reflect.c): swaps it,
 * and marks and stamps it when it is linerate's (@p own). */
static void
reflect(uint8_t *d, const struct lr_reflect_frame *f, bool own, bool stamp,
	uint64_t t)
{
	lr_reflect_swap(d, f);
	if (own && lr_reflect_mark(d, f, stamp, t))
		lr_reflect_stamp_tx(d, f->l4, f->ipv4, t + 1000);
}

/* The reflector's rewrite of frame @p a (@p size bytes, UDP). */
static void
check_reflect(const uint8_t *a, uint32_t size, const struct lr_reflect_frame *f,
	      bool own, bool stamp, uint64_t t)
{
	uint8_t *b = malloc(size), *c = malloc(size);
	bool inside = udp_inside(a, size, f);
	bool zero = f->ipv4 && udp_sum(a, f) == 0;
	bool ok = inside && !zero && udp_sum_ok(a, f);

	if (b == NULL || c == NULL)
		goto out;
	memcpy(b, a, size);
	reflect(b, f, own, stamp, t);
	if (ok && !udp_sum_ok(b, f))
		abort();
	if (zero && udp_sum(b, f) != 0)
		abort();
	if (inside && !zero) {
		/* The same frame with its sum right first. */
		struct rte_udp_hdr *udp = (void *)(c + f->l4);

		memcpy(c, a, size);
		udp->dgram_cksum = 0;
		udp->dgram_cksum = f->ipv4 ?
			rte_ipv4_udptcp_cksum((const void *)(c + f->l3), udp) :
			rte_ipv6_udptcp_cksum((const void *)(c + f->l3), udp);
		if (udp->dgram_cksum == 0)	/* IPv4: 0 would mean none */
			udp->dgram_cksum = 0xffff;
		if (!udp_sum_ok(c, f))
			abort();
		reflect(c, f, own, stamp, t);
		if (!udp_sum_ok(c, f))
			abort();
	}
out:
	free(b);
	free(c);
}

/* The locator on the whole frame, and the flow parser against it. */
static void
check_locate(const uint8_t *a, uint32_t size)
{
	enum lr_pkt_result r, q;
	struct lr_parsed p;
	struct lr_pkt k;

	r = lr_pkt_locate(a, size, size, &k);
	q = (enum lr_pkt_result)lr_parse(a, size, &p);
	if (r >= LR_PKT_RESULTS || k.frag > LR_PKT_FRAG_LATER ||
	    k.l3type > LR_PKT_L3_IPV6 || k.tags > LR_PKT_TAGS_MAX ||
	    k.mpls > LR_PKT_LABELS_MAX)
		abort();
	/* The IP header whole where it is said to be. */
	if (k.l3 != 0 && k.l3 + (k.l3type == LR_PKT_L3_IPV4 ? 20u : 40u) > size)
		abort();
	if ((k.l3 == 0) != (k.l3type == LR_PKT_L3_NONE))
		abort();
	if (r == LR_PKT_OK) {
		/* Inside the datagram, which is inside the frame. */
		if (k.l3 == 0 || k.l3_end > size || k.l4 > k.l3_end ||
		    (k.l4 == 0) != (k.frag == LR_PKT_FRAG_LATER) ||
		    (k.l4 != 0 && k.l4 < k.l3 + 20u))
			abort();
		/* The flow parser stops only at a transport header cut. */
		if (q != LR_PKT_OK && q != LR_PKT_TRUNC_L4)
			abort();
		if (q == LR_PKT_OK && (p.proto != k.proto || p.vlan != k.vlan ||
				       p.vlan_inner != k.vlan_inner ||
				       (k.tags < 2 && k.vlan_inner != 0) ||
				       (p.l4_off != 0 && p.l4_off != k.l4)))
			abort();
	} else if (q != r) {
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_parsed p;
	struct lr_reflect_frame f;
	enum lr_reflect_kind k;
	uint8_t *a, *b;
	uint32_t wire;

	if (size > 65535)
		return 0;
	/* An exact-size heap copy: ASan sees every read past the frame. */
	a = malloc(size ? size : 1);
	if (a == NULL)
		return 0;
	memcpy(a, data, size);
	check_locate(a, (uint32_t)size);
	if (lr_parse(a, (uint32_t)size, &p) == LR_PARSE_OK) {
		if (p.l4_off > size)
			abort();
		if (p.ipv6 > 1 || p.frag > LR_FRAG_LATER)
			abort();
	}
	wire = size >= 2 ? (uint32_t)size + ((uint32_t)data[0] << 8 | data[1]) :
	       (uint32_t)size;
	if (lr_parse_wire(a, (uint32_t)size, wire, &p) == LR_PARSE_OK &&
	    p.l4_off > size)
		abort();
	switch ((k = lr_reflect_parse(a, (uint32_t)size, &f))) {
	case LR_REFLECT_OWN:
	case LR_REFLECT_OTHER:
	case LR_REFLECT_LOOPED:
		b = malloc(size ? size : 1);
		if (b == NULL)
			break;
		memcpy(b, a, size);
		lr_reflect_swap(a, &f);
		lr_reflect_swap(a, &f);
		if (memcmp(a, b, size) != 0)
			abort();
		free(b);
		if (f.udp && size >= 3)
			check_reflect(a, (uint32_t)size, &f, k == LR_REFLECT_OWN,
				      data[size - 1] & 1,
				      (uint64_t)data[size - 2] << 40 | data[size - 3]);
		break;
	default:
		break;
	}
	free(a);
	return 0;
}
