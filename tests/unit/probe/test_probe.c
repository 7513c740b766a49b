/* SPDX-License-Identifier: BSD-3-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "lr_dist.h"
#include "lr_flowcache.h"
#include "lr_parse.h"
#include "lr_parse_mbuf.h"
#include "lr_port.h"
#include "lr_probe.h"
#include "../lr_test.h"

/* A frame under construction. */
struct f {
	uint8_t b[512];
	uint32_t n;
	uint32_t l3;		/* where the IP header starts */
};

static void
u8(struct f *f, unsigned int v)
{
	f->b[f->n++] = (uint8_t)v;
}

static void
u16(struct f *f, unsigned int v)
{
	u8(f, v >> 8);
	u8(f, v);
}

static void
u32(struct f *f, uint32_t v)
{
	u16(f, v >> 16);
	u16(f, v & 0xffff);
}

static void
eth(struct f *f, unsigned int type)
{
	memset(f, 0, sizeof(*f));
	f->n = 12;
	u16(f, type);
}

/* IPv4 header of @p ihl words, total length filled in by fin4(). */
static void
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

static void
fin4(struct f *f)
{
	f->b[f->l3 + 2] = (uint8_t)((f->n - f->l3) >> 8);
	f->b[f->l3 + 3] = (uint8_t)(f->n - f->l3);
}

static void
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

static void
fin6(struct f *f)
{
	uint32_t pl = f->n - f->l3 - 40;

	f->b[f->l3 + 4] = (uint8_t)(pl >> 8);
	f->b[f->l3 + 5] = (uint8_t)pl;
}

static void
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

static void
udp(struct f *f, unsigned int sport, unsigned int dport)
{
	u16(f, sport);
	u16(f, dport);
	u16(f, 8);
	u16(f, 0);
}

/* Parse a copy of exactly f->n bytes: ASan catches any read past it. */
static enum lr_parse_result
parse(const struct f *f, uint32_t len, struct lr_pkt *p)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum lr_parse_result r;

	memcpy(copy, f->b, len);
	r = lr_parse(copy, len, p);
	free(copy);
	return r;
}

static void
ipv4_tcp_udp_icmp(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	eth(&f, 0x0800);
	ip4(&f, 5, 6, 0);
	tcp(&f, 1234, 80, 0x12);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.ipv6, 0);
	assert_int_equal(p.proto, 6);
	assert_int_equal(p.sport, 1234);
	assert_int_equal(p.dport, 80);
	assert_int_equal(p.tcp_flags, 0x12);
	assert_int_equal(p.tos, 0x2e);
	assert_int_equal(p.ttl, 61);
	assert_int_equal(p.ip_bytes, 40);
	assert_int_equal(p.src[0], 10);
	assert_int_equal(p.dst[3], 2);
	assert_int_equal(p.frag, LR_FRAG_NONE);
	assert_int_equal(p.l4_off, 34);

	/* Options (IHL 7) move the transport header; padding after the IP
	 * packet (a 60 B minimum frame) is not counted. */
	eth(&f, 0x0800);
	ip4(&f, 7, 17, 0);
	udp(&f, 53, 5353);
	fin4(&f);
	f.n += 10;
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.sport, 53);
	assert_int_equal(p.ip_bytes, 36);
	assert_int_equal(p.l4_off, 14 + 28);

	eth(&f, 0x0800);
	ip4(&f, 5, 1, 0);
	u8(&f, 8);			/* echo request */
	u8(&f, 0);
	u16(&f, 0);
	u32(&f, 0);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.sport, 0);
	assert_int_equal(p.dport, 0x0800);

	/* Another protocol: a 3-tuple flow. */
	eth(&f, 0x0800);
	ip4(&f, 5, 47, 0);		/* GRE */
	u32(&f, 0);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.proto, 47);
	assert_int_equal(p.sport + p.dport, 0);
}

static void
vlans_and_mpls(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	eth(&f, 0x88a8);		/* QinQ: outer 100, inner 200 */
	u16(&f, 100);
	u16(&f, 0x8100);
	u16(&f, 200);
	u16(&f, 0x0800);
	ip4(&f, 5, 17, 0);
	udp(&f, 1, 2);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.vlan, 100);
	assert_int_equal(p.dport, 2);

	eth(&f, 0x8847);		/* two labels, then IPv6 */
	u32(&f, (16u << 12) | 0x40);
	u32(&f, (17u << 12) | 0x140);	/* S bit */
	ip6(&f, 17);
	udp(&f, 7, 9);
	fin6(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.mpls, 2);
	assert_int_equal(p.ipv6, 1);
	assert_int_equal(p.sport, 7);

	eth(&f, 0x8847);		/* a stack that never ends */
	u32(&f, 0);
	u32(&f, 0);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_TRUNC_L2);

	eth(&f, 0x0806);		/* ARP */
	u32(&f, 0);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_NOT_IP);
}

static void
ipv6_extension_headers(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	/* hop-by-hop, routing, destination options, then TCP */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	u8(&f, 43); u8(&f, 0); u16(&f, 0); u32(&f, 0);		/* HBH, 8 B */
	u8(&f, 60); u8(&f, 1); u16(&f, 0); u32(&f, 0);		/* RH, 16 B */
	u32(&f, 0); u32(&f, 0);
	u8(&f, 6); u8(&f, 0); u16(&f, 0); u32(&f, 0);		/* DO, 8 B */
	tcp(&f, 443, 50000, 0x011);
	fin6(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.proto, 6);
	assert_int_equal(p.sport, 443);
	assert_int_equal(p.tcp_flags, 0x011);
	assert_int_equal(p.tos, 0xa1);
	assert_int_equal(p.ttl, 33);
	assert_int_equal(p.ip_bytes, 40 + 32 + 20);
	assert_int_equal(p.src[15], 1);

	/* Fragments: the first has the ports, a later one does not. */
	eth(&f, 0x86dd);
	ip6(&f, 44);
	u8(&f, 17); u8(&f, 0); u16(&f, 0x0001); u32(&f, 0xabcdef01);
	udp(&f, 1000, 2000);
	fin6(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.frag, LR_FRAG_FIRST);
	assert_int_equal(p.frag_id, 0xabcdef01);
	assert_int_equal(p.sport, 1000);
	eth(&f, 0x86dd);
	ip6(&f, 44);
	u8(&f, 17); u8(&f, 0); u16(&f, 0x0100); u32(&f, 0xabcdef01);
	u32(&f, 0xffffffff);
	fin6(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.frag, LR_FRAG_LATER);
	assert_int_equal(p.proto, 17);
	assert_int_equal(p.sport, 0);

	/* A chain of 9 hop-by-hop headers: more than we follow. */
	eth(&f, 0x86dd);
	ip6(&f, 0);
	for (int i = 0; i < 9; i++) {
		u8(&f, 0); u8(&f, 0); u16(&f, 0); u32(&f, 0);
	}
	fin6(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_BAD_EXT);
	/* An extension header longer than the packet. */
	eth(&f, 0x86dd);
	ip6(&f, 60);
	u8(&f, 6); u8(&f, 200); u16(&f, 0); u32(&f, 0);
	fin6(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_BAD_EXT);
}

static void
ipv4_fragments_and_lies(void **state)
{
	struct lr_pkt p;
	struct f f;

	(void)state;
	eth(&f, 0x0800);
	ip4(&f, 5, 17, 0x2000);		/* MF, offset 0 */
	udp(&f, 5, 6);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.frag, LR_FRAG_FIRST);
	assert_int_equal(p.frag_id, 0x1234);
	assert_int_equal(p.sport, 5);
	eth(&f, 0x0800);
	ip4(&f, 5, 17, 0x0010);		/* offset 128 B */
	u32(&f, 0);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_OK);
	assert_int_equal(p.frag, LR_FRAG_LATER);
	assert_int_equal(p.sport, 0);

	eth(&f, 0x0800);		/* IHL 4 */
	ip4(&f, 4, 17, 0);
	udp(&f, 1, 2);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_BAD_IHL);
	eth(&f, 0x0800);		/* total length above the frame */
	ip4(&f, 5, 17, 0);
	udp(&f, 1, 2);
	fin4(&f);
	f.b[f.l3 + 2] = 0x05;
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_BAD_LEN);
	f.b[f.l3 + 2] = 0;
	f.b[f.l3 + 3] = 12;		/* below the header */
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_BAD_LEN);
	eth(&f, 0x0800);		/* says IPv4, is version 6 */
	ip6(&f, 17);
	udp(&f, 1, 2);
	fin6(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_BAD_IHL);
	eth(&f, 0x0800);		/* TCP header cut short */
	ip4(&f, 5, 6, 0);
	u32(&f, 0);
	fin4(&f);
	assert_int_equal(parse(&f, f.n, &p), LR_PARSE_TRUNC_L4);
}

/* Every prefix of every good frame, and random bytes: a reason or OK,
 * never a read past the end (ASan in the sanitizer build). */
static void
never_reads_past_the_end(void **state)
{
	struct lr_pkt p;
	struct f f;
	uint32_t len, i, k, counts[LR_PARSE_REASONS] = { 0 };
	uint64_t s = 88172645463325252ull;

	(void)state;
	eth(&f, 0x88a8);
	u16(&f, 100);
	u16(&f, 0x8100);
	u16(&f, 200);
	u16(&f, 0x86dd);
	ip6(&f, 0);
	u8(&f, 44); u8(&f, 0); u16(&f, 0); u32(&f, 0);
	u8(&f, 6); u8(&f, 0); u16(&f, 0x0001); u32(&f, 7);
	tcp(&f, 1, 2, 0x2);
	fin6(&f);
	for (len = 0; len <= f.n; len++)
		counts[parse(&f, len, &p)]++;
	assert_int_equal(counts[LR_PARSE_OK], 1);
	assert_true(counts[LR_PARSE_TRUNC_L2] > 0 && counts[LR_PARSE_TRUNC_L3] > 0);
	for (k = 0; k < 200000; k++) {
		/* Random bytes behind a plausible start, random length. */
		static const uint16_t types[] = { 0x0800, 0x86dd, 0x8100, 0x8847, 0x88a8 };

		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		len = (uint32_t)(s % 200);
		memset(&f, 0, sizeof(f));
		for (i = 0; i < sizeof(f.b); i++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			f.b[i] = (uint8_t)s;
		}
		f.b[12] = (uint8_t)(types[k % 5] >> 8);
		f.b[13] = (uint8_t)types[k % 5];
		f.b[14] = (uint8_t)((k % 2 ? 0x45 : 0x60) | (f.b[14] & 0x0f));
		counts[parse(&f, len, &p)]++;
	}
	for (i = 0; i < LR_PARSE_REASONS; i++)
		assert_non_null(lr_parse_reason_names[i]);
}

/* Flow cache. Exported records land here. */
static struct lr_flow_rec out[4096];
static unsigned int nb_out;
static int refuse;

static int
keep(void *arg, const struct lr_flow_rec *r)
{
	(void)arg;
	if (refuse)
		return -1;
	assert_true(nb_out < RTE_DIM(out));
	out[nb_out++] = *r;
	return 0;
}

static uint32_t
same_hash(const struct lr_flow_key *k)
{
	(void)k;
	return 42;	/* every flow in one bucket, same signature */
}

static struct lr_pkt
pkt(unsigned int flow, unsigned int proto, unsigned int flags, unsigned int ttl)
{
	struct lr_pkt p;

	memset(&p, 0, sizeof(p));
	p.src[0] = 10;
	p.src[3] = 1;
	p.dst[0] = 10;
	p.dst[3] = 2;
	p.sport = (uint16_t)(1000 + flow);
	p.dport = 80;
	p.proto = (uint8_t)proto;
	p.tcp_flags = (uint16_t)flags;
	p.ttl = (uint8_t)ttl;
	p.ip_bytes = 100;
	return p;
}

static struct lr_fc *
cache(uint32_t entries, uint32_t (*hash)(const struct lr_flow_key *))
{
	struct lr_fc_conf c;
	struct lr_fc *fc;

	lr_fc_conf_init(&c);
	c.entries = entries;
	c.export = keep;
	c.hash = hash;
	c.active_s = 5;
	c.inactive_s = 2;
	fc = lr_fc_create(&c);
	assert_non_null(fc);
	nb_out = 0;
	refuse = 0;
	return fc;
}

static const struct lr_flow_rec *
find(unsigned int flow)
{
	unsigned int i;

	for (i = 0; i < nb_out; i++)
		if (out[i].sport == 1000 + flow)
			return &out[i];
	return NULL;
}

#define T0 (1763800000ull * 1000000000ull)
#define SEC 1000000000ull
#define MS 1000000ull

static void
cache_counts_flows(void **state)
{
	struct lr_fc *fc = cache(1 << 12, NULL);
	struct lr_pkt p[48];
	const struct lr_pkt *pp[48];
	const struct lr_flow_rec *r;
	unsigned int i;

	(void)state;
	for (i = 0; i < 48; i++) {	/* 3 flows, 16 packets each, one burst */
		p[i] = pkt(i % 3, 6, i == 5 ? 0x02 : 0x10, 60 + i % 5);
		pp[i] = &p[i];
	}
	lr_fc_update(fc, pp, 48, 7, T0 + 123456789);
	assert_int_equal(lr_fc_counts(fc)->active, 3);
	assert_int_equal(lr_fc_flush(fc), 3);
	assert_int_equal(nb_out, 3);
	r = find(2);
	assert_non_null(r);
	assert_int_equal(r->packets, 16);
	assert_int_equal(r->bytes, 1600);
	assert_int_equal(r->tcp_flags, 0x12);	/* SYN from packet 5, ACK */
	assert_int_equal(r->min_ttl, 60);
	assert_int_equal(r->max_ttl, 64);
	assert_int_equal(r->ingress, 7);
	assert_int_equal(r->end_reason, LR_FLOW_END_FORCED);
	assert_true(r->first_ns == T0 + 123456789);
	assert_int_equal(lr_fc_counts(fc)->active, 0);
	assert_true(lr_fc_capacity(fc) == 4096);
	assert_true(lr_fc_entry_bytes(true) <= 256);	/* 1M flows in <= 256 MB */
	assert_int_equal(lr_fc_entry_bytes(false), 96);
	assert_int_equal(lr_fc_entry_bytes(true), 120);
	lr_fc_free(fc);
}

/* Every key hashes alike: full key comparison keeps 8 flows apart, and a
 * ninth evicts the least recently seen for lack of resources. */
static void
cache_collisions_and_full(void **state)
{
	struct lr_fc *fc = cache(8, same_hash);
	struct lr_pkt p;
	const struct lr_pkt *pp = &p;
	unsigned int f, k;

	(void)state;
	for (k = 0; k < 3; k++)
		for (f = 0; f < 8; f++) {
			p = pkt(f, 17, 0, 64);
			lr_fc_update(fc, &pp, 1, 0, T0 + (k * 8 + f) * 1000);
		}
	assert_int_equal(nb_out, 0);
	p = pkt(8, 17, 0, 64);
	lr_fc_update(fc, &pp, 1, 0, T0 + SEC / 2);
	assert_int_equal(nb_out, 1);
	assert_int_equal(out[0].sport, 1000);		/* flow 0, oldest */
	assert_int_equal(out[0].packets, 3);
	assert_int_equal(out[0].end_reason, LR_FLOW_END_RESOURCES);
	lr_fc_flush(fc);
	assert_int_equal(nb_out, 9);
	for (f = 1; f < 8; f++)
		assert_int_equal(find(f)->packets, 3);
	assert_int_equal(find(8)->packets, 1);
	assert_int_equal(lr_fc_counts(fc)->ended[LR_FLOW_END_RESOURCES], 1);
	lr_fc_free(fc);
}

/* Inactive 2 s, active 5 s, FIN ends at once, a refused export counted. */
static void
cache_timeouts(void **state)
{
	struct lr_fc *fc = cache(64, NULL);
	struct lr_pkt p;
	const struct lr_pkt *pp = &p;
	unsigned int s;

	(void)state;
	p = pkt(1, 17, 0, 64);
	lr_fc_update(fc, &pp, 1, 0, T0);
	lr_fc_expire(fc, T0);
	assert_int_equal(lr_fc_expire(fc, T0 + SEC), 0);	/* 1 s idle */
	/* Deadlines are kept in ticks of 1.05 ms, rounded up: 2 s later and
	 * a tick, it is gone. */
	assert_int_equal(lr_fc_expire(fc, T0 + 2 * SEC + 2 * MS), 1);
	assert_int_equal(out[0].end_reason, LR_FLOW_END_IDLE);

	/* One packet a second for 7 s: active for 5 s, then a new record;
	 * no walk runs, the update path ends it. */
	for (s = 0; s <= 7; s++) {
		p = pkt(2, 17, 0, 64);
		lr_fc_update(fc, &pp, 1, 0, T0 + (10 + s) * SEC);
	}
	assert_int_equal(nb_out, 2);
	assert_int_equal(out[1].end_reason, LR_FLOW_END_ACTIVE);
	assert_int_equal(out[1].packets, 5);
	/* The walk ends flows with no more packets on time: the last
	 * packet at 17 s, the new record began at 15 s: active ends at 20. */
	assert_int_equal(lr_fc_expire(fc, T0 + 18 * SEC), 0);
	assert_int_equal(lr_fc_expire(fc, T0 + 19 * SEC + 2 * MS), 1);	/* idle 2 s */
	assert_int_equal(out[2].packets, 3);

	p = pkt(3, 6, 0x10, 64);
	lr_fc_update(fc, &pp, 1, 0, T0 + 30 * SEC);
	p = pkt(3, 6, 0x11, 64);				/* FIN */
	lr_fc_update(fc, &pp, 1, 0, T0 + 30 * SEC + 5);
	assert_int_equal(nb_out, 4);
	assert_int_equal(out[3].end_reason, LR_FLOW_END_DETECTED);
	assert_int_equal(out[3].packets, 2);
	assert_int_equal(out[3].tcp_flags, 0x11);

	refuse = 1;
	p = pkt(4, 17, 0, 64);
	lr_fc_update(fc, &pp, 1, 0, T0 + 40 * SEC);
	assert_int_equal(lr_fc_flush(fc), 1);
	assert_int_equal(lr_fc_counts(fc)->export_drops, 1);
	lr_fc_free(fc);
}

/* Biflow: A->B and B->A in one record, the first sender as the source. */
static void
cache_biflow(void **state)
{
	struct lr_fc_conf c;
	struct lr_fc *fc;
	struct lr_pkt p, q;
	const struct lr_pkt *pp = &p, *qq = &q;
	unsigned int k;

	(void)state;
	lr_fc_conf_init(&c);
	c.entries = 64;
	c.export = keep;
	c.biflow = true;
	fc = lr_fc_create(&c);
	assert_non_null(fc);
	nb_out = 0;
	refuse = 0;
	/* The "larger" endpoint speaks first: the key swaps it, the record
	 * must not. */
	q = pkt(1, 6, 0x02, 50);		/* 10.0.0.1:1001 -> 10.0.0.2:80 */
	p = q;
	memcpy(p.src, q.dst, 16);
	memcpy(p.dst, q.src, 16);
	p.sport = q.dport;
	p.dport = q.sport;
	p.tcp_flags = 0x12;
	p.ttl = 60;				/* the reply: B -> A */
	/* B (10.0.0.2:80, the larger endpoint, so its key is swapped) begins:
	 * three packets from B, two from A. */
	for (k = 0; k < 3; k++) {
		lr_fc_update(fc, &pp, 1, 0, T0 + k);
		if (k < 2)
			lr_fc_update(fc, &qq, 1, 0, T0 + k + 1);
	}
	assert_int_equal(lr_fc_counts(fc)->created, 1);
	lr_fc_flush(fc);
	assert_int_equal(nb_out, 1);
	assert_int_equal(out[0].src[3], 2);	/* 10.0.0.2 began it */
	assert_int_equal(out[0].sport, 80);
	assert_int_equal(out[0].dport, 1001);
	assert_int_equal(out[0].packets, 3);
	assert_int_equal(out[0].rev_packets, 2);
	assert_int_equal(out[0].tcp_flags, 0x12);
	assert_int_equal(out[0].rev_tcp_flags, 0x02);
	assert_int_equal(out[0].min_ttl, 60);
	assert_int_equal(out[0].rev_min_ttl, 50);
	/* And A first: no swap, same result shape. */
	nb_out = 0;
	lr_fc_update(fc, &qq, 1, 0, T0 + 2 * SEC);
	lr_fc_update(fc, &pp, 1, 0, T0 + 2 * SEC + 1);
	lr_fc_flush(fc);
	assert_int_equal(nb_out, 1);
	assert_int_equal(out[0].src[3], 1);
	assert_int_equal(out[0].packets, 1);
	assert_int_equal(out[0].rev_packets, 1);
	lr_fc_free(fc);
}

/* A later fragment joins its first fragment's flow; one without a first
 * goes to the ports-0 flow and is counted. */
static void
cache_fragments(void **state)
{
	struct lr_fc *fc = cache(64, NULL);
	struct lr_pkt p[4];
	const struct lr_pkt *pp[4] = { &p[0], &p[1], &p[2], &p[3] };
	const struct lr_flow_rec *r;

	(void)state;
	p[0] = pkt(1, 17, 0, 64);		/* first: ports 1001 -> 80 */
	p[0].frag = LR_FRAG_FIRST;
	p[0].frag_id = 77;
	p[1] = pkt(1, 17, 0, 64);		/* later, same id: no ports */
	p[1].frag = LR_FRAG_LATER;
	p[1].frag_id = 77;
	p[1].sport = p[1].dport = 0;
	p[1].ip_bytes = 500;
	p[2] = p[1];				/* and another */
	p[3] = p[1];				/* a later one of an unseen first */
	p[3].frag_id = 78;
	lr_fc_update(fc, pp, 4, 0, T0);
	lr_fc_flush(fc);
	assert_int_equal(nb_out, 2);
	r = find(1);
	assert_non_null(r);
	assert_int_equal(r->packets, 3);
	assert_int_equal(r->bytes, 100 + 500 + 500);
	assert_int_equal(lr_fc_counts(fc)->frag_later, 3);
	assert_int_equal(lr_fc_counts(fc)->frag_unmatched, 1);
	r = out[0].sport == 0 ? &out[0] : &out[1];
	assert_int_equal(r->sport + r->dport, 0);
	assert_int_equal(r->packets, 1);
	lr_fc_free(fc);
}

/* A distributor of @p count frames on @p port's queue 0 and two probes on
 * its channels, all on lcore @p lcore: run them to the end. Probe 0 names
 * its distributor, probe 1 takes the port's (the scripts' short form). */
static void
dist_and_two_probes(unsigned int lcore, uint16_t port, const char *count,
		    struct lr_task **d, struct lr_task *p[2])
{
	struct lr_dist_conf dc;
	struct lr_probe_conf pc;
	unsigned int i;

	lr_dist_conf_init(&dc);
	assert_int_equal(lr_dist_role.conf_set(&dc, "channels", "2"), 0);
	assert_int_equal(lr_dist_role.conf_set(&dc, "count", count), 0);
	*d = lr_task_create(&lr_dist_role, lcore, port, 0, 0, &dc);
	assert_non_null(*d);
	lr_probe_role.conf_init(&pc);
	assert_int_equal(lr_probe_role.conf_set(&pc, "entries", "1024"), 0);
	for (i = 0; i < 2; i++) {
		char ch[4];

		snprintf(ch, sizeof(ch), "%u", i);
		assert_int_equal(lr_probe_role.conf_set(&pc, "channel", ch), 0);
		if (i == 0) {
			char id[16];

			snprintf(id, sizeof(id), "%u", (*d)->id);
			assert_int_equal(lr_probe_role.conf_set(&pc, "dist", id), 0);
		} else {
			pc.dist_task = -1;
		}
		p[i] = lr_task_create(&lr_probe_role, lcore, port, LR_QUEUE_NONE, 0,
				      &pc);
		assert_non_null(p[i]);
	}
	assert_true(lr_engine_start() >= 1);
	assert_int_equal(lr_task_wait(*d, 5, 0), 0);
	assert_int_equal(lr_task_wait(p[0], 5, 0), 0);
	assert_int_equal(lr_task_wait(p[1], 5, 0), 0);
	lr_engine_stop();
}

/* The distributor over the virtual wire: mbufs that carry a NIC's RSS hash
 * go to the channel that hash picks (the model's hash is skipped), the
 * others to the model's; both channel probes see every flow once. */
static void
dist_takes_the_nic_hash(void **state)
{
	unsigned int w[4], i, n = 200;
	struct lr_probe_counts cnt[2];
	struct lr_task *d, *p[2];
	uint16_t wire[2];
	json_t *rep, *per;
	json_int_t flows;

	(void)state;
	assert_true(lr_engine_workers(w, 4) >= 1);
	assert_int_equal(lr_test_wire("dwire", wire), 0);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(lr_port_info(wire[0])->pool);
		struct f f;

		assert_non_null(m);
		eth(&f, 0x0800);
		ip4(&f, 5, 17, 0);
		udp(&f, 1000 + i % 100, 53);
		fin4(&f);
		memcpy(rte_pktmbuf_append(m, (uint16_t)f.n), f.b, f.n);
		if (i % 2 == 0) {	/* the NIC hashed these: channel 1 */
			m->hash.rss = 7;
			m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		}
		assert_int_equal(rte_eth_tx_burst(wire[0], 0, &m, 1), 1);
	}
	dist_and_two_probes(w[0], wire[1], "200", &d, p);
	rep = lr_task_report(d);
	assert_int_equal(json_integer_value(json_object_get(rep, "nic_hash")), 100);
	assert_int_equal(json_integer_value(json_object_get(rep, "handed")), 200);
	per = json_object_get(rep, "per_channel");
	lr_probe_counts(p[0], &cnt[0]);
	lr_probe_counts(p[1], &cnt[1]);
	/* Channel 1 has the NIC's 100 and what the model sent there. */
	assert_true(json_integer_value(json_array_get(per, 1)) >= 100);
	assert_int_equal(cnt[0].parsed[LR_PARSE_OK],
			 json_integer_value(json_array_get(per, 0)));
	assert_int_equal(cnt[0].parsed[LR_PARSE_OK] + cnt[1].parsed[LR_PARSE_OK], 200);
	json_decref(rep);
	/* Flow i % 100 was always or never NIC-hashed: each on one shard. */
	flows = 0;
	for (i = 0; i < 2; i++) {
		rep = lr_task_report(p[i]);
		flows += json_integer_value(json_object_get(rep, "flows_created"));
		json_decref(rep);
	}
	assert_int_equal(flows, 100);
}

/* A probe reads the distributor it names, or the port's made last; a
 * second distributor on a port waits for the first to be done. */
static void
dist_named_by_probe(void **state)
{
	struct lr_dist_channel ch;
	struct lr_dist_conf dc;
	struct lr_probe_conf pc;
	struct lr_task *d1, *d2, *p;
	unsigned int w[4];
	uint16_t wire[2];
	char id[16];

	(void)state;
	assert_true(lr_engine_workers(w, 4) >= 1);
	assert_int_equal(lr_test_wire("nwire", wire), 0);
	lr_dist_conf_init(&dc);
	assert_int_equal(lr_dist_role.conf_set(&dc, "channels", "2"), 0);
	d1 = lr_task_create(&lr_dist_role, w[0], wire[1], 0, 0, &dc);
	assert_non_null(d1);
	assert_ptr_equal(lr_dist_last(wire[1]), d1);
	assert_null(lr_dist_last(wire[0]));
	assert_int_equal(lr_dist_channel(d1, 1, &ch), 0);
	assert_int_equal(lr_dist_channel(d1, 2, &ch), -ENOENT);
	assert_int_equal(lr_dist_channel(NULL, 0, &ch), -EINVAL);
	/* One running distributor per port (the short form's promise). */
	assert_null(lr_task_create(&lr_dist_role, w[0], wire[1], 0, 0, &dc));
	assert_int_equal(rte_errno, EBUSY);

	lr_probe_role.conf_init(&pc);
	assert_int_equal(lr_probe_role.conf_set(&pc, "entries", "1024"), 0);
	assert_int_equal(lr_probe_role.conf_set(&pc, "channel", "1"), 0);
	/* Not a dist task, or one on another port. */
	p = lr_task_create(&lr_probe_role, w[0], wire[1], LR_QUEUE_NONE, 0, &pc);
	assert_non_null(p);
	assert_int_equal(lr_dist_channel(p, 0, &ch), -EINVAL);
	snprintf(id, sizeof(id), "%u", p->id);
	assert_int_equal(lr_probe_role.conf_set(&pc, "dist", id), 0);
	assert_null(lr_task_create(&lr_probe_role, w[0], wire[1], LR_QUEUE_NONE,
				   0, &pc));
	assert_int_equal(rte_errno, EINVAL);
	snprintf(id, sizeof(id), "%u", d1->id);
	assert_int_equal(lr_probe_role.conf_set(&pc, "dist", id), 0);
	assert_null(lr_task_create(&lr_probe_role, w[0], wire[0], LR_QUEUE_NONE,
				   0, &pc));
	assert_int_equal(rte_errno, EINVAL);

	/* Done, d1 gives way; a probe may still name it. */
	lr_task_stop(d1);
	d2 = lr_task_create(&lr_dist_role, w[0], wire[1], 0, 0, &dc);
	assert_non_null(d2);
	assert_ptr_equal(lr_dist_last(wire[1]), d2);
	assert_non_null(lr_task_create(&lr_probe_role, w[0], wire[1],
				       LR_QUEUE_NONE, 0, &pc));
	lr_engine_stop();
}

/* A capture's burst: each packet at its own time, which may be seconds
 * apart within one burst. A flow idle for longer than its inactive timeout
 * in the trace ends by it before its next packet starts a new record. */
static void
cache_trace_times(void **state)
{
	static const unsigned int flow[5] = { 1, 1, 2, 1, 2 };
	static const uint64_t at[5] = { 0, SEC, SEC + SEC / 2, 10 * SEC,
					10 * SEC + SEC / 2 };
	struct lr_fc *fc = cache(64, NULL);	/* inactive 2 s, active 5 s */
	struct lr_pkt p[5];
	const struct lr_pkt *pp[5];
	uint64_t ts[5];
	unsigned int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		p[i] = pkt(flow[i], 17, 0, 64);
		pp[i] = &p[i];
		ts[i] = T0 + at[i];
	}
	lr_fc_update_ts(fc, pp, 5, 0, ts);
	assert_int_equal(nb_out, 2);
	assert_int_equal(out[0].sport, 1001);
	assert_int_equal(out[0].first_ns, T0);
	assert_int_equal(out[0].last_ns, T0 + SEC);
	assert_int_equal(out[0].packets, 2);
	assert_int_equal(out[0].end_reason, LR_FLOW_END_IDLE);
	assert_int_equal(out[1].sport, 1002);
	assert_int_equal(out[1].first_ns, T0 + SEC + SEC / 2);
	assert_int_equal(out[1].last_ns, T0 + SEC + SEC / 2);
	assert_int_equal(out[1].end_reason, LR_FLOW_END_IDLE);
	/* The walk in trace time: 3 s after the last packets, both idle. */
	lr_fc_expire(fc, T0 + 11 * SEC);
	assert_int_equal(lr_fc_expire(fc, T0 + 13 * SEC), 2);
	assert_int_equal(nb_out, 4);
	assert_int_equal(find(1)->first_ns, T0);	/* the first found */
	assert_int_equal(out[2].first_ns, out[2].last_ns);
	assert_true(out[2].first_ns == T0 + 10 * SEC ||
		    out[2].first_ns == T0 + 10 * SEC + SEC / 2);
	lr_fc_free(fc);
}

/* Ethernet, IPv4, TCP and 300 bytes of payload. */
static void
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
static struct rte_mbuf *
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

/* A chain: lengths from the whole frame, headers from the first segment,
 * or gathered from the chain when they straddle it. */
static void
parse_chained_mbuf(void **state)
{
	static const uint32_t firsts[] = { 10, 14 + 10, 14 + 20 + 5, 100 };
	struct rte_mempool *mp;
	struct lr_pkt p;
	struct f f;
	unsigned int i;

	(void)state;
	mp = rte_pktmbuf_pool_create("chainpool", 63, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(mp);
	tcp_frame(&f, 4242);
	for (i = 0; i < RTE_DIM(firsts); i++) {
		struct rte_mbuf *m = chain_of(mp, &f, firsts[i]);

		assert_int_equal(lr_parse_mbuf(m, UINT32_MAX, &p), LR_PARSE_OK);
		assert_int_equal(p.ip_bytes, f.n - 14);
		assert_int_equal(p.sport, 4242);
		assert_int_equal(p.tcp_flags, 0x10);
		/* A trim that cuts the TCP header still cuts it. */
		assert_int_equal(lr_parse_mbuf(m, 40, &p), LR_PARSE_TRUNC_L4);
		rte_pktmbuf_free(m);
	}
	rte_mempool_free(mp);
}

/* The distributor on chained frames (net_pcap chains a frame longer than
 * an mbuf): every one parsed whole and handed on, none bad_len. */
static void
dist_parses_chained_frames(void **state)
{
	unsigned int w[4], i, n = 100;
	struct lr_probe_counts cnt[2];
	struct lr_task *d, *p[2];
	uint16_t wire[2];
	json_t *rep, *mal;

	(void)state;
	assert_true(lr_engine_workers(w, 4) >= 1);
	assert_int_equal(lr_test_wire("cwire", wire), 0);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m;
		struct f f;

		tcp_frame(&f, 2000 + i % 10);
		m = chain_of(lr_port_info(wire[0])->pool, &f, 60);
		assert_int_equal(rte_eth_tx_burst(wire[0], 0, &m, 1), 1);
	}
	dist_and_two_probes(w[0], wire[1], "100", &d, p);
	rep = lr_task_report(d);
	mal = json_object_get(rep, "malformed");
	assert_int_equal(json_integer_value(json_object_get(mal, "bad_len")), 0);
	assert_int_equal(json_integer_value(json_object_get(rep, "handed")), 100);
	json_decref(rep);
	lr_probe_counts(p[0], &cnt[0]);
	lr_probe_counts(p[1], &cnt[1]);
	assert_int_equal(cnt[0].parsed[LR_PARSE_OK] + cnt[1].parsed[LR_PARSE_OK], 100);
}

static int
eal_up(void **state)
{
	(void)state;
	return lr_test_eal_init("probe");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipv4_tcp_udp_icmp),
		cmocka_unit_test(vlans_and_mpls),
		cmocka_unit_test(ipv6_extension_headers),
		cmocka_unit_test(ipv4_fragments_and_lies),
		cmocka_unit_test(never_reads_past_the_end),
		cmocka_unit_test(cache_counts_flows),
		cmocka_unit_test(cache_collisions_and_full),
		cmocka_unit_test(cache_timeouts),
		cmocka_unit_test(cache_biflow),
		cmocka_unit_test(cache_fragments),
		cmocka_unit_test(dist_takes_the_nic_hash),
		cmocka_unit_test(dist_named_by_probe),
		cmocka_unit_test(cache_trace_times),
		cmocka_unit_test(parse_chained_mbuf),
		cmocka_unit_test(dist_parses_chained_frames),
	};

	return cmocka_run_group_tests(tests, eal_up, lr_test_teardown);
}
