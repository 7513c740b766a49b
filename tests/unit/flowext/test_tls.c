/* SPDX-License-Identifier: BSD-3-Clause */
/* The TLS extension's parser (lib/flowext/tls.c) on hellos scapy built
 * (tls_vectors.h), every prefix of them and broken variants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lr_flowext.h"
#include "tls_vectors.h"

/* Parse @p len bytes of @p b from a buffer of exactly that size (an
 * over-read is ASan's error). */
static enum lr_ext_result
parse(const uint8_t *b, size_t len, struct lr_tls *t)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum lr_ext_result r;

	assert_non_null(copy);
	memcpy(copy, b, len);
	memset(t, 0, sizeof(*t));
	r = lr_tls_parse(copy, len, t);
	free(copy);
	return r;
}

static void
hex_equal(const uint8_t *md, const char *want)
{
	char got[33];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(got + 2 * i, 3, "%02x", md[i]);
	assert_string_equal(got, want);
}

static void
str_equal(const char *s, size_t n, const char *want)
{
	assert_int_equal(n, strlen(want));
	assert_memory_equal(s, want, n);
}

static void
browser_client_hello(void **state)
{
	struct lr_tls t;
	char text[512];

	(void)state;
	assert_int_equal(parse(ch_browser, sizeof(ch_browser), &t), LR_EXT_OK);
	assert_true(t.have_client && !t.have_server);
	str_equal(t.sni, t.sni_len, "www.example.com");
	str_equal(t.alpn, t.alpn_len, "h2");
	assert_false(t.alpn_server);
	/* supported_versions' highest, GREASE aside; legacy 0x0303 */
	assert_int_equal(t.client_version, 0x0304);
	assert_int_equal(t.version, 0x0304);
	assert_int_equal(lr_tls_ja3_text(ch_browser, sizeof(ch_browser), text,
					 sizeof(text)), strlen(CH_BROWSER_JA3_TEXT));
	assert_string_equal(text, CH_BROWSER_JA3_TEXT);
	assert_true(t.have_ja3);
	hex_equal(t.ja3, CH_BROWSER_JA3_MD5);
}

static void
server_hello_after_client(void **state)
{
	struct lr_tls t;

	(void)state;
	assert_int_equal(parse(ch_browser, sizeof(ch_browser), &t), LR_EXT_OK);
	/* the same struct: the server's answer on top of the client's */
	assert_int_equal(lr_tls_parse(sh_tls13, sizeof(sh_tls13), &t), LR_EXT_OK);
	assert_true(t.have_client && t.have_server);
	assert_int_equal(t.version, 0x0304);
	assert_int_equal(t.client_version, 0x0304);
	str_equal(t.alpn, t.alpn_len, "h2");
	assert_true(t.alpn_server);
	str_equal(t.sni, t.sni_len, "www.example.com");
}

static void
no_extensions(void **state)
{
	struct lr_tls t;
	char text[64];

	(void)state;
	assert_int_equal(parse(ch_noext, sizeof(ch_noext), &t), LR_EXT_OK);
	assert_int_equal(t.version, 0x0301);
	assert_int_equal(t.sni_len, 0);
	assert_int_equal(t.alpn_len, 0);
	assert_true(lr_tls_ja3_text(ch_noext, sizeof(ch_noext), text, sizeof(text)) > 0);
	assert_string_equal(text, CH_NOEXT_JA3_TEXT);
}

/* A hello over two TCP segments: the first has no name (it comes last),
 * the whole one has it; JA3 only from the whole. */
static void
split_hello(void **state)
{
	struct lr_tls t;

	(void)state;
	assert_true(sizeof(ch_big) > 1600);
	assert_int_equal(parse(ch_big, 1400, &t), LR_EXT_TRUNC);
	assert_true(t.have_client);
	assert_int_equal(t.sni_len, 0);
	assert_false(t.have_ja3);
	assert_int_equal(parse(ch_big, sizeof(ch_big), &t), LR_EXT_OK);
	str_equal(t.sni, t.sni_len, "late.example.org");
	hex_equal(t.ja3, CH_BIG_JA3_MD5);
}

/* Every prefix of every hello: TRUNC (or OK when whole), nothing read
 * past it, a field only when whole. */
static void
every_prefix(void **state)
{
	static const struct { const uint8_t *b; size_t n; } v[] = {
		{ ch_browser, sizeof(ch_browser) }, { ch_big, sizeof(ch_big) },
		{ ch_noext, sizeof(ch_noext) }, { sh_tls13, sizeof(sh_tls13) },
	};
	struct lr_tls t;
	unsigned int i;
	size_t n;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (n = 1; n <= v[i].n; n++) {
			enum lr_ext_result r = parse(v[i].b, n, &t);

			assert_int_equal(r, n == v[i].n ? LR_EXT_OK : LR_EXT_TRUNC);
			if (t.sni_len != 0)
				str_equal(t.sni, t.sni_len, v[i].b == ch_big ?
					  "late.example.org" : "www.example.com");
		}
}

static void
not_tls(void **state)
{
	static const uint8_t http[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	uint8_t b[sizeof(ch_browser)];
	struct lr_tls t;

	(void)state;
	assert_int_equal(parse(http, sizeof(http) - 1, &t), LR_EXT_NOT);
	memcpy(b, ch_browser, sizeof(b));
	b[0] = 23;		/* application data */
	assert_int_equal(parse(b, sizeof(b), &t), LR_EXT_NOT);
	memcpy(b, ch_browser, sizeof(b));
	b[5] = 11;		/* a Certificate */
	assert_int_equal(parse(b, sizeof(b), &t), LR_EXT_NOT);
	memcpy(b, ch_browser, sizeof(b));
	b[3] = 0xff;		/* a record of 65 kB */
	assert_int_equal(parse(b, sizeof(b), &t), LR_EXT_NOT);
	assert_int_equal(parse(ch_browser, 0, &t), LR_EXT_NOT);
}

/* A length that claims more than its parent holds: BAD, the fields before
 * it kept, none read from past it. */
static void
lying_lengths(void **state)
{
	uint8_t b[sizeof(ch_browser)];
	struct lr_tls t;
	size_t i, sni = 0;

	(void)state;
	/* the server_name extension: type 0x0000 after the extensions'
	 * length, 2 + 32 + 1 + sid + ciphers + comp in */
	for (i = 9 + 2 + 32; i + 4 < sizeof(b); i++)
		if (ch_browser[i] == 0 && ch_browser[i + 1] == 0 &&
		    ch_browser[i + 2] == 0 && ch_browser[i + 3] == 0x14) {
			sni = i;
			break;
		}
	assert_true(sni != 0);
	memcpy(b, ch_browser, sizeof(b));
	b[sni + 5] = 0x40;	/* its list: 0x40xx bytes in 20 */
	assert_int_equal(parse(b, sizeof(b), &t), LR_EXT_BAD);
	assert_int_equal(t.sni_len, 0);
	assert_false(t.have_ja3);
	memcpy(b, ch_browser, sizeof(b));
	b[9 + 2 + 32] = 0xff;	/* a session id of 255 bytes */
	assert_int_equal(parse(b, sizeof(b), &t), LR_EXT_BAD);
	/* every byte of the hello set to each of a few values: never an
	 * over-read (ASan), a result among the four */
	for (i = 0; i < sizeof(b); i++) {
		static const uint8_t vals[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
		unsigned int k;

		for (k = 0; k < sizeof(vals); k++) {
			enum lr_ext_result r;

			memcpy(b, ch_browser, sizeof(b));
			b[i] = vals[k];
			r = parse(b, sizeof(b), &t);
			assert_true(r <= LR_EXT_BAD);
			assert_true(t.sni_len <= LR_TLS_SNI_MAX);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(browser_client_hello),
		cmocka_unit_test(server_hello_after_client),
		cmocka_unit_test(no_extensions),
		cmocka_unit_test(split_hello),
		cmocka_unit_test(every_prefix),
		cmocka_unit_test(not_tls),
		cmocka_unit_test(lying_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
