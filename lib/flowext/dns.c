/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DNS message over UDP (RFC 1035 §4.1, EDNS0 RFC 6891 §6.1): the header,
 * the first question, a response's first answer and the first OPT record.
 *
 * What the result says (every rule decided by bytes that are there, so a
 * prefix of a message gives that message's result or TRUNC, never another):
 *
 * NOT: the header is not one a DNS peer would send. Its opcode is not one
 *   IANA assigned (0 QUERY, 1 IQUERY, 2 STATUS, 4 NOTIFY, 5 UPDATE, 6 DSO);
 *   or its counts ask for more records than 65535 bytes can hold (a
 *   question takes at least 5 bytes, a record 11); or it has no question
 *   although it is neither DSO (RFC 8490, which has none), nor an error
 *   answer (a FORMERR or NOTIMP need not echo it), nor a message with an
 *   additional record (an EDNS-only query for a server cookie, RFC 7873
 *   §5.4, and its answer). Random bytes to port 53 pass these one time in
 *   four or so; the walk below then finds most of them BAD.
 * TRUNC: the message ends before the walk does. The walk goes through the
 *   question, the answers, the authority records and the additional ones
 *   up to the first OPT, which ends it (what follows an OPT is not read).
 *   An empty payload is NOT, as for the other parsers: nothing to go by.
 * BAD: a name is malformed: a label of the reserved types 01 and 10
 *   (lengths 64-191: the "label longer than 63"), a compression pointer
 *   that does not point back before the name it ends (forward, or into the
 *   name itself: a loop) or that points into the header, or a name longer
 *   than 255 bytes on the wire (RFC 1035 §3.1). No pointer is followed
 *   (name_walk says why), so none can loop and a name costs its bytes.
 * OK: the walk ended (the counted records read, or an OPT found). Bytes
 *   after it are not looked at. A question name longer than its buffer is
 *   cut: name_len is then LR_DNS_NAME_MAX, and the result stays OK.
 *
 * Fields are filled by whole groups: the header's (id, response, rcode,
 * answers), the question's name once it ends, its type and class, the
 * first answer's type, TTL and RDLENGTH, its rdata once the bytes kept are
 * there, the OPT's size and DO bit. The struct is cleared first (on NOT it
 * is left as it was): it tells of the last message parsed, and an answer
 * repeats its question.
 */
#include <string.h>

#include "lr_flowext.h"

#define DNS_HDR_LEN 12
#define DNS_QFIXED 4		/* QTYPE, QCLASS */
#define DNS_RRFIXED 10		/* TYPE, CLASS, TTL, RDLENGTH */
#define DNS_MSG_MAX 65535	/* a message's length is 16 bits (§4.2.2) */
#define DNS_WIRE_NAME_MAX 255	/* label bytes and length bytes (§3.1) */

#define DNS_TYPE_OPT 41
#define DNS_OPCODE_DSO 6
#define DNS_EDNS_DO 0x8000	/* in the OPT's TTL (RFC 3225) */

static unsigned int
get16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static bool
opcode_known(unsigned int op)
{
	return op <= 2 || (op >= 4 && op <= 6);
}

/*
 * The header rules above, on the bytes there are: NOT, TRUNC (fewer than
 * 12 bytes, none refused so far) or OK.
 */
static enum lr_ext_result
header_plausible(const uint8_t *p, size_t len)
{
	unsigned int qd, an, ns, ar, op, rcode;
	bool qr;

	if (len == 0)
		return LR_EXT_NOT;
	if (len > 2 && !opcode_known(p[2] >> 3 & 0xf))
		return LR_EXT_NOT;
	if (len < DNS_HDR_LEN)
		return LR_EXT_TRUNC;
	qr = p[2] & 0x80;
	op = p[2] >> 3 & 0xf;
	rcode = p[3] & 0xf;
	qd = get16(p + 4);
	an = get16(p + 6);
	ns = get16(p + 8);
	ar = get16(p + 10);
	if ((uint64_t)qd * (1 + DNS_QFIXED) +
	    ((uint64_t)an + ns + ar) * (1 + DNS_RRFIXED) > DNS_MSG_MAX - DNS_HDR_LEN)
		return LR_EXT_NOT;
	if (qd == 0 && op != DNS_OPCODE_DSO && !(qr && rcode != 0) && ar == 0)
		return LR_EXT_NOT;
	return LR_EXT_OK;
}

/*
 * The name at @p off: *end is the offset after it in its record (after a
 * pointer, or the root's zero). With @p text, its labels are written there
 * dotted, cut to LR_DNS_NAME_MAX, into *text_len: only for the first
 * question's name, which starts right after the header, so that no name
 * lies before it for a pointer in it to refer to (RFC 1035 §4.1.4: a
 * pointer stands for a prior occurrence of a name); such a pointer is BAD. A later name's pointer must
 * point into the message before the name itself (anything else is
 * forward, or a loop through the name) and is not followed: the names
 * behind it were checked where they are.
 */
static enum lr_ext_result
name_walk(const uint8_t *p, size_t len, size_t off, size_t *end, char *text,
	  uint8_t *text_len)
{
	size_t start = off, wire = 0, kept = 0;
	char buf[LR_DNS_NAME_MAX];

	for (;;) {
		unsigned int l, target;

		if (off >= len)
			return LR_EXT_TRUNC;
		l = p[off];
		if (l == 0) {
			*end = off + 1;
			break;
		}
		if ((l & 0xc0) == 0x40 || (l & 0xc0) == 0x80)
			return LR_EXT_BAD;
		if ((l & 0xc0) == 0xc0) {
			if (off + 1 >= len)
				return LR_EXT_TRUNC;
			target = (l & 0x3f) << 8 | p[off + 1];
			if (target < DNS_HDR_LEN || target >= start)
				return LR_EXT_BAD;
			*end = off + 2;
			break;
		}
		wire += 1 + l;
		if (wire + 1 > DNS_WIRE_NAME_MAX)
			return LR_EXT_BAD;
		if (off + 1 + l > len)
			return LR_EXT_TRUNC;
		if (text != NULL) {
			size_t i;

			if (kept > 0 && kept < LR_DNS_NAME_MAX)
				buf[kept++] = '.';
			for (i = 0; i < l && kept < LR_DNS_NAME_MAX; i++)
				buf[kept++] = (char)p[off + 1 + i];
		}
		off += 1 + l;
	}
	if (text != NULL) {
		/* only a whole name: a cut or bad one leaves the field empty */
		memcpy(text, buf, kept);
		*text_len = (uint8_t)kept;
	}
	return LR_EXT_OK;
}

/*
 * One resource record at *off: the first answer of a response and the
 * first OPT are kept. *opt is set when this was the OPT (the walk ends).
 */
static enum lr_ext_result
record(const uint8_t *p, size_t len, size_t *off, bool answer, bool additional,
       struct lr_dns *d, bool *opt)
{
	enum lr_ext_result r;
	unsigned int type, rdlength;
	size_t at;

	r = name_walk(p, len, *off, &at, NULL, NULL);
	if (r != LR_EXT_OK)
		return r;
	if (at + DNS_RRFIXED > len)
		return LR_EXT_TRUNC;
	type = get16(p + at);
	rdlength = get16(p + at + 8);
	if (additional && type == DNS_TYPE_OPT) {
		/* RFC 6891 §6.1.2-3: CLASS is the requestor's UDP payload
		 * size, TTL the extended RCODE, version and flags. */
		d->psize = (uint16_t)get16(p + at + 2);
		d->dnssec_ok = get32(p + at + 4) & DNS_EDNS_DO;
		*opt = true;
		return LR_EXT_OK;
	}
	if (answer) {
		size_t keep = rdlength < LR_DNS_RDATA_MAX ? rdlength : LR_DNS_RDATA_MAX;

		d->atype = (uint16_t)type;
		d->ttl = get32(p + at + 4);
		d->rdlength = (uint16_t)rdlength;
		if (at + DNS_RRFIXED + keep <= len) {
			memcpy(d->rdata, p + at + DNS_RRFIXED, keep);
			d->rdata_len = (uint16_t)keep;
		}
	}
	if (at + DNS_RRFIXED + rdlength > len)
		return LR_EXT_TRUNC;
	*off = at + DNS_RRFIXED + rdlength;
	return LR_EXT_OK;
}

enum lr_ext_result
lr_dns_parse(const uint8_t *p, size_t len, struct lr_dns *d)
{
	enum lr_ext_result r;
	unsigned int qd, n, i;
	bool opt = false;
	size_t off, at;

	r = header_plausible(p, len);
	if (r == LR_EXT_NOT)
		return r;
	memset(d, 0, sizeof(*d));
	if (r != LR_EXT_OK)
		return r;
	d->id = (uint16_t)get16(p);
	d->response = p[2] & 0x80;
	d->rcode = p[3] & 0xf;
	qd = get16(p + 4);
	if (d->response)
		d->answers = (uint16_t)get16(p + 6);
	off = DNS_HDR_LEN;

	/* The first question's name as text, the others stepped over. */
	for (i = 0; i < qd; i++) {
		r = i == 0 ? name_walk(p, len, off, &at, d->name, &d->name_len) :
		     name_walk(p, len, off, &at, NULL, NULL);
		if (r != LR_EXT_OK)
			return r;
		if (at + DNS_QFIXED > len)
			return LR_EXT_TRUNC;
		if (i == 0) {
			d->qtype = (uint16_t)get16(p + at);
			d->qclass = (uint16_t)get16(p + at + 2);
		}
		off = at + DNS_QFIXED;
	}

	/* Answers, authority, additional: 16-bit counts, so no overflow. */
	n = get16(p + 6) + get16(p + 8) + get16(p + 10);
	for (i = 0; i < n && !opt; i++) {
		bool answer = d->response && i == 0 && get16(p + 6) > 0;
		bool additional = i >= n - get16(p + 10);

		r = record(p, len, &off, answer, additional, d, &opt);
		if (r != LR_EXT_OK)
			return r;
	}
	return LR_EXT_OK;
}
