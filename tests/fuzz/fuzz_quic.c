/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the probe's QUIC extension (lib/flowext/quic.c). The input's
 * first byte picks what the rest is: even, a UDP datagram for
 * lr_quic_parse() (headers, lengths, decryption refusing); odd, the
 * decrypted payloads of up to four Initials, each preceded by its length
 * (2 bytes), for lr_quic_frames() (frames, the CRYPTO stream put together
 * out of order, the hello read from it) - random bytes would almost never
 * get through AES-GCM's tag to that code. Checked: results among the four,
 * the stream's ranges sorted, apart and within the buffer, a hello's
 * lengths within their buffers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lr_flowext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct lr_quic_ctx *ctx;
static struct lr_quic_crypto cs;

static void
check(const struct lr_quic *q, enum lr_ext_result r)
{
	unsigned int i;

	if (r > LR_EXT_BAD || cs.nranges > LR_QUIC_RANGES)
		abort();
	for (i = 0; i < cs.nranges; i++)
		if (cs.range[i][0] >= cs.range[i][1] ||
		    cs.range[i][1] > LR_QUIC_CRYPTO_MAX ||
		    (i > 0 && cs.range[i][0] <= cs.range[i - 1][1]))
			abort();
	if (q->tls.sni_len > LR_TLS_SNI_MAX || q->tls.alpn_len > LR_TLS_ALPN_MAX ||
	    (r == LR_EXT_OK) != q->have_hello)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_quic q;
	size_t off = 1;
	unsigned int k;

	if (ctx == NULL && (ctx = lr_quic_ctx_new()) == NULL)
		abort();
	if (size == 0)
		return 0;
	memset(&q, 0, sizeof(q));
	memset(&cs, 0, sizeof(cs));
	if ((data[0] & 1) == 0) {
		check(&q, lr_quic_parse(ctx, data + 1, size - 1, &q, &cs));
		return 0;
	}
	for (k = 0; k < 4 && off + 2 <= size; k++) {
		size_t n = (size_t)data[off] << 8 | data[off + 1];
		enum lr_ext_result r;

		off += 2;
		if (n > size - off)
			n = size - off;
		r = lr_quic_frames(&q, &cs, data + off, n);
		if (r != LR_EXT_BAD)
			check(&q, r);
		off += n;
	}
	return 0;
}
