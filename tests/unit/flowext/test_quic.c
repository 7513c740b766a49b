/* SPDX-License-Identifier: BSD-3-Clause */
/* The QUIC extension's parser (lib/flowext/quic.c) on Initials protected
 * by python3-cryptography and checked against tshark (quic_vectors.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lr_flowext.h"
#include "quic_vectors.h"

static struct lr_quic_ctx *ctx;
static struct lr_quic_crypto cs;

static int
setup(void **state)
{
	(void)state;
	ctx = lr_quic_ctx_new();
	return ctx == NULL;
}

static int
teardown(void **state)
{
	(void)state;
	lr_quic_ctx_free(ctx);
	return 0;
}

/* From a buffer of exactly @p len bytes (an over-read is ASan's). */
static enum lr_ext_result
parse(const uint8_t *b, size_t len, struct lr_quic *q)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum lr_ext_result r;

	assert_non_null(copy);
	memcpy(copy, b, len);
	r = lr_quic_parse(ctx, copy, len, q, &cs);
	free(copy);
	return r;
}

static void
fresh(struct lr_quic *q)
{
	memset(q, 0, sizeof(*q));
	memset(&cs, 0, sizeof(cs));
}

static void
sni_is(const struct lr_quic *q, const char *want)
{
	assert_true(q->have_hello);
	assert_int_equal(q->tls.sni_len, strlen(want));
	assert_memory_equal(q->tls.sni, want, strlen(want));
}

static void
one_initial_v1_and_v2(void **state)
{
	struct lr_quic q;

	(void)state;
	fresh(&q);
	assert_int_equal(parse(q_v1_0, sizeof(q_v1_0), &q), LR_EXT_OK);
	assert_int_equal(q.version, LR_QUIC_V1);
	sni_is(&q, QUIC_SNI);
	assert_int_equal(q.tls.alpn_len, 2);
	assert_memory_equal(q.tls.alpn, "h3", 2);
	assert_int_equal(q.tls.client_version, 0x0304);
	fresh(&q);
	assert_int_equal(parse(q_v2_0, sizeof(q_v2_0), &q), LR_EXT_OK);
	assert_int_equal(q.version, LR_QUIC_V2);
	sni_is(&q, QUIC_SNI);
}

/* Chromium's way: the hello over two Initials in shuffled pieces. */
static void
hello_over_two_initials(void **state)
{
	struct lr_quic q;

	(void)state;
	fresh(&q);
	assert_int_equal(parse(q_split_0, sizeof(q_split_0), &q), LR_EXT_TRUNC);
	assert_false(q.have_hello);
	assert_int_equal(q.packets, 1);
	assert_int_equal(parse(q_split_1, sizeof(q_split_1), &q), LR_EXT_OK);
	sni_is(&q, QUIC_SPLIT_SNI);
	/* the other order: the second packet first */
	fresh(&q);
	assert_int_equal(parse(q_split_1, sizeof(q_split_1), &q), LR_EXT_TRUNC);
	assert_int_equal(parse(q_split_0, sizeof(q_split_0), &q), LR_EXT_OK);
	sni_is(&q, QUIC_SPLIT_SNI);
	/* both in one datagram (coalesced) */
	{
		uint8_t both[sizeof(q_split_0) + sizeof(q_split_1)];

		memcpy(both, q_split_0, sizeof(q_split_0));
		memcpy(both + sizeof(q_split_0), q_split_1, sizeof(q_split_1));
		fresh(&q);
		assert_int_equal(parse(both, sizeof(both), &q), LR_EXT_OK);
		assert_int_equal(q.packets, 2);
		sni_is(&q, QUIC_SPLIT_SNI);
	}
}

/* A bit flipped anywhere after the header's first bytes: the packet does
 * not decrypt (BAD) or is not an Initial (NOT); never a name. */
static void
tampered(void **state)
{
	uint8_t b[sizeof(q_v1_0)];
	struct lr_quic q;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(b); i += 7) {
		enum lr_ext_result r;

		memcpy(b, q_v1_0, sizeof(b));
		b[i] ^= 0x10;
		fresh(&q);
		r = parse(b, sizeof(b), &q);
		assert_true(r == LR_EXT_BAD || r == LR_EXT_NOT || r == LR_EXT_TRUNC);
		assert_false(q.have_hello);
	}
}

/* Every prefix: never OK, never a read past it. */
static void
every_prefix(void **state)
{
	struct lr_quic q;
	size_t n;

	(void)state;
	for (n = 0; n < sizeof(q_v1_0); n++) {
		fresh(&q);
		assert_int_not_equal(parse(q_v1_0, n, &q), LR_EXT_OK);
		assert_false(q.have_hello);
	}
}

static void
not_quic(void **state)
{
	static const uint8_t dns[] = { 0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
	uint8_t b[sizeof(q_v1_0)];
	struct lr_quic q;

	(void)state;
	fresh(&q);
	assert_int_equal(parse(dns, sizeof(dns), &q), LR_EXT_NOT);
	memcpy(b, q_v1_0, sizeof(b));
	b[4] = 0x02;		/* version 2 as a number: not a QUIC we read */
	assert_int_equal(parse(b, sizeof(b), &q), LR_EXT_NOT);
	memcpy(b, q_v1_0, sizeof(b));
	b[0] &= 0x7f;		/* a short header */
	assert_int_equal(parse(b, sizeof(b), &q), LR_EXT_NOT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_initial_v1_and_v2),
		cmocka_unit_test(hello_over_two_initials),
		cmocka_unit_test(tampered),
		cmocka_unit_test(every_prefix),
		cmocka_unit_test(not_quic),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
