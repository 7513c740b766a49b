/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The firmware model as the golden reference: its Toeplitz hash against the
 * Microsoft RSS specification's vectors and DPDK's rte_softrss, its parser
 * against lib's lr_parse over built and random frames; the distributor's
 * fast backend (table Toeplitz, lr_parse) against the model record by record.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_byteorder.h>
#include <rte_thash.h>

#include "lr_distributor.h"
#include "lr_fw.h"
#include "lr_fw_fast.h"
#include "lr_parse.h"
#include "lr_thash.h"

/* The Microsoft RSS verification suite, IPv4: (src, sport, dst, dport),
 * the hash over addresses only and over addresses and ports. */
static const struct {
	const char *src, *dst;
	uint16_t sport, dport;
	uint32_t l3, l4;
} ms4[] = {
	{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2 },
};

static void
toeplitz_vectors(void **state)
{
	struct lr_fw_conf c;
	uint8_t in[12];
	unsigned int i;

	(void)state;
	lr_fw_conf_init(&c);
	for (i = 0; i < sizeof(ms4) / sizeof(ms4[0]); i++) {
		inet_pton(AF_INET, ms4[i].src, in);
		inet_pton(AF_INET, ms4[i].dst, in + 4);
		in[8] = (uint8_t)(ms4[i].sport >> 8);
		in[9] = (uint8_t)ms4[i].sport;
		in[10] = (uint8_t)(ms4[i].dport >> 8);
		in[11] = (uint8_t)ms4[i].dport;
		assert_int_equal(lr_fw_toeplitz(c.key, c.key_len, in, 8), ms4[i].l3);
		assert_int_equal(lr_fw_toeplitz(c.key, c.key_len, in, 12), ms4[i].l4);
	}
}

/* Random tuples, the default and a symmetric key: the model and
 * rte_softrss (host-order words) agree. */
static void
toeplitz_matches_softrss(void **state)
{
	struct lr_fw_conf c;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned int k, i, w;

	(void)state;
	lr_fw_conf_init(&c);
	for (k = 0; k < 20000; k++) {
		uint8_t in[36];
		uint32_t words[9];
		unsigned int n = k % 2 ? 36 : 12;

		if (k == 10000)		/* the symmetric key */
			for (i = 0; i < c.key_len; i++)
				c.key[i] = i % 2 ? 0x5a : 0x6d;
		for (i = 0; i < n; i++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			in[i] = (uint8_t)s;
		}
		for (w = 0; w < n / 4; w++)
			words[w] = (uint32_t)in[4 * w] << 24 | (uint32_t)in[4 * w + 1] << 16 |
				   (uint32_t)in[4 * w + 2] << 8 | in[4 * w + 3];
		assert_int_equal(lr_fw_toeplitz(c.key, c.key_len, in, n),
				 rte_softrss(words, n / 4, c.key));
	}
}

/* The same frame through both parsers: the same verdict and fields. */
static void
agree(const uint8_t *d, uint32_t len)
{
	struct lr_fw_conf c;
	struct lr_fw_uh uh;
	struct lr_parsed p;
	enum lr_parse_result r;

	lr_fw_conf_init(&c);
	r = lr_parse(d, len, &p);
	lr_fw_model_ops.parse(&c, d, len, 42, &uh);
	assert_int_equal(uh.status, r);
	assert_int_equal(uh.wire_len, len);
	assert_true(uh.ts_ns == 42);
	if (r != LR_PARSE_OK)
		return;
	assert_int_equal(uh.ip_ver, p.ipv6 ? 6 : 4);
	assert_int_equal(uh.proto, p.proto);
	assert_int_equal(uh.sport, p.sport);
	assert_int_equal(uh.dport, p.dport);
	assert_int_equal(uh.tcp_flags, p.tcp_flags);
	assert_int_equal(uh.tos, p.tos);
	assert_int_equal(uh.ttl, p.ttl);
	assert_int_equal(uh.vlan, p.vlan);
	assert_int_equal(uh.vlan_inner, p.vlan_inner);
	assert_int_equal(uh.frag, p.frag);
	assert_int_equal(uh.frag_id, p.frag_id);
	assert_int_equal(uh.ip_bytes, p.ip_bytes);
	assert_memory_equal(uh.src, p.src, 16);
	assert_memory_equal(uh.dst, p.dst, 16);
	assert_int_equal(uh.channel, uh.hash % c.channels);
}

/* A probe that sees only @p trim bytes (and the frame's length) finds what
 * the firmware finds in the whole frame, unless a header lies past the trim. */
static void
agree_trimmed(const uint8_t *d, uint32_t len, uint32_t trim)
{
	struct lr_fw_conf c;
	struct lr_fw_uh uh;
	struct lr_parsed p;
	enum lr_parse_result r;
	uint32_t cap = len < trim ? len : trim;
	uint8_t *cut = malloc(cap ? cap : 1);

	memcpy(cut, d, cap);
	r = lr_parse_wire(cut, cap, len, &p);
	free(cut);
	lr_fw_conf_init(&c);
	lr_fw_model_ops.parse(&c, d, len, 0, &uh);
	if (r == LR_PARSE_TRUNC_L4 && uh.status == LR_PARSE_OK)
		return;		/* the trim cut a header: counted, not wrong */
	assert_int_equal(uh.status, r);
	if (r != LR_PARSE_OK)
		return;
	assert_int_equal(uh.ip_bytes, p.ip_bytes);
	assert_int_equal(uh.sport, p.sport);
	assert_int_equal(uh.dport, p.dport);
	assert_int_equal(uh.proto, p.proto);
	assert_memory_equal(uh.src, p.src, 16);
}

/* Frames from pieces: every header kind, then mutated and cut. */
static uint32_t
build(uint8_t *d, uint64_t *s)
{
	static const uint16_t l2[] = { 0x0800, 0x86dd, 0x8100, 0x88a8, 0x8847, 0x0806 };
	uint32_t n = 12, i;
	uint16_t type;
	unsigned int pick;

#define RND() (*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17, *s)
	memset(d, 0, 12);
	type = l2[RND() % 6];
	d[n++] = (uint8_t)(type >> 8);
	d[n++] = (uint8_t)type;
	while (type == 0x8100 || type == 0x88a8) {
		uint16_t next = l2[RND() % 3];	/* IPv4, IPv6 or another tag */

		d[n++] = (uint8_t)RND();	/* PCP, DEI and the VID */
		d[n++] = (uint8_t)RND();
		d[n++] = (uint8_t)(next >> 8);
		d[n++] = (uint8_t)next;
		type = next;
	}
	if (type == 0x8847) {
		unsigned int labels = 1 + RND() % 3;

		for (i = 0; i < labels; i++) {
			d[n++] = 0;
			d[n++] = 0x10;
			d[n++] = i + 1 == labels ? 1 : 0;
			d[n++] = 64;
		}
		type = RND() % 2 ? 0x0800 : 0x86dd;
	}
	pick = RND() % 6;
	if (type == 0x0800) {
		uint32_t ihl = 5 + RND() % 3, l3 = n;
		static const uint8_t protos[] = { 6, 17, 1, 132, 47, 6 };

		d[n++] = (uint8_t)(0x40 | ihl);
		d[n++] = (uint8_t)RND();
		n += 2;
		d[n++] = (uint8_t)RND();
		d[n++] = (uint8_t)RND();
		d[n++] = (uint8_t)(RND() % 4 == 0 ? 0x20 : RND() % 4 == 0 ? 0x01 : 0);
		d[n++] = 0;
		d[n++] = (uint8_t)RND();
		d[n++] = protos[pick];
		n += 2;
		for (i = 0; i < 8 + (ihl - 5) * 4; i++)
			d[n++] = (uint8_t)RND();
		for (i = 0; i < 20; i++)
			d[n++] = (uint8_t)RND();
		d[l3 + 2] = (uint8_t)((n - l3) >> 8);
		d[l3 + 3] = (uint8_t)(n - l3);
	} else if (type == 0x86dd) {
		uint32_t l3 = n;
		static const uint8_t nh[] = { 6, 17, 58, 0, 44, 60 };
		uint8_t first = nh[pick];

		d[n++] = (uint8_t)(0x60 | (RND() & 0x0f));
		for (i = 0; i < 3; i++)
			d[n++] = (uint8_t)RND();
		n += 2;
		d[n++] = first;
		d[n++] = (uint8_t)RND();
		for (i = 0; i < 32; i++)
			d[n++] = (uint8_t)RND();
		if (first == 0 || first == 44 || first == 60) {
			d[n++] = 17;
			d[n++] = 0;
			d[n++] = (uint8_t)RND();
			d[n++] = (uint8_t)(first == 44 ? RND() % 2 : RND());
			for (i = 0; i < 4; i++)
				d[n++] = (uint8_t)RND();
		}
		for (i = 0; i < 20; i++)
			d[n++] = (uint8_t)RND();
		d[l3 + 4] = (uint8_t)((n - l3 - 40) >> 8);
		d[l3 + 5] = (uint8_t)(n - l3 - 40);
	}
	return n;
#undef RND
}

static void
parsers_agree(void **state)
{
	uint64_t s = 88172645463325252ull;
	uint8_t d[256];
	unsigned int k, ok = 0;

	(void)state;
	for (k = 0; k < 300000; k++) {
		uint32_t n = build(d, &s), len;
		uint8_t *copy;

		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		if (k % 3 == 1)			/* flip a byte */
			d[s % n] ^= (uint8_t)(s >> 8);
		len = k % 3 == 2 ? (uint32_t)(s % (n + 1)) : n;	/* or cut */
		copy = malloc(len ? len : 1);
		memcpy(copy, d, len);
		agree(copy, len);
		if (len == n && k % 3 == 0)
			agree_trimmed(copy, len, 96);
		free(copy);
		ok += len == n && k % 3 == 0;
	}
	assert_true(ok > 50000);
}

/* QinQ: the model, lr_parse and the fast backend each give the second
 * tag's VID (PCP and DEI off) beside the outer one, for each TPID pair; the
 * UH record hands it on to the flow cache's packet; one tag: 0. */
static void
qinq_inner_vid(void **state)
{
	static const uint16_t tpid[][2] = {
		{ 0x88a8, 0x8100 }, { 0x8100, 0x8100 }, { 0x9100, 0x88a8 },
		{ 0x8100, 0 },
	};
	static struct lr_thash h;
	struct lr_fw_conf c;
	unsigned int k;

	(void)state;
	lr_fw_conf_init(&c);
	lr_thash_init(&h, c.key, c.key_len);
	c.state = &h;
	for (k = 0; k < sizeof(tpid) / sizeof(tpid[0]); k++) {
		uint8_t d[128];
		uint32_t n = 12, l3;
		struct lr_fw_uh m, f;
		struct lr_parsed p, q;
		uint16_t inner = tpid[k][1] ? (uint16_t)(0xabc - k) : 0;

		memset(d, 0, sizeof(d));
		d[n++] = (uint8_t)(tpid[k][0] >> 8);
		d[n++] = (uint8_t)tpid[k][0];
		d[n++] = 0xa0 | 0x01;		/* PCP 5, VID 0x1c8 */
		d[n++] = 0xc8;
		if (tpid[k][1]) {
			d[n++] = (uint8_t)(tpid[k][1] >> 8);
			d[n++] = (uint8_t)tpid[k][1];
			d[n++] = (uint8_t)(0xf0 | inner >> 8);	/* PCP 7, DEI */
			d[n++] = (uint8_t)inner;
		}
		d[n++] = 0x08;
		d[n++] = 0x00;
		l3 = n;
		d[n++] = 0x45;
		n++;
		d[n++] = 0;
		d[n++] = 28;			/* IPv4 + UDP */
		n += 4;
		d[n++] = 64;
		d[n++] = 17;
		n += 2;
		d[n++] = 10; n += 2; d[n++] = 1;
		d[n++] = 10; n += 2; d[n++] = 2;
		d[n++] = 0x04; d[n++] = 0x00;	/* ports 1024 -> 80 */
		d[n++] = 0x00; d[n++] = 0x50;
		d[n++] = 0; d[n++] = 8;
		n += 2;
		assert_int_equal(n - l3, 28);
		assert_int_equal(lr_parse(d, n, &p), LR_PARSE_OK);
		lr_fw_model_ops.parse(&c, d, n, 7, &m);
		lr_fw_fast_ops.parse(&c, d, n, 7, &f);
		assert_int_equal(m.status, LR_PARSE_OK);
		assert_int_equal(p.vlan, 0x1c8);
		assert_int_equal(m.vlan, 0x1c8);
		assert_int_equal(f.vlan, 0x1c8);
		assert_int_equal(p.vlan_inner, inner);
		assert_int_equal(m.vlan_inner, inner);
		assert_int_equal(f.vlan_inner, inner);
		assert_memory_equal(&m, &f, sizeof(m));
		lr_parsed_from_uh(&f, &q);
		assert_int_equal(q.vlan, 0x1c8);
		assert_int_equal(q.vlan_inner, inner);
	}
}

/* Both directions of a flow meet on one channel with the symmetric key,
 * and trimming keeps what it says. */
static void
symmetric_channels_and_trim(void **state)
{
	struct lr_fw_conf c;
	uint8_t a[12], b[12];
	unsigned int i;

	(void)state;
	lr_fw_conf_init(&c);
	for (i = 0; i < c.key_len; i++)
		c.key[i] = i % 2 ? 0x5a : 0x6d;
	inet_pton(AF_INET, "10.1.2.3", a);
	inet_pton(AF_INET, "192.168.9.8", a + 4);
	a[8] = 0x12; a[9] = 0x34; a[10] = 0x00; a[11] = 0x50;
	memcpy(b, a + 4, 4);
	memcpy(b + 4, a, 4);
	b[8] = a[10]; b[9] = a[11]; b[10] = a[8]; b[11] = a[9];
	assert_int_equal(lr_fw_model_ops.hash(&c, a, 12), lr_fw_model_ops.hash(&c, b, 12));
	c.trim = 64;
	assert_int_equal(lr_fw_trimmed(&c, 1500), 64);
	assert_int_equal(lr_fw_trimmed(&c, 60), 60);
	c.trim = 0;
	assert_int_equal(lr_fw_trimmed(&c, 1500), 1500);
	assert_int_equal(sizeof(struct lr_fw_uh), 72);
}

/* The table hash equals the bit-by-bit one for every key and length. */
static void
thash_matches_model(void **state)
{
	static struct lr_thash h;
	struct lr_fw_conf c;
	uint64_t s = 0x2545f4914f6cdd1dull;
	uint8_t in[LR_THASH_IN_MAX];
	unsigned int k, i, len;

	(void)state;
	lr_fw_conf_init(&c);
	for (k = 0; k < 3; k++) {
		if (k == 1)		/* symmetric */
			for (i = 0; i < c.key_len; i++)
				c.key[i] = i % 2 ? 0x5a : 0x6d;
		if (k == 2) {		/* random, 52 B */
			c.key_len = LR_FW_KEY_MAX;
			for (i = 0; i < c.key_len; i++) {
				s ^= s << 13; s ^= s >> 7; s ^= s << 17;
				c.key[i] = (uint8_t)s;
			}
		}
		lr_thash_init(&h, c.key, c.key_len);
		for (len = 1; len <= LR_THASH_IN_MAX; len++) {
			for (i = 0; i < 200; i++) {
				unsigned int j;

				for (j = 0; j < len; j++) {
					s ^= s << 13; s ^= s >> 7; s ^= s << 17;
					in[j] = (uint8_t)s;
				}
				assert_int_equal(lr_thash(&h, in, len),
						 lr_fw_toeplitz(c.key, c.key_len, in, len));
			}
		}
	}
}

/* The distributor's fast backend hands on the same record as the model:
 * every field, the hash and the channel, for good and broken frames, with
 * ports hashed or not. */
static void
fast_backend_matches_model(void **state)
{
	static struct lr_thash h;
	struct lr_fw_conf c;
	uint64_t s = 0x853c49e6748fea9bull;
	uint8_t d[256];
	unsigned int k, i, ok = 0;

	(void)state;
	lr_fw_conf_init(&c);
	for (i = 0; i < c.key_len; i++)
		c.key[i] = i % 2 ? 0x5a : 0x6d;
	lr_thash_init(&h, c.key, c.key_len);
	c.state = &h;
	c.channels = 7;
	for (k = 0; k < 200000; k++) {
		struct lr_fw_uh a, b;
		uint32_t n = build(d, &s), len;

		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		if (k % 3 == 1)
			d[s % n] ^= (uint8_t)(s >> 8);
		len = k % 3 == 2 ? (uint32_t)(s % (n + 1)) : n;
		c.l4 = k % 4 != 3;
		memset(&a, 0xa5, sizeof(a));
		memset(&b, 0x5a, sizeof(b));
		lr_fw_fast_ops.parse(&c, d, len, k, &a);
		lr_fw_model_ops.parse(&c, d, len, k, &b);
		assert_memory_equal(&a, &b, sizeof(a));
		ok += a.status == LR_PARSE_OK;
	}
	assert_true(ok > 60000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(toeplitz_vectors),
		cmocka_unit_test(toeplitz_matches_softrss),
		cmocka_unit_test(parsers_agree),
		cmocka_unit_test(qinq_inner_vid),
		cmocka_unit_test(symmetric_channels_and_trim),
		cmocka_unit_test(thash_matches_model),
		cmocka_unit_test(fast_backend_matches_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
