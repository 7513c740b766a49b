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

#include "lr_common.h"
#include "lr_flowcache.h"
#include "lr_parse.h"
#include "lr_parse_mbuf.h"
#include "lr_port.h"
#include "lr_probe.h"
#include "../lr_frame.h"
#include "../lr_test.h"

/* Parse a copy of exactly f->n bytes: ASan catches any read past it. */
static enum lr_parse_result
parse(const struct f *f, uint32_t len, struct lr_parsed *p)
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
	struct lr_parsed p;
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
	struct lr_parsed p;
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
	assert_int_equal(p.vlan_inner, 200);
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
	struct lr_parsed p;
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
	struct lr_parsed p;
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
	struct lr_parsed p;
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

static struct lr_parsed
pkt(unsigned int flow, unsigned int proto, unsigned int flags, unsigned int ttl)
{
	struct lr_parsed p;

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
cache_of(uint32_t entries, uint32_t (*hash)(const struct lr_flow_key *),
	 bool biflow)
{
	struct lr_fc_conf c;
	struct lr_fc *fc;

	lr_fc_conf_init(&c);
	c.entries = entries;
	c.export = keep;
	c.hash = hash;
	c.active_s = 5;
	c.inactive_s = 2;
	c.biflow = biflow;
	fc = lr_fc_create(&c);
	assert_non_null(fc);
	nb_out = 0;
	refuse = 0;
	return fc;
}

static struct lr_fc *
cache(uint32_t entries, uint32_t (*hash)(const struct lr_flow_key *))
{
	return cache_of(entries, hash, false);
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
	struct lr_parsed p[48];
	const struct lr_parsed *pp[48];
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
	assert_int_equal(lr_fc_entry_bytes(false), 88);
	assert_int_equal(lr_fc_entry_bytes(true), 112);
	lr_fc_free(fc);
}

/* Every key hashes alike: full key comparison keeps 8 flows apart, and a
 * ninth evicts the least recently seen for lack of resources. */
static void
cache_collisions_and_full(void **state)
{
	struct lr_fc *fc = cache(8, same_hash);
	struct lr_parsed p;
	const struct lr_parsed *pp = &p;
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

/* Eight flows whose hashes collide (one bucket, one signature), in bursts
 * longer than the distance the update looks ahead, each packet with its
 * own time, size, TTL and flags: every way's record (its key line and its
 * tail, two of which cross a line) keeps its own flow's sums, and a burst
 * finds the flows it made itself. */
static unsigned int
flags_of(unsigned int f)
{
	/* ACK and one of each pair: never FIN or RST, each flow its own. */
	return 0x10 | (f & 1 ? 0x08 : 0x02) | (f & 2 ? 0x20 : 0) |
	       (f & 4 ? 0x40 : 0);
}

static void
cache_collisions_in_a_burst(void **state)
{
	struct lr_fc *fc = cache(8, same_hash);
	struct lr_parsed p[2][LR_BURST];
	const struct lr_parsed *pp[LR_BURST];
	uint64_t ts[LR_BURST];
	unsigned int b, i, f;

	(void)state;
	for (b = 0; b < 2; b++) {
		for (i = 0; i < LR_BURST; i++) {
			f = (i * 3 + b) % 8;
			p[b][i] = pkt(f, 6, flags_of(f), 30 + f * 10 + i % 3);
			p[b][i].ip_bytes = (uint16_t)(40 + f);
			p[b][i].tos = (uint8_t)(f * 4);
			pp[i] = &p[b][i];
			ts[i] = T0 + (b * LR_BURST + i) * 1000;
		}
		lr_fc_update_ts(fc, pp, LR_BURST, 3, ts);
	}
	assert_int_equal(lr_fc_counts(fc)->created, 8);
	assert_int_equal(lr_fc_counts(fc)->active, 8);
	assert_int_equal(lr_fc_flush(fc), 8);
	assert_int_equal(nb_out, 8);
	for (f = 0; f < 8; f++) {
		const struct lr_flow_rec *r = find(f);
		uint64_t first = ~0ull, last = 0, n = 0;
		unsigned int minttl = 255, maxttl = 0;

		for (b = 0; b < 2; b++)
			for (i = 0; i < LR_BURST; i++) {
				uint64_t t = T0 + (b * LR_BURST + i) * 1000;

				if ((i * 3 + b) % 8 != f)
					continue;
				n++;
				first = RTE_MIN(first, t);
				last = RTE_MAX(last, t);
				minttl = RTE_MIN(minttl, p[b][i].ttl);
				maxttl = RTE_MAX(maxttl, p[b][i].ttl);
			}
		assert_non_null(r);
		assert_true(r->packets == n);
		assert_true(r->bytes == n * (40 + f));
		assert_true(r->first_ns == first);
		assert_true(r->last_ns == last);
		assert_int_equal(r->min_ttl, minttl);
		assert_int_equal(r->max_ttl, maxttl);
		assert_int_equal(r->tcp_flags, flags_of(f));
		assert_int_equal(r->tos, f * 4);
		assert_int_equal(r->ingress, 3);
		assert_int_equal(r->dport, 80);
		assert_int_equal(r->end_reason, LR_FLOW_END_FORCED);
	}
	lr_fc_free(fc);
}

/* QinQ: flows that differ only in the inner (customer) VID are flows of
 * their own; packets of one pair of VIDs are one flow. Every key hashes
 * alike, so only the key comparison keeps them apart, and the pairs take
 * the VIDs' 12 bits at their edges (the inner VID's top 4 bits share a
 * field with the outer VID). */
static void
cache_qinq_inner_vid(void **state)
{
	static const uint16_t vid[8][2] = {
		{ 100, 0 }, { 100, 200 }, { 100, 201 }, { 100, 200 + 0x100 },
		{ 100, 0xfff }, { 0xfff, 200 }, { 0xfff, 0xfff }, { 101, 200 },
	};
	struct lr_fc *fc = cache(8, same_hash);
	struct lr_parsed p[36];
	const struct lr_parsed *pp[36];
	struct lr_flow_key k;
	unsigned int i, f, n = 0, v;

	(void)state;
	for (f = 0; f < 8; f++)		/* flow f: f + 1 packets */
		for (i = 0; i <= f; i++) {
			p[n] = pkt(0, 17, 0, 64);
			p[n].vlan = vid[f][0];
			p[n].vlan_inner = vid[f][1];
			pp[n] = &p[n];
			n++;
		}
	lr_fc_update(fc, pp, n, 0, T0);
	assert_int_equal(lr_fc_counts(fc)->created, 8);
	assert_int_equal(lr_fc_flush(fc), 8);
	assert_int_equal(nb_out, 8);
	for (f = 0; f < 8; f++) {
		const struct lr_flow_rec *r = NULL;

		for (i = 0; i < nb_out; i++)
			if (out[i].vlan == vid[f][0] &&
			    out[i].vlan_inner == vid[f][1])
				r = &out[i];
		assert_non_null(r);
		assert_int_equal(r->packets, f + 1);
		assert_int_equal(r->sport, 1000);
	}
	lr_fc_free(fc);
	/* The key gives back both ids, every inner VID with the outer's
	 * extremes. */
	for (v = 0; v < 4096; v++) {
		struct lr_parsed q = pkt(0, 17, 0, 64);

		q.vlan = (uint16_t)(v % 2 ? 0xfff : 1);
		q.vlan_inner = (uint16_t)v;
		lr_fc_key(&q, 0, false, &k);
		assert_int_equal(lr_fc_key_vlan(&k), q.vlan);
		assert_int_equal(lr_fc_key_vlan_inner(&k), v);
	}
}

/* Biflow over QinQ: each inner VID its own record, whichever endpoint
 * began; the direction bit the record keeps beside the TCP flags never
 * shows in tcpControlBits, nor does a packet's flags field set it (a
 * uniflow cache has no reverse side to count a packet in). */
static void
cache_biflow_qinq_direction(void **state)
{
	struct lr_fc *fc;
	struct lr_parsed a, b;
	const struct lr_parsed *pa = &a, *pb = &b;
	unsigned int v, i;

	(void)state;
	fc = cache_of(64, NULL, true);
	for (v = 0; v < 2; v++) {
		/* A: 10.0.0.1:1001, B: 10.0.0.2:80, the larger endpoint, which
		 * begins under inner VID 300 (its key swapped), A under 301.
		 * Every flag but FIN and RST. */
		a = pkt(1, 6, 0x0ffa, 50);
		a.vlan = 10;
		a.vlan_inner = (uint16_t)(300 + v);
		b = a;
		memcpy(b.src, a.dst, 16);
		memcpy(b.dst, a.src, 16);
		b.sport = a.dport;
		b.dport = a.sport;
		b.tcp_flags = 0x0012;
		b.ttl = 60;
		for (i = 0; i < 3; i++) {
			lr_fc_update(fc, v == 0 ? &pb : &pa, 1, 0, T0 + i * 2);
			if (i < 2)
				lr_fc_update(fc, v == 0 ? &pa : &pb, 1, 0,
					     T0 + i * 2 + 1);
		}
	}
	assert_int_equal(lr_fc_counts(fc)->created, 2);
	assert_int_equal(lr_fc_flush(fc), 2);
	assert_int_equal(nb_out, 2);
	for (i = 0; i < 2; i++) {
		const struct lr_flow_rec *r = &out[i];
		bool b_began = r->vlan_inner == 300;

		assert_true(r->vlan_inner == 300 || r->vlan_inner == 301);
		assert_int_equal(r->vlan, 10);
		assert_int_equal(r->src[3], b_began ? 2 : 1);
		assert_int_equal(r->sport, b_began ? 80 : 1001);
		assert_int_equal(r->dport, b_began ? 1001 : 80);
		assert_int_equal(r->packets, 3);
		assert_int_equal(r->rev_packets, 2);
		assert_int_equal(r->tcp_flags, b_began ? 0x0012 : 0x0ffa);
		assert_int_equal(r->rev_tcp_flags, b_began ? 0x0ffa : 0x0012);
		assert_int_equal(r->min_ttl, b_began ? 60 : 50);
		assert_int_equal(r->rev_min_ttl, b_began ? 50 : 60);
	}
	assert_int_not_equal(out[0].vlan_inner, out[1].vlan_inner);
	lr_fc_free(fc);

	/* Uniflow, a flags field with more than RFC 7125's 12 bits (a UH
	 * record from another backend): counted forward, exported masked. */
	fc = cache(64, NULL);
	a = pkt(2, 6, 0xf010, 64);
	for (i = 0; i < 3; i++)
		lr_fc_update(fc, &pa, 1, 0, T0 + i);
	assert_int_equal(lr_fc_flush(fc), 1);
	assert_int_equal(out[0].packets, 3);
	assert_int_equal(out[0].tcp_flags, 0x0010);
	lr_fc_free(fc);
}

/* Inactive 2 s, active 5 s, FIN ends at once, a refused export counted. */
static void
cache_timeouts(void **state)
{
	struct lr_fc *fc = cache(64, NULL);
	struct lr_parsed p;
	const struct lr_parsed *pp = &p;
	unsigned int s;

	(void)state;
	p = pkt(1, 17, 0, 64);
	lr_fc_update(fc, &pp, 1, 0, T0);
	lr_fc_expire(fc, T0);
	assert_int_equal(lr_fc_expire(fc, T0 + SEC), 0);	/* 1 s idle */
	/* Idle 2 s (to the ns; the walk comes by a bucket once a second):
	 * gone. */
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

/* Timeouts to the ns, whatever the ticks: a flow idle a little less than
 * its inactive timeout lives on (before, a tick's rounding ended it, with
 * the active reason); one idle just as long ends, idle. And a capture's
 * packets out of time order: the record spans the earliest to the latest,
 * never ending before it starts. */
static void
cache_timeouts_exact(void **state)
{
	struct lr_fc *fc = cache(64, NULL);
	struct lr_parsed p = pkt(5, 17, 0, 64);
	const struct lr_parsed *pp = &p;
	const uint64_t tick = 1ull << 20, t = T0 + tick - 1;	/* a tick's end */
	uint64_t ts[3];

	(void)state;
	lr_fc_update(fc, &pp, 1, 0, T0);
	lr_fc_expire(fc, T0);
	lr_fc_update(fc, &pp, 1, 0, t);
	lr_fc_update(fc, &pp, 1, 0, t + 2 * SEC - MS / 4);	/* idle 1.99975 s */
	assert_int_equal(nb_out, 0);
	/* The walk, over the whole table (the last was 4 s ago). */
	assert_int_equal(lr_fc_expire(fc, t + 4 * SEC - MS), 0);
	/* A packet 2 s after the last: the flow ended idle, a new one. */
	lr_fc_update(fc, &pp, 1, 0, t + 4 * SEC - MS / 4);
	assert_int_equal(nb_out, 1);
	assert_int_equal(out[0].end_reason, LR_FLOW_END_IDLE);
	assert_int_equal(out[0].packets, 3);
	assert_int_equal(lr_fc_flush(fc), 1);
	nb_out = 0;

	ts[0] = T0 + 20 * SEC;
	ts[1] = T0 + 19 * SEC;		/* a second earlier */
	ts[2] = T0 + 20 * SEC + MS;
	p = pkt(6, 17, 0, 64);
	pp = &p;
	{
		const struct lr_parsed *three[3] = { &p, &p, &p };

		lr_fc_update_ts(fc, three, 3, 0, ts);
	}
	assert_int_equal(lr_fc_flush(fc), 1);
	assert_int_equal(out[0].packets, 3);
	assert_true(out[0].first_ns == T0 + 19 * SEC);
	assert_true(out[0].last_ns == T0 + 20 * SEC + MS);
	lr_fc_free(fc);
}

/* Biflow: A->B and B->A in one record, the first sender as the source. */
static void
cache_biflow(void **state)
{
	struct lr_fc *fc;
	struct lr_parsed p, q;
	const struct lr_parsed *pp = &p, *qq = &q;
	unsigned int k;

	(void)state;
	fc = cache_of(64, NULL, true);
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
	struct lr_parsed p[4];
	const struct lr_parsed *pp[4] = { &p[0], &p[1], &p[2], &p[3] };
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
	struct lr_parsed p[5];
	const struct lr_parsed *pp[5];
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

/* A chain: lengths from the whole frame, headers from the first segment,
 * or gathered from the chain when they straddle it. */
static void
parse_chained_mbuf(void **state)
{
	static const uint32_t firsts[] = { 10, 14 + 10, 14 + 20 + 5, 100 };
	struct rte_mempool *mp;
	struct lr_parsed p;
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

static int
eal_up(void **state)
{
	(void)state;
	return lr_test_eal_init("probe");
}

/* The number in the last parentheses of option @p name's help: its
 * default as --help and doc/usage.md say it, read as the option would be. */
static uint64_t
help_default(const struct lr_opt *tab, const char *name)
{
	const char *open, *close;
	char num[32];
	uint64_t v;

	for (; tab->name != NULL; tab++)
		if (strcmp(tab->name, name) == 0)
			break;
	assert_non_null(tab->name);
	open = strrchr(tab->help, '(');
	close = strrchr(tab->help, ')');
	assert_true(open != NULL && close > open + 1 &&
		    (size_t)(close - open) < sizeof(num));
	snprintf(num, sizeof(num), "%.*s", (int)(close - open - 1), open + 1);
	assert_int_equal(lr_parse_u64(num, &v), 0);
	return v;
}

/* The flow cache's defaults are one: the cache's, the probe's conf and the
 * help text (which said 1M, read as 1000000, for 2^20). */
static void
flow_cache_defaults_once(void **state)
{
	struct lr_probe_conf pc;
	struct lr_fc_conf fc;

	(void)state;
	lr_fc_conf_init(&fc);
	lr_probe_conf_init(&pc);
	assert_int_equal(pc.entries, fc.entries);
	assert_int_equal(pc.active_s, fc.active_s);
	assert_int_equal(pc.inactive_s, fc.inactive_s);
	assert_int_equal(help_default(lr_probe_role.opts, "entries"), fc.entries);
	assert_int_equal(help_default(lr_probe_role.opts, "active"), fc.active_s);
	assert_int_equal(help_default(lr_probe_role.opts, "inactive"),
			 fc.inactive_s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flow_cache_defaults_once),
		cmocka_unit_test(ipv4_tcp_udp_icmp),
		cmocka_unit_test(vlans_and_mpls),
		cmocka_unit_test(ipv6_extension_headers),
		cmocka_unit_test(ipv4_fragments_and_lies),
		cmocka_unit_test(never_reads_past_the_end),
		cmocka_unit_test(cache_counts_flows),
		cmocka_unit_test(cache_collisions_and_full),
		cmocka_unit_test(cache_collisions_in_a_burst),
		cmocka_unit_test(cache_timeouts),
		cmocka_unit_test(cache_timeouts_exact),
		cmocka_unit_test(cache_biflow),
		cmocka_unit_test(cache_qinq_inner_vid),
		cmocka_unit_test(cache_biflow_qinq_direction),
		cmocka_unit_test(cache_fragments),
		cmocka_unit_test(cache_trace_times),
		cmocka_unit_test(parse_chained_mbuf),
	};

	return cmocka_run_group_tests(tests, eal_up, lr_test_teardown);
}
