/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the probe's TLS extension (lib/flowext/tls.c). An input is a
 * TCP payload: read as a record (lr_tls_parse), as a bare handshake
 * message (lr_tls_parse_handshake, QUIC's CRYPTO stream) and for its JA3
 * text. Checked: the result is one of the four, every kept length within
 * its buffer, a JA3 text within its buffer and NUL-terminated, and a
 * second parse of the same bytes into a fresh struct gives the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lr_flowext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct lr_tls *t)
{
	if (t->sni_len > LR_TLS_SNI_MAX || t->alpn_len > LR_TLS_ALPN_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_tls a, b;
	enum lr_ext_result r;
	char text[LR_TLS_JA3_STR_MAX + 1];
	int n;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	r = lr_tls_parse(data, size, &a);
	if (r > LR_EXT_BAD)
		abort();
	check(&a);
	if (lr_tls_parse(data, size, &b) != r || memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	memset(&a, 0, sizeof(a));
	if (lr_tls_parse_handshake(data, size, &a) > LR_EXT_BAD)
		abort();
	check(&a);
	n = lr_tls_ja3_text(data, size, text, sizeof(text));
	if (n >= (int)sizeof(text) || (n >= 0 && text[n] != '\0'))
		abort();
	return 0;
}
