/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the probe's DNS parser (lr_dns_parse) on any bytes as one UDP
 * payload. Invariants beside ASan/UBSan: a NOT leaves the struct as it was,
 * any other result fills the same struct whatever it held before (a pure
 * function); lengths within their buffers; the answer's fields only in a
 * response, rdata_len the kept part of RDLENGTH; and on prefixes of the
 * input (each copied to a block of its own size, so that a read past it is
 * ASan's): the whole input's result or TRUNC, each field not filled or the
 * whole's.
 */
#include <stdlib.h>
#include <string.h>

#include "lr_flowext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum lr_ext_result
parse_fresh(const uint8_t *p, size_t len, struct lr_dns *d, uint8_t fill)
{
	memset(d, fill, sizeof(*d));
	return lr_dns_parse(p, len, d);
}

static void
check_fields(const struct lr_dns *d)
{
	size_t keep = d->rdlength < LR_DNS_RDATA_MAX ? d->rdlength : LR_DNS_RDATA_MAX;

	if (d->name_len > LR_DNS_NAME_MAX || d->rdata_len > LR_DNS_RDATA_MAX)
		abort();
	if (d->rdata_len != 0 && d->rdata_len != keep)
		abort();
	if (!d->response && (d->answers || d->atype || d->ttl || d->rdlength ||
			     d->rdata_len))
		abort();
	if (d->rcode > 15)
		abort();
}

#define ZERO_OR(f) do { if (cut.f != 0 && cut.f != whole->f) abort(); } while (0)

static void
check_prefix(const uint8_t *data, size_t n, enum lr_ext_result rw,
	     const struct lr_dns *whole)
{
	uint8_t *copy = malloc(n ? n : 1);
	struct lr_dns cut;
	enum lr_ext_result r;

	if (copy == NULL)
		return;
	memcpy(copy, data, n);
	r = parse_fresh(copy, n, &cut, 0);
	free(copy);
	if (r != rw && r != LR_EXT_TRUNC && !(n == 0 && r == LR_EXT_NOT))
		abort();
	if (r == LR_EXT_NOT)
		return;
	check_fields(&cut);
	if (rw == LR_EXT_NOT)
		return;		/* a TRUNC of what is not DNS when whole */
	if (r == rw && r != LR_EXT_TRUNC) {
		/* the same walk to the same end */
		if (memcmp(&cut, whole, sizeof(cut)) != 0)
			abort();
		return;
	}
	ZERO_OR(id);
	ZERO_OR(response);
	ZERO_OR(rcode);
	ZERO_OR(qtype);
	ZERO_OR(qclass);
	ZERO_OR(answers);
	ZERO_OR(atype);
	ZERO_OR(ttl);
	ZERO_OR(rdlength);
	ZERO_OR(psize);
	ZERO_OR(dnssec_ok);
	if (cut.name_len != 0 && (cut.name_len != whole->name_len ||
				  memcmp(cut.name, whole->name, cut.name_len) != 0))
		abort();
	if (cut.rdata_len != 0 && (cut.rdata_len != whole->rdata_len ||
				   memcmp(cut.rdata, whole->rdata, cut.rdata_len) != 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_dns a, b, before;
	enum lr_ext_result r, r2;

	r = parse_fresh(data, size, &a, 0);
	if (r > LR_EXT_BAD)
		abort();
	memset(&before, 0xa5, sizeof(before));
	r2 = parse_fresh(data, size, &b, 0xa5);
	if (r2 != r)
		abort();
	if (r == LR_EXT_NOT) {
		if (memcmp(&b, &before, sizeof(b)) != 0)
			abort();
		return 0;
	}
	if (memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	check_fields(&a);
	if (size > 0) {
		check_prefix(data, size - 1, r, &a);
		check_prefix(data, size / 2, r, &a);
		check_prefix(data, ((size_t)data[0] << 8 | data[size - 1]) % size, r, &a);
	}
	return 0;
}
