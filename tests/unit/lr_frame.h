/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames built byte by byte for the parser, probe and distributor tests:
 * Ethernet, IPv4 (with options) or IPv6, TCP or UDP, and a frame as an
 * mbuf chain. Include after cmocka.h (chain_of asserts).
 */
#ifndef LR_FRAME_H
#define LR_FRAME_H

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

/* A frame under construction. */
struct f {
	uint8_t b[512];
	uint32_t n;
	uint32_t l3;		/* where the IP header starts */
};

static inline void
u8(struct f *f, unsigned int v)
{
	f->b[f->n++] = (uint8_t)v;
}

static inline void
u16(struct f *f, unsigned int v)
{
	u8(f, v >> 8);
	u8(f, v);
}

static inline void
u32(struct f *f, uint32_t v)
{
	u16(f, v >> 16);
	u16(f, v & 0xffff);
}

static inline void
eth(struct f *f, unsigned int type)
{
	memset(f, 0, sizeof(*f));
	f->n = 12;
	u16(f, type);
}

/* IPv4 header of @p ihl words, total length filled in by fin4(). */
static inline void
ip4(struct f *f, unsigned int ihl, unsigned int proto, unsigned int frag)
{
	unsigned int i;

	f->l3 = f->n;
	u8(f, 0x40 | ihl);
	u8(f, 0x2e);			/* ToS */
	u16(f, 0);			/* total length, later */
	u16(f, 0x1234);			/* id */
	u16(f, frag);
	u8(f, 61);			/* TTL */
	u8(f, proto);
	u16(f, 0);
	u32(f, 0x0a000001);
	u32(f, 0xc0a80102);
	for (i = 5; i < ihl; i++)
		u32(f, 0x01010101);	/* options: NOPs */
}

static inline void
fin4(struct f *f)
{
	f->b[f->l3 + 2] = (uint8_t)((f->n - f->l3) >> 8);
	f->b[f->l3 + 3] = (uint8_t)(f->n - f->l3);
}

static inline void
ip6(struct f *f, unsigned int nh)
{
	unsigned int i;

	f->l3 = f->n;
	u32(f, 0x6a100000);		/* traffic class 0xa1 */
	u16(f, 0);			/* payload length, later */
	u8(f, nh);
	u8(f, 33);			/* hop limit */
	for (i = 0; i < 15; i++)
		u8(f, i == 0 ? 0xfd : 0);
	u8(f, 1);
	for (i = 0; i < 15; i++)
		u8(f, i == 0 ? 0xfd : 0);
	u8(f, 2);
}

static inline void
fin6(struct f *f)
{
	uint32_t pl = f->n - f->l3 - 40;

	f->b[f->l3 + 4] = (uint8_t)(pl >> 8);
	f->b[f->l3 + 5] = (uint8_t)pl;
}

static inline void
tcp(struct f *f, unsigned int sport, unsigned int dport, unsigned int flags)
{
	u16(f, sport);
	u16(f, dport);
	u32(f, 1);
	u32(f, 0);
	u16(f, 0x5000 | flags);
	u16(f, 1024);
	u32(f, 0);
}

static inline void
udp(struct f *f, unsigned int sport, unsigned int dport)
{
	u16(f, sport);
	u16(f, dport);
	u16(f, 8);
	u16(f, 0);
}

/* Ethernet, IPv4, TCP and 300 bytes of payload. */
static inline void
tcp_frame(struct f *f, unsigned int sport)
{
	unsigned int i;

	eth(f, 0x0800);
	ip4(f, 5, 6, 0);
	tcp(f, sport, 80, 0x10);
	for (i = 0; i < 300; i++)
		u8(f, i);
	fin4(f);
}

/* @p f as a chain whose first segment holds @p first bytes. */
static inline struct rte_mbuf *
chain_of(struct rte_mempool *mp, const struct f *f, uint32_t first)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp), *m2 = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	assert_non_null(m2);
	memcpy(rte_pktmbuf_append(m, (uint16_t)first), f->b, first);
	memcpy(rte_pktmbuf_append(m2, (uint16_t)(f->n - first)), f->b + first,
	       f->n - first);
	assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
	assert_int_equal(m->nb_segs, 2);
	assert_int_equal(m->pkt_len, f->n);
	return m;
}

#endif
