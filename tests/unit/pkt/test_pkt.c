/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The header locator (lr_pkt.h) on frames built byte by byte: each header
 * kind, the VLAN tag types in every pair, MPLS stacks, IPv6 extension
 * chains, malformed lengths, and every frame cut at every byte. Each
 * locate reads an exact-size heap copy, so a build with AddressSanitizer
 * sees any read past the bytes given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lr_pkt.h"
#include "../lr_frame.h"

/* Locate in a copy of the first @p len bytes of @p f, of a @p wire byte
 * frame. */
static enum lr_pkt_result
locate(const struct f *f, uint32_t len, uint32_t wire, struct lr_pkt *p)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum lr_pkt_result r;

	assert_non_null(copy);
	memcpy(copy, f->b, len);
	r = lr_pkt_locate(copy, len, wire, p);
	free(copy);
	return r;
}

/* An IPv4 UDP packet after the headers @p f has so far, located whole. */
static enum lr_pkt_result
locate_udp4(struct f *f, struct lr_pkt *p)
{
	ip4(f, 5, 17, 0);
	udp(f, 1, 2);
	fin4(f);
	return locate(f, f->n, f->n, p);
}

static void
tag(struct f *f, unsigned int type, unsigned int vid)
{
	u16(f, vid);
	u16(f, type);
}

/* Replace the EtherType written by eth() with @p type and tags @p a, @p b
 * (0: none) before the payload's type @p inner. */
static void
eth_tags(struct f *f, unsigned int a, unsigned int b, unsigned int inner)
{
	eth(f, a ? a : inner);
	if (a)
		tag(f, b ? b : inner, 100);
	if (b)
		tag(f, inner, 200);
}

/* MPLS labels (@p n, the last one bottom of stack). */
static void
labels(struct f *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		u32(f, (16u + i) << 12 | (i == n - 1 ? 0x100 : 0) | 64);
}

/* An IPv6 extension header of @p bytes: next header @p nh, its length
 * field @p hdrlen (8-byte units past the first; AH's 4-byte units past the
 * first two). */
static void
ext(struct f *f, unsigned int nh, unsigned int hdrlen, unsigned int bytes)
{
	unsigned int i;

	u8(f, nh);
	u8(f, hdrlen);
	for (i = 2; i < bytes; i++)
		u8(f, 0);
}

static void
frag6(struct f *f, unsigned int nh, unsigned int off_m, uint32_t id)
{
	u8(f, nh);
	u8(f, 0);
	u16(f, off_m);
	u32(f, id);
}

static void
payload(struct f *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		u8(f, i);
}

static void
ipv4(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	eth(&f, 0x0800);
	ip4(&f, 5, 17, 0);
	udp(&f, 1, 2);
	payload(&f, 20);
	fin4(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.l3, 14);
	assert_int_equal(p.l3type, LR_PKT_L3_IPV4);
	assert_int_equal(p.l4, 34);
	assert_int_equal(p.proto, 17);
	assert_int_equal(p.l3_end, f.n);
	assert_int_equal(p.frag, LR_PKT_FRAG_NONE);
	assert_int_equal(p.frag_id, 0x1234);
	assert_int_equal(p.tags, 0);
	assert_int_equal(p.vlan, 0);
	assert_int_equal(p.vlan_inner, 0);
	assert_int_equal(p.mpls, 0);
	/* Padding after the datagram (a 60-byte minimum frame): fine. */
	assert_int_equal(locate(&f, f.n, f.n + 10, &p), LR_PKT_OK);

	/* Options: IHL 15, the most. */
	eth(&f, 0x0800);
	ip4(&f, 15, 6, 0);
	tcp(&f, 1, 2, 0);
	fin4(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.l4, 14 + 60);
	assert_int_equal(p.proto, 6);

	/* DF is no fragment; MF at offset 0 is the first, an offset a later
	 * one, with no transport header. */
	eth(&f, 0x0800);
	ip4(&f, 5, 17, 0x4000);
	udp(&f, 1, 2);
	fin4(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.frag, LR_PKT_FRAG_NONE);
	f.b[20] = 0x20;
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.frag, LR_PKT_FRAG_FIRST);
	assert_int_equal(p.l4, 34);
	f.b[20] = 0x00;
	f.b[21] = 0x08;
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.frag, LR_PKT_FRAG_LATER);
	assert_int_equal(p.l4, 0);
	assert_int_equal(p.l3, 14);
	assert_int_equal(p.proto, 17);
	assert_int_equal(p.frag_id, 0x1234);
}

static void
not_ip(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	eth(&f, 0x0806);
	payload(&f, 28);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_NOT_IP);
	assert_int_equal(p.l3, 0);
	assert_int_equal(p.l4, 0);
	assert_int_equal(locate(&f, 13, 13, &p), LR_PKT_TRUNC_L2);
	assert_int_equal(locate(&f, 0, 0, &p), LR_PKT_TRUNC_L2);
}

/* One tag of each type; two in every order of the three types, the
 * second's VID as the inner one (QinQ's C-VID, IPFIX dot1qCustomerVlanId);
 * a third is not walked (not IP), as the probe has always had it. */
static void
vlan_qinq(void **state)
{
	static const unsigned int types[] = { 0x8100, 0x88a8, 0x9100 };
	unsigned int a, b;
	struct lr_pkt p;
	struct f f;

	(void)state;
	for (a = 0; a < 3; a++) {
		eth_tags(&f, types[a], 0, 0x0800);
		assert_int_equal(locate_udp4(&f, &p), LR_PKT_OK);
		assert_int_equal(p.tags, 1);
		assert_int_equal(p.vlan, 100);
		assert_int_equal(p.vlan_inner, 0);	/* one tag: none */
		assert_int_equal(p.l3, 18);
		assert_int_equal(p.l4, 38);
		for (b = 0; b < 3; b++) {
			eth_tags(&f, types[a], types[b], 0x86dd);
			ip6(&f, 17);
			udp(&f, 1, 2);
			fin6(&f);
			assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
			assert_int_equal(p.tags, 2);
			assert_int_equal(p.vlan, 100);	/* the outer one */
			assert_int_equal(p.vlan_inner, 200);
			assert_int_equal(p.l3, 22);
			assert_int_equal(p.l3type, LR_PKT_L3_IPV6);
			assert_int_equal(p.l4, 62);
			assert_int_equal(p.proto, 17);
		}
	}
	/* The PCP and DEI bits are no part of the id. */
	eth_tags(&f, 0x8100, 0, 0x0800);
	f.b[14] = 0xf0;
	assert_int_equal(locate_udp4(&f, &p), LR_PKT_OK);
	assert_int_equal(p.vlan, 100);
	/* Nor the inner tag's; its 12 bits whole, apart from the outer's. */
	eth_tags(&f, 0x88a8, 0x8100, 0x0800);
	f.b[14] = 0xff;			/* S-tag: PCP 7, DEI, VID 0xf64 */
	f.b[18] = 0xbf;			/* C-tag: PCP 5, DEI, VID 0xfc8 */
	assert_int_equal(locate_udp4(&f, &p), LR_PKT_OK);
	assert_int_equal(p.vlan, 0xf64);
	assert_int_equal(p.vlan_inner, 0xfc8);
	/* Three tags. */
	eth_tags(&f, 0x88a8, 0x8100, 0x8100);
	tag(&f, 0x0800, 300);
	assert_int_equal(locate_udp4(&f, &p), LR_PKT_NOT_IP);
	assert_int_equal(p.l3, 0);
}

static void
mpls(void **state)
{
	unsigned int n;
	struct lr_pkt p;
	struct f f;

	(void)state;
	for (n = 1; n <= LR_PKT_LABELS_MAX; n++) {
		eth(&f, n & 1 ? 0x8847 : 0x8848);
		labels(&f, n);
		ip4(&f, 6, 6, 0);
		tcp(&f, 1, 2, 0);
		fin4(&f);
		assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
		assert_int_equal(p.mpls, n);
		assert_int_equal(p.l3, 14 + 4 * n);
		assert_int_equal(p.l4, 14 + 4 * n + 24);
		assert_int_equal(p.l3type, LR_PKT_L3_IPV4);
	}
	/* A tag, then labels, then IPv6 (by its version nibble). */
	eth_tags(&f, 0x8100, 0, 0x8847);
	labels(&f, 2);
	ip6(&f, 17);
	udp(&f, 1, 2);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.tags, 1);
	assert_int_equal(p.mpls, 2);
	assert_int_equal(p.l3, 26);
	assert_int_equal(p.l3type, LR_PKT_L3_IPV6);
	assert_int_equal(p.l4, 66);
	/* More labels than are walked. */
	eth(&f, 0x8847);
	labels(&f, LR_PKT_LABELS_MAX + 1);
	assert_int_equal(locate_udp4(&f, &p), LR_PKT_TRUNC_L2);
	/* A payload that is neither IPv4 nor IPv6 (an Ethernet pseudowire's
	 * control word starts with 0). */
	eth(&f, 0x8847);
	labels(&f, 1);
	u32(&f, 0);
	payload(&f, 40);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_IHL);
	/* The stack ends where the bytes do. */
	eth(&f, 0x8847);
	labels(&f, 1);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_TRUNC_L3);
}

static void
ipv6_ext(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	eth(&f, 0x86dd);
	ip6(&f, 17);
	udp(&f, 1, 2);
	payload(&f, 10);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.l3, 14);
	assert_int_equal(p.l4, 54);
	assert_int_equal(p.l3_end, f.n);

	/* Hop-by-hop (8), routing (24), destination options (16), AH
	 * (payload length 4: 24 bytes), UDP. */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	ext(&f, 43, 0, 8);
	ext(&f, 60, 2, 24);
	ext(&f, 51, 1, 16);
	ext(&f, 17, 4, 24);
	udp(&f, 1, 2);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.l4, 54 + 8 + 24 + 16 + 24);
	assert_int_equal(p.proto, 17);
	assert_int_equal(p.frag, LR_PKT_FRAG_NONE);

	/* Fragments: the first has the ports, a later one none. */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	ext(&f, 44, 0, 8);
	frag6(&f, 6, 0x0001, 0xabcdef01);
	tcp(&f, 1, 2, 0);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.frag, LR_PKT_FRAG_FIRST);
	assert_int_equal(p.frag_id, 0xabcdef01);
	assert_int_equal(p.l4, 54 + 16);
	assert_int_equal(p.proto, 6);
	f.b[54 + 8 + 2] = 0x01;		/* offset 32 bytes */
	f.b[54 + 8 + 3] = 0x00;
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.frag, LR_PKT_FRAG_LATER);
	assert_int_equal(p.l4, 0);
	assert_int_equal(p.proto, 6);
	/* An atomic fragment (offset 0, no more): no fragment at all. */
	f.b[54 + 8 + 2] = 0;
	f.b[54 + 8 + 3] = 0;
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.frag, LR_PKT_FRAG_NONE);
	assert_int_equal(p.l4, 54 + 16);

	/* No next header (59): located, nothing behind it. */
	eth(&f, 0x86dd);
	ip6(&f, 60);
	ext(&f, 59, 0, 8);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.proto, 59);
	assert_int_equal(p.l4, f.n);
}

static void
ipv6_ext_malformed(void **state)
{
	struct lr_pkt p;
	unsigned int i;
	struct f f;

	(void)state;
	/* One more extension header than are walked. */
	eth(&f, 0x86dd);
	ip6(&f, 60);
	for (i = 0; i < LR_PKT_EXT_MAX; i++)
		ext(&f, 60, 0, 8);
	udp(&f, 1, 2);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_EXT);
	assert_int_equal(p.l4, 0);
	assert_int_equal(p.l3, 14);
	/* ... and as many as are walked. */
	f.b[54 + 8 * (LR_PKT_EXT_MAX - 1)] = 17;
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.l4, 54 + 8 * LR_PKT_EXT_MAX);

	/* A header longer than the payload length says. */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	ext(&f, 17, 3, 8);
	udp(&f, 1, 2);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_EXT);
	/* A chain that runs into the end of the payload. */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	ext(&f, 60, 0, 8);
	fin6(&f);
	payload(&f, 20);		/* padding: not in the payload */
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_EXT);
	/* The same chain cut by a trim, inside the payload: cut, not bad. */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	ext(&f, 60, 0, 8);
	ext(&f, 17, 0, 8);
	udp(&f, 1, 2);
	fin6(&f);
	assert_int_equal(locate(&f, 54 + 8 + 4, f.n, &p), LR_PKT_TRUNC_L4);
}

/* Lengths that do not fit: said, and the headers located all the same. */
static void
bad_lengths(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	/* IHL below 5; a version that is not the EtherType's. */
	eth(&f, 0x0800);
	ip4(&f, 4, 17, 0);
	payload(&f, 30);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_IHL);
	assert_int_equal(p.l3, 0);
	f.b[14] = 0x65;
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_IHL);
	eth(&f, 0x86dd);
	ip4(&f, 5, 17, 0);
	payload(&f, 40);
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_IHL);
	assert_int_equal(p.l3, 0);

	/* Total length below the header, and past the frame. */
	eth(&f, 0x0800);
	ip4(&f, 6, 17, 0);
	udp(&f, 1, 2);
	fin4(&f);
	f.b[16] = 0;
	f.b[17] = 20;
	assert_int_equal(locate(&f, f.n, f.n, &p), LR_PKT_BAD_LEN);
	assert_int_equal(p.l4, 38);
	assert_int_equal(p.l3_end, 34);
	fin4(&f);
	assert_int_equal(locate(&f, f.n, f.n - 1, &p), LR_PKT_BAD_LEN);
	assert_int_equal(p.l4, 38);
	assert_int_equal(p.proto, 17);
	/* A trimmed capture: the bytes are fewer, the wire length holds. */
	assert_int_equal(locate(&f, 40, f.n, &p), LR_PKT_OK);
	assert_int_equal(p.l4, 38);

	/* IPv6: a payload length past the frame, the chain walked still. */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	ext(&f, 17, 0, 8);
	udp(&f, 1, 2);
	fin6(&f);
	assert_int_equal(locate(&f, f.n, f.n - 1, &p), LR_PKT_BAD_LEN);
	assert_int_equal(p.l4, 62);
	assert_int_equal(p.proto, 17);
	assert_int_equal(p.l3_end, f.n);
}

/* The frames below cut at every byte: with the wire length the whole
 * frame's (a trim), the result is a cut (never "bad") until the transport
 * header's offset is in, then all the whole frame's; with the wire length
 * the cut's own, lengths are bad or headers cut, and what is located is
 * where the whole frame has it. */
static void
cut(const struct f *f)
{
	struct lr_pkt whole, p;
	uint32_t len;

	assert_int_equal(locate(f, f->n, f->n, &whole), LR_PKT_OK);
	assert_int_not_equal(whole.l4, 0);
	for (len = 0; len < f->n; len++) {
		enum lr_pkt_result r = locate(f, len, f->n, &p);

		if (len >= whole.l4) {
			assert_int_equal(r, LR_PKT_OK);
			assert_memory_equal(&p, &whole, sizeof(p));
		} else if (r == LR_PKT_OK) {
			/* The last extension header cut past its first 8
			 * bytes: the offset is right, its bytes not there. */
			assert_int_equal(p.l4, whole.l4);
		} else {
			assert_true(r == LR_PKT_TRUNC_L2 || r == LR_PKT_TRUNC_L3 ||
				    r == LR_PKT_TRUNC_L4);
			assert_int_equal(p.l4, 0);
		}
		r = locate(f, len, len, &p);
		assert_int_not_equal(r, LR_PKT_OK);
		assert_true(r != LR_PKT_NOT_IP && r != LR_PKT_BAD_IHL);
		if (p.l3 != 0)
			assert_int_equal(p.l3, whole.l3);
		if (p.l4 != 0)
			assert_int_equal(p.l4, whole.l4);
	}
}

static void
truncated_everywhere(void **state)
{
	struct f f;

	(void)state;
	eth_tags(&f, 0x88a8, 0x8100, 0x0800);
	ip4(&f, 7, 17, 0);
	udp(&f, 1, 2);
	payload(&f, 4);
	fin4(&f);
	cut(&f);

	eth_tags(&f, 0x9100, 0, 0x8847);
	labels(&f, 3);
	ip6(&f, 0);
	ext(&f, 44, 1, 16);
	frag6(&f, 51, 0x0001, 7);
	ext(&f, 6, 2, 16);
	tcp(&f, 1, 2, 0x10);
	fin6(&f);
	cut(&f);

	eth(&f, 0x8848);
	labels(&f, 1);
	ip4(&f, 5, 1, 0x2000);
	payload(&f, 8);
	fin4(&f);
	cut(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipv4),
		cmocka_unit_test(not_ip),
		cmocka_unit_test(vlan_qinq),
		cmocka_unit_test(mpls),
		cmocka_unit_test(ipv6_ext),
		cmocka_unit_test(ipv6_ext_malformed),
		cmocka_unit_test(bad_lengths),
		cmocka_unit_test(truncated_everywhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
