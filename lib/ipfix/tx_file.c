/* SPDX-License-Identifier: BSD-3-Clause */
/* IPFIX File Format (RFC 5655): messages back to back in one file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lr_common.h"
#include "lr_ipfix.h"

int
lr_ipfix_file_open(const char *path, void **ctx)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");

	if (f == NULL)
		return lr_err(errno, "ipfix: cannot write %s", path);
	*ctx = f;
	return 0;
}

int
lr_ipfix_file_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	RTE_SET_USED(records);
	if (fwrite(msg, 1, len, ctx) != len)
		return -EIO;
	return 0;
}

void
lr_ipfix_file_close(void *ctx)
{
	if (ctx != stdout)
		fclose(ctx);
	else
		fflush(ctx);
}

static int
file_open(const char *where, const struct lr_ipfix_tx_conf *c, void **ctx)
{
	RTE_SET_USED(c);
	return lr_ipfix_file_open(where, ctx);
}

/* A file is one stream that a reader takes from its start: templates once. */
const struct lr_ipfix_transport_ops lr_ipfix_tx_file = {
	.scheme = "file:",
	.templates = LR_IPFIX_TX_TMPL_ONCE,
	.open = file_open,
	.send = lr_ipfix_file_send,
	.close = lr_ipfix_file_close,
};
