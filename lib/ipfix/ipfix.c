/* SPDX-License-Identifier: BSD-3-Clause */
/* The RFC 7011 encoder: templates, records, messages, sequence numbers.
 * The transports are tx_*.c, the process-wide exporter exporter.c. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lr_common.h"
#include "lr_ipfix.h"

#define MSG_HDR_BYTES 16
#define SET_HDR_BYTES 4
#define SET_TEMPLATE 2
#define SET_OPTIONS_TEMPLATE 3
#define NTP_UNIX_OFFSET 2208988800ull	/* seconds from 1900 to 1970 */

/*
 * The information elements of linerate's records, one row each, in the
 * order of their records: the templates, the encoder, the record sizes
 * and the reverse (RFC 5103) list are all read from this table. A row
 * says which records carry the element (a flow record of either family,
 * or the exporter's statistics), under which conf (address family,
 * ms or ns time stamps, biflow), its IANA id, its enterprise (the
 * reverse elements are IANA's ids under PEN 29305), its length, and how
 * the encoder takes the value from the record: big-endian from a host
 * integer of the same length, the bytes as they are (addresses, network
 * order), or a time in ns as dateTimeMilliseconds or NTP (RFC 7011 6.1.9).
 */
enum ie_rec {			/* bits: a template's rows may come from two */
	REC_FLOW = 1,		/* struct lr_flow_rec, templates 256 and 257 */
	REC_STATS = 2,		/* struct stats_rec, options template 258 */
	REC_APP = 4,		/* union lr_app_fields, after REC_FLOW's in
				 * the templates of LR_IPFIX_TMPL_APP() */
	REC_TYPES = 8,		/* struct type_rec, options template 259 */
	REC_XTRA = 16,		/* struct lr_flow_xtra, after REC_FLOW's in
				 * every flow template (conf xtra) */
};
#define REC_FLOWS (REC_FLOW | REC_XTRA)	/* a flow template's rows */

enum ie_when {			/* the conf a row needs, 0: any */
	W_V4 = 1,
	W_V6 = 2,
	W_MS = 4,
	W_NS = 8,
	W_REV = 16,		/* biflow: the reverse direction */
	W_BPLUS = 32,		/* conf xtra LR_XTRA_BPLUS */
	W_PSTATS = 64,		/* conf xtra LR_XTRA_PSTATS */
	W_LABEL = 128,		/* conf xtra LR_XTRA_LABEL */
	/* 256 << (app - 1): an application's record (enum lr_app) */
};
#define W_XTRA(xtra) ((unsigned int)(xtra) << 5)	/* W_BPLUS, ... */
#define W_APP(app) (256u << ((app) - 1))

enum ie_take {
	T_UINT,			/* a host integer of len bytes */
	T_BYTES,		/* len bytes as they are */
	T_MS,			/* ns (uint64_t) as milliseconds */
	T_NTP,			/* ns (uint64_t) as dateTimeNanoseconds */
	T_STR,			/* variable length (RFC 7011 7): up to max
				 * bytes, their count a uint8_t at len_off */
	T_VOCT,			/* variable length: max bytes when the bool
				 * at len_off is set, else none */
	T_LIST,			/* an RFC 6313 basicList of list_id's
				 * elements (PEN 8057), list_len bytes each,
				 * from as many host integers of that size
				 * as the uint8_t at len_off says */
	T_LIST_MS,		/* the same of dateTimeMilliseconds, from
				 * uint32_t us after the uint64_t ns at
				 * base_off */
};
#define LIST_HDR_BYTES 9	/* semantic, field id, length, enterprise */
#define LIST_ORDERED 4		/* RFC 6313 4.5.1's semantic "ordered" */

/* RFC 5610's informationElementDataType (IANA's registry). */
enum ie_type {
	TY_OCTETS = 0,
	TY_U8 = 1,
	TY_U16 = 2,
	TY_U32 = 3,
	TY_U64 = 4,
	TY_I8 = 5,
	TY_I16 = 6,
	TY_STRING = 13,
	TY_MS = 15,		/* dateTimeMilliseconds */
	TY_LIST = 20,		/* basicList */
};

struct ie {
	uint16_t id;
	uint16_t len;		/* bytes in the record; 65535: variable */
	uint32_t pen;		/* enterprise, 0: IANA's own */
	uint8_t rec;		/* enum ie_rec */
	uint16_t when;		/* enum ie_when bits */
	uint8_t take;		/* enum ie_take */
	uint16_t off;		/* of the value in the record's struct */
	/* Variable-length values (T_STR, T_VOCT): */
	uint16_t len_off;	/* of their length (or presence) */
	uint16_t max;		/* their most bytes */
	/* An enterprise element's RFC 5610 type record (type, name), so that
	 * a collector that does not know it learns it (ipfixDump --rfc5610);
	 * numbers, types and names as ipfixprobe exports them and libfds'
	 * cesnet.xml and flowmon.xml name them. */
	uint8_t type;		/* enum ie_type */
	const char *name;	/* NULL: no type record (IANA's, RFC 5103's) */
	/* A basicList (T_LIST, T_LIST_MS): its elements' id (PEN 8057; the
	 * type record, type and name are theirs) and length, the time base */
	uint16_t list_id;
	uint8_t list_len;
	uint16_t base_off;
};

/* An RFC 5610 information element type record. */
struct type_rec {
	uint32_t pen;		/* the scope: privateEnterpriseNumber, */
	uint16_t id;		/* informationElementId */
	uint8_t type;		/* informationElementDataType */
	uint8_t semantics;	/* informationElementSemantics: 0, default */
	uint16_t units;		/* informationElementUnits: 0, none */
	uint64_t range_begin;	/* informationElementRangeBegin: 0 */
	uint64_t range_end;	/* informationElementRangeEnd: 0 */
	uint8_t name_len;
	uint8_t desc_len;	/* 0: no description */
	char name[48];		/* informationElementName */
};

/* The options record's values (RFC 7011 4.2 and 4.3). */
struct stats_rec {
	uint32_t domain;	/* the scope: observationDomainId */
	uint64_t messages;
	uint64_t records;
	uint64_t ignored;
	uint64_t dropped;
	uint64_t not_sent;
};

#define F(field) offsetof(struct lr_flow_rec, field)
#define S(field) offsetof(struct stats_rec, field)
#define FSIZE(field) sizeof(((struct lr_flow_rec *)0)->field)
#define SSIZE(field) sizeof(((struct stats_rec *)0)->field)
/* A flow element: its value is the field's host integer, */
#define FLOW(id, field) { id, FSIZE(field), 0, REC_FLOW, 0, T_UINT, F(field), \
			  0, 0, 0, NULL, 0, 0, 0 }
/* an address of @p len bytes (network order) for family @p when, */
#define ADDR(id, len, when, field) \
	{ id, len, 0, REC_FLOW, when, T_BYTES, F(field), 0, 0, 0, NULL, 0, 0, 0 }
/* a time in ns, sent as milliseconds (W_MS) or NTP (W_NS), */
#define TIME(id, when, field) \
	{ id, 8, 0, REC_FLOW, when, (when) == W_MS ? T_MS : T_NTP, F(field), \
	  0, 0, 0, NULL, 0, 0, 0 }
/* or, RFC 5103, the reverse direction's: the same id under PEN 29305. */
#define REVERSE(id, field) { id, FSIZE(field), LR_IPFIX_PEN_REVERSE, REC_FLOW, \
			     W_REV, T_UINT, F(field), 0, 0, 0, NULL, 0, 0, 0 }
#define STATS(id, field) { id, SSIZE(field), 0, REC_STATS, 0, T_UINT, S(field), \
			   0, 0, 0, NULL, 0, 0, 0 }
#define A(field) offsetof(union lr_app_fields, field)
#define ASIZE(field) sizeof(((union lr_app_fields *)0)->field)
/* An application's element: an unsigned integer of its field's size, */
#define APP_UINT(pen, id, app, field, ty, name) \
	{ id, ASIZE(field), pen, REC_APP, W_APP(app), T_UINT, A(field), 0, 0, \
	  ty, name, 0, 0, 0 }
/* a string of its char array field, its length in @p len, */
#define APP_STR(pen, id, app, field, len, name) \
	{ id, 65535, pen, REC_APP, W_APP(app), T_STR, A(field), A(len), \
	  ASIZE(field), TY_STRING, name, 0, 0, 0 }
/* the bytes of its array field when the bool @p have is set. */
#define APP_OCTETS(pen, id, app, field, have, name) \
	{ id, 65535, pen, REC_APP, W_APP(app), T_VOCT, A(field), A(have), \
	  ASIZE(field), TY_OCTETS, name, 0, 0, 0 }
#define X(field) offsetof(struct lr_flow_xtra, field)
#define XSIZE(field) sizeof(((struct lr_flow_xtra *)0)->field)
/* A basicplus element: an integer of its field's size (@p pen, @p ty and
 * @p name for an enterprise element's type record), */
#define BPLUS(pen, id, when, field, ty, name) \
	{ id, XSIZE(field), pen, REC_XTRA, W_BPLUS | (when), T_UINT, X(field), \
	  0, 0, ty, name, 0, 0, 0 }
/* a pstats sequence: IANA's basicList (291) of PEN 8057's element @p lid,
 * @p llen bytes each, from array @p field. */
#define PSTATS(lid, llen, take, field, ty, name) \
	{ 291, 65535, 0, REC_XTRA, W_PSTATS, take, X(field), X(ps.n), \
	  LIST_HDR_BYTES + LR_PSTATS_MAX * (llen), ty, name, lid, llen, \
	  X(ps.base_ns) }
/* nDPI's label: applicationId's bytes, applicationName's string. */
#define LABEL_ID(id, field) \
	{ id, XSIZE(field), 0, REC_XTRA, W_LABEL, T_BYTES, X(field), 0, 0, 0, \
	  NULL, 0, 0, 0 }
#define LABEL_STR(id, field, len) \
	{ id, 65535, 0, REC_XTRA, W_LABEL, T_STR, X(field), X(len), \
	  XSIZE(field), 0, NULL, 0, 0, 0 }
#define TYPES(id, len, take, field, n) \
	{ id, len, 0, REC_TYPES, 0, take, offsetof(struct type_rec, field), \
	  offsetof(struct type_rec, n), sizeof(((struct type_rec *)0)->name), \
	  0, NULL, 0, 0, 0 }
#define PEN_CESNET 8057
#define PEN_FLOWMON 39499

static const struct ie ies[] = {
	ADDR(8, 4, W_V4, src),			/* sourceIPv4Address */
	ADDR(27, 16, W_V6, src),		/* sourceIPv6Address */
	ADDR(12, 4, W_V4, dst),			/* destinationIPv4Address */
	ADDR(28, 16, W_V6, dst),		/* destinationIPv6Address */
	FLOW(7, sport),				/* sourceTransportPort */
	FLOW(11, dport),			/* destinationTransportPort */
	FLOW(4, proto),				/* protocolIdentifier */
	FLOW(5, tos),				/* ipClassOfService */
	FLOW(6, tcp_flags),			/* tcpControlBits */
	FLOW(52, min_ttl),			/* minimumTTL */
	FLOW(53, max_ttl),			/* maximumTTL */
	FLOW(136, end_reason),			/* flowEndReason */
	FLOW(58, vlan),				/* vlanId: the outer tag */
	FLOW(245, vlan_inner),			/* dot1qCustomerVlanId: the
						 * C-TAG's (the second), 0:
						 * fewer than two tags */
	FLOW(10, ingress),			/* ingressInterface */
	FLOW(2, packets),			/* packetDeltaCount */
	FLOW(1, bytes),				/* octetDeltaCount */
	TIME(152, W_MS, first_ns),		/* flowStartMilliseconds */
	TIME(156, W_NS, first_ns),		/* flowStartNanoseconds */
	TIME(153, W_MS, last_ns),		/* flowEndMilliseconds */
	TIME(157, W_NS, last_ns),		/* flowEndNanoseconds */
	REVERSE(1, rev_bytes),			/* reverseOctetDeltaCount */
	REVERSE(2, rev_packets),		/* reversePacketDeltaCount */
	REVERSE(6, rev_tcp_flags),		/* reverseTcpControlBits */
	REVERSE(52, rev_min_ttl),		/* reverseMinimumTTL */
	REVERSE(53, rev_max_ttl),		/* reverseMaximumTTL */
	/* The exporter's statistics, scope first; notSentFlowTotalCount
	 * (IANA 166: flows the Metering or Exporting Process dropped
	 * instead of sending), so that a collector sees the records it will
	 * never get. */
	STATS(149, domain),			/* observationDomainId */
	STATS(41, messages),			/* exportedMessageTotalCount */
	STATS(42, records),			/* exportedFlowRecordTotalCount */
	STATS(164, ignored),			/* ignoredPacketTotalCount */
	STATS(135, dropped),			/* droppedPacketTotalCount */
	STATS(166, not_sent),			/* notSentFlowTotalCount */
	/* RFC 5610 type records, scope (enterprise, id) first; every field
	 * libfixbuf's reader (ipfixDump --rfc5610) asks for too. */
	TYPES(346, 4, T_UINT, pen, name_len),	/* privateEnterpriseNumber */
	TYPES(303, 2, T_UINT, id, name_len),	/* informationElementId */
	TYPES(339, 1, T_UINT, type, name_len),	/* informationElementDataType */
	TYPES(344, 1, T_UINT, semantics, name_len), /* ...Semantics */
	TYPES(345, 2, T_UINT, units, name_len),	/* informationElementUnits */
	TYPES(342, 8, T_UINT, range_begin, name_len), /* ...RangeBegin */
	TYPES(343, 8, T_UINT, range_end, name_len), /* ...RangeEnd */
	TYPES(341, 65535, T_STR, name, name_len), /* informationElementName */
	TYPES(340, 65535, T_STR, name, desc_len), /* ...Description: none */
	/* The flow-wide extensions (lib/probe/probe_ext.c), after the
	 * flow's, as ipfixprobe's basicplus and pstats send them (numbers
	 * and types: its ipfix-elements.hpp, libfds' cesnet.xml). */
	BPLUS(0, 192, 0, bp.ttl[0], 0, NULL),	/* ipTTL */
	BPLUS(LR_IPFIX_PEN_REVERSE, 192, W_REV, bp.ttl[1], 0, NULL),
	BPLUS(0, 197, 0, bp.ip_flags[0], 0, NULL), /* fragmentFlags */
	BPLUS(LR_IPFIX_PEN_REVERSE, 197, W_REV, bp.ip_flags[1], 0, NULL),
	BPLUS(0, 186, 0, bp.win[0], 0, NULL),	/* tcpWindowSize */
	BPLUS(LR_IPFIX_PEN_REVERSE, 186, W_REV, bp.win[1], 0, NULL),
	BPLUS(0, 209, 0, bp.tcp_opt[0], 0, NULL), /* tcpOptions */
	BPLUS(LR_IPFIX_PEN_REVERSE, 209, W_REV, bp.tcp_opt[1], 0, NULL),
	BPLUS(PEN_CESNET, 900, 0, bp.mss[0], TY_U32, "tcpMss"),
	BPLUS(PEN_CESNET, 901, W_REV, bp.mss[1], TY_U32, "tcpMssRev"),
	BPLUS(PEN_CESNET, 902, 0, bp.syn_size, TY_U16, "tcpSynSize"),
	PSTATS(1013, 2, T_LIST, ps.len, TY_I16, "packetLength"),
	PSTATS(1014, 8, T_LIST_MS, ps.dt_us, TY_MS, "packetTime"),
	PSTATS(1015, 1, T_LIST, ps.flags, TY_U8, "packetFlag"),
	PSTATS(1016, 1, T_LIST, ps.dir, TY_I8, "packetDirection"),
	LABEL_ID(95, lbl.id),			/* applicationId */
	LABEL_STR(96, lbl.name, lbl.name_len),	/* applicationName */
	/* The applications' fields (lib/flowext), after the flow's. TLS: */
	APP_STR(PEN_CESNET, 808, LR_APP_TLS, tls.sni, tls.sni_len, "TLSSNI"),
	APP_UINT(PEN_FLOWMON, 333, LR_APP_TLS, tls.version, TY_U16,
		 "tlsServerVersion"),
	APP_UINT(PEN_FLOWMON, 340, LR_APP_TLS, tls.client_version, TY_U16,
		 "tlsClientVersion"),
	APP_STR(PEN_FLOWMON, 337, LR_APP_TLS, tls.alpn, tls.alpn_len, "tlsAlpn"),
	APP_OCTETS(PEN_FLOWMON, 357, LR_APP_TLS, tls.ja3, tls.have_ja3,
		   "tlsJa3Fingerprint"),
	/* QUIC: the ClientHello of its Initials */
	APP_STR(PEN_CESNET, 890, LR_APP_QUIC, quic.tls.sni, quic.tls.sni_len,
		"quicSNI"),
	APP_UINT(PEN_CESNET, 892, LR_APP_QUIC, quic.version, TY_U32,
		 "quicVersion"),
	APP_STR(PEN_FLOWMON, 337, LR_APP_QUIC, quic.tls.alpn, quic.tls.alpn_len,
		"tlsAlpn"),
	APP_UINT(PEN_FLOWMON, 340, LR_APP_QUIC, quic.tls.client_version, TY_U16,
		 "tlsClientVersion"),
	/* DNS: the first question, a response's first answer, EDNS0 */
	APP_UINT(PEN_CESNET, 10, LR_APP_DNS, dns.id, TY_U16, "DNSTransactionID"),
	APP_STR(PEN_CESNET, 2, LR_APP_DNS, dns.name, dns.name_len, "DNSName"),
	APP_UINT(PEN_CESNET, 3, LR_APP_DNS, dns.qtype, TY_U16, "DNSQType"),
	APP_UINT(PEN_CESNET, 4, LR_APP_DNS, dns.qclass, TY_U16, "DNSClass"),
	APP_UINT(PEN_CESNET, 1, LR_APP_DNS, dns.rcode, TY_U8, "DNSRCode"),
	APP_UINT(PEN_CESNET, 14, LR_APP_DNS, dns.answers, TY_U16, "DNSAnswers"),
	APP_UINT(PEN_CESNET, 11, LR_APP_DNS, dns.atype, TY_U16, "DNSAType"),
	APP_UINT(PEN_CESNET, 5, LR_APP_DNS, dns.ttl, TY_U32, "DNSRRTTL"),
	APP_UINT(PEN_CESNET, 6, LR_APP_DNS, dns.rdlength, TY_U16, "DNSRDataLength"),
	APP_UINT(PEN_CESNET, 8, LR_APP_DNS, dns.psize, TY_U16, "DNSPSize"),
	APP_UINT(PEN_CESNET, 9, LR_APP_DNS, dns.dnssec_ok, TY_U8, "DNSRDO"),
	/* HTTP/1.x: the request's head and the response's */
	APP_STR(PEN_CESNET, 200, LR_APP_HTTP, http.method, http.method_len,
		"httpMethod"),
	APP_STR(PEN_FLOWMON, 1, LR_APP_HTTP, http.host, http.host_len, "httpHost"),
	APP_STR(PEN_FLOWMON, 2, LR_APP_HTTP, http.target, http.target_len,
		"httpUrl"),
	APP_STR(PEN_FLOWMON, 20, LR_APP_HTTP, http.ua, http.ua_len,
		"httpUserAgent"),
	APP_STR(PEN_FLOWMON, 3, LR_APP_HTTP, http.referer, http.referer_len,
		"httpReferer"),
	/* unsigned32 in libfds, sent in 2 bytes (RFC 7011 6.2) as
	 * ipfixprobe does */
	APP_UINT(PEN_FLOWMON, 12, LR_APP_HTTP, http.status, TY_U32,
		 "httpStatusCode"),
	APP_STR(PEN_FLOWMON, 10, LR_APP_HTTP, http.ctype, http.ctype_len,
		"httpContentType"),
};
#define STATS_SCOPE_FIELDS 1	/* observationDomainId */
#define TYPES_SCOPE_FIELDS 2	/* informationElementId, privateEnterpriseNumber */

/* The conf bits of a record: its family, the time stamps, biflow. */
static unsigned int
when_of(const struct lr_ipfix_conf *c, bool ipv6)
{
	return (ipv6 ? W_V6 : W_V4) | (c->nanoseconds ? W_NS : W_MS) |
	       (c->biflow ? W_REV : 0) | W_XTRA(c->xtra);
}

/* Does a record of kind @p rec under conf bits @p when carry @p e? */
static inline bool
carries(const struct ie *e, unsigned int rec, unsigned int when)
{
	return (e->rec & rec) != 0 && (e->when & ~when) == 0;
}

/* Bytes the value of @p e takes at most in a record. */
static inline size_t
value_max(const struct ie *e)
{
	return e->len == 65535 ? 3u + e->max : e->len;
}

/* A record's bytes, or with @p spec its template's field specifiers'
 * (4 B each, 8 B with an enterprise number), and their count. */
static size_t
rec_bytes(unsigned int rec, unsigned int when, bool spec, unsigned int *count)
{
	size_t i, n = 0;
	unsigned int k = 0;

	for (i = 0; i < RTE_DIM(ies); i++) {
		if (!carries(&ies[i], rec, when))
			continue;
		n += spec ? (ies[i].pen ? 8 : 4) : value_max(&ies[i]);
		k++;
	}
	if (count != NULL)
		*count = k;
	return n;
}

void
lr_ipfix_conf_init(struct lr_ipfix_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu = LR_IPFIX_UDP_MTU_DEFAULT;
	c->template_every = 100;
	c->template_period_s = 60;
}

size_t
lr_ipfix_record_bytes(const struct lr_ipfix *x, bool ipv6)
{
	return rec_bytes(REC_FLOWS, when_of(&x->conf, ipv6), false, NULL);
}

static inline uint8_t *
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static inline uint8_t *
put32(uint8_t *p, uint32_t v)
{
	p = put16(p, (uint16_t)(v >> 16));
	return put16(p, (uint16_t)v);
}

/* dateTimeNanoseconds: NTP seconds since 1900 and a binary fraction. */
static uint64_t
ntp_of_ns(uint64_t ns)
{
	uint64_t s = ns / 1000000000ull + NTP_UNIX_OFFSET;
	uint64_t frac = ((ns % 1000000000ull) << 32) / 1000000000ull;

	return s << 32 | frac;
}

/* A template record (RFC 7011 3.4.1 and 3.4.2.2): its header, an options
 * template's scope field count, the field specifiers. */
static size_t
template_bytes(unsigned int rec, unsigned int when)
{
	return 4 + (rec == REC_STATS || rec == REC_TYPES ? 2 : 0) +
	       rec_bytes(rec, when, true, NULL);
}

static uint8_t *
put_template(uint8_t *p, uint16_t id, unsigned int rec, unsigned int when)
{
	unsigned int n;
	size_t i;

	rec_bytes(rec, when, true, &n);
	p = put16(p, id);
	p = put16(p, (uint16_t)n);
	if (rec == REC_STATS)
		p = put16(p, STATS_SCOPE_FIELDS);
	else if (rec == REC_TYPES)
		p = put16(p, TYPES_SCOPE_FIELDS);
	for (i = 0; i < RTE_DIM(ies); i++) {
		const struct ie *e = &ies[i];

		if (!carries(e, rec, when))
			continue;
		p = put16(p, e->pen ? 0x8000 | e->id : e->id);
		p = put16(p, e->len);
		if (e->pen)
			p = put32(p, e->pen);
	}
	return p;
}

/* The options templates: the statistics', and with applications the
 * type records'. */
static size_t
options_bytes(const struct lr_ipfix_conf *c)
{
	return template_bytes(REC_STATS, 0) +
	       (c->apps != 0 || c->xtra != 0 ? template_bytes(REC_TYPES, 0) : 0);
}

/* An application's template: the flow's rows, then the application's. */
static inline unsigned int
app_when(const struct lr_ipfix_conf *c, unsigned int app, bool ipv6)
{
	return when_of(c, ipv6) | W_APP(app);
}

/* The templates of the applications @p apps (bits 1 << app, both
 * families): a set's bytes after its header. */
static size_t
app_templates_bytes(const struct lr_ipfix_conf *c, unsigned int apps)
{
	size_t n = 0;
	unsigned int a;

	for (a = LR_APP_TLS; a < LR_APP_KINDS; a++)
		if (apps & (1u << a))
			n += template_bytes(REC_FLOWS | REC_APP, app_when(c, a, false)) +
			     template_bytes(REC_FLOWS | REC_APP, app_when(c, a, true));
	return n;
}

/* The template set (both flow templates; with templates sent by the
 * transport, every application's too) and the options template set,
 * padded to 4 bytes. */
static size_t
templates_size(const struct lr_ipfix_conf *c)
{
	return SET_HDR_BYTES + template_bytes(REC_FLOWS, when_of(c, false)) +
	       template_bytes(REC_FLOWS, when_of(c, true)) +
	       (c->transport_templates ? app_templates_bytes(c, c->apps) : 0) +
	       RTE_ALIGN(SET_HDR_BYTES + options_bytes(c), 4);
}

static void put_types(struct lr_ipfix *x, unsigned int rec, unsigned int when);
static unsigned int xtra_when(const struct lr_ipfix_conf *c);

/* The options template set, with @p types the flow-wide extensions' type
 * records (a collector learns their elements before the templates that
 * use them: libfixbuf binds a template's elements as it arrives), then
 * the template set. */
static void
put_templates(struct lr_ipfix *x, bool types)
{
	const struct lr_ipfix_conf *c = &x->conf;
	uint8_t *p = x->buf + x->len, *start = p;
	unsigned int apps = c->transport_templates ? c->apps : 0, a;

	p = put16(p, SET_OPTIONS_TEMPLATE);
	p = put16(p, (uint16_t)RTE_ALIGN(SET_HDR_BYTES + options_bytes(c), 4));
	p = put_template(p, LR_IPFIX_TMPL_STATS, REC_STATS, 0);
	if (c->apps != 0 || c->xtra != 0)
		p = put_template(p, LR_IPFIX_TMPL_TYPES, REC_TYPES, 0);
	while ((p - start) % 4 != 0)
		*p++ = 0;		/* pad the set to 4 bytes */
	x->len += (size_t)(p - start);
	if (types)
		put_types(x, REC_XTRA, xtra_when(c));
	p = start = x->buf + x->len;
	p = put16(p, SET_TEMPLATE);
	p = put16(p, (uint16_t)(SET_HDR_BYTES +
				template_bytes(REC_FLOWS, when_of(c, false)) +
				template_bytes(REC_FLOWS, when_of(c, true)) +
				app_templates_bytes(c, apps)));
	p = put_template(p, LR_IPFIX_TMPL_V4, REC_FLOWS, when_of(c, false));
	p = put_template(p, LR_IPFIX_TMPL_V6, REC_FLOWS, when_of(c, true));
	for (a = LR_APP_TLS; a < LR_APP_KINDS; a++) {
		if (!(apps & (1u << a)))
			continue;
		p = put_template(p, LR_IPFIX_TMPL_APP(a, false), REC_FLOWS | REC_APP,
				 app_when(c, a, false));
		p = put_template(p, LR_IPFIX_TMPL_APP(a, true), REC_FLOWS | REC_APP,
				 app_when(c, a, true));
	}
	x->len += (size_t)(p - start);
	x->apps_sent = 0;
}

/* The host integer of @p len bytes at @p f. */
static inline uint64_t
get_uint(const uint8_t *f, uint16_t len)
{
	if (len == 1)
		return *f;
	if (len == 2)
		return *(const uint16_t *)f;
	if (len == 4)
		return *(const uint32_t *)f;
	return *(const uint64_t *)f;
}

/* A variable-length value (RFC 7011 7): its length in one byte, or 255
 * and two. */
static uint8_t *
put_var(uint8_t *p, const uint8_t *v, size_t n)
{
	if (n < 255) {
		*p++ = (uint8_t)n;
	} else {
		*p++ = 255;
		p = put16(p, (uint16_t)n);
	}
	memcpy(p, v, n);
	return p + n;
}

/* An RFC 6313 basicList (RFC 7011 7's variable length in 3 bytes, as
 * ipfixprobe sends it): of @p e's elements, from the array at @p f of
 * the record @p b. */
static uint8_t *
put_list(uint8_t *p, const struct ie *e, const uint8_t *b, const uint8_t *f)
{
	unsigned int n = RTE_MIN(b[e->len_off], LR_PSTATS_MAX), i, k;
	uint64_t v, base = 0;

	*p++ = 255;
	p = put16(p, (uint16_t)(LIST_HDR_BYTES + n * e->list_len));
	*p++ = LIST_ORDERED;
	p = put16(p, 0x8000 | e->list_id);
	p = put16(p, e->list_len);
	p = put32(p, PEN_CESNET);
	if (e->take == T_LIST_MS)
		memcpy(&base, b + e->base_off, sizeof(base));
	for (i = 0; i < n; i++) {
		if (e->take == T_LIST_MS)
			v = (base + (uint64_t)((const uint32_t *)f)[i] * 1000) /
			    1000000;
		else
			v = get_uint(f + i * e->list_len, e->list_len);
		for (k = e->list_len; k-- > 0; v >>= 8)
			p[k] = (uint8_t)v;
		p += e->list_len;
	}
	return p;
}

/* The values of record @p src (rows of kinds @p rec; REC_APP's from
 * @p app, REC_XTRA's from @p xtra) as the table says, each big-endian in
 * its element's length (RFC 7011 6.1). */
static uint8_t *
put_record(uint8_t *p, unsigned int rec, unsigned int when, const void *src,
	   const void *app, const void *xtra)
{
	size_t i;

	for (i = 0; i < RTE_DIM(ies); i++) {
		const struct ie *e = &ies[i];
		const uint8_t *b, *f;
		uint64_t v;
		unsigned int k;

		if (!carries(e, rec, when))
			continue;
		b = e->rec == REC_APP ? app : e->rec == REC_XTRA ? xtra : src;
		f = b + e->off;
		if (e->take == T_LIST || e->take == T_LIST_MS) {
			p = put_list(p, e, b, f);
			continue;
		}
		if (e->take == T_STR || e->take == T_VOCT) {
			size_t n = b[e->len_off];

			if (e->take == T_VOCT)
				n = n ? e->max : 0;
			p = put_var(p, f, RTE_MIN(n, (size_t)e->max));
			continue;
		}
		if (e->take == T_BYTES) {
			memcpy(p, f, e->len);
			p += e->len;
			continue;
		}
		v = get_uint(f, e->take == T_UINT ? e->len : 8);
		if (e->take == T_MS)
			v /= 1000000;
		else if (e->take == T_NTP)
			v = ntp_of_ns(v);
		for (k = e->len; k-- > 0; v >>= 8)
			p[k] = (uint8_t)v;
		p += e->len;
	}
	return p;
}

/* Does a row of kind @p rec under conf bits @p when have a type record
 * (an enterprise element of ours, or a basicList's)? */
static inline bool
typed(const struct ie *e, unsigned int rec, unsigned int when)
{
	return e->rec == rec && e->name != NULL && carries(e, rec, when);
}

/* Bytes of the type records of the rows of kind @p rec (REC_APP, REC_XTRA)
 * under @p when (an application's W_APP(), the conf's xtra): their
 * fixed fields, the name's length byte and bytes, an empty description. */
static size_t
types_bytes(unsigned int rec, unsigned int when)
{
	size_t i, n = 0;

	for (i = 0; i < RTE_DIM(ies); i++)
		if (typed(&ies[i], rec, when))
			n += 4 + 2 + 1 + 1 + 2 + 8 + 8 + 1 +
			     RTE_MIN(strlen(ies[i].name),
				     sizeof(((struct type_rec *)0)->name)) + 1;
	return n;
}

/* The conf bits of the flow-wide extensions' rows (their type records). */
static unsigned int
xtra_when(const struct lr_ipfix_conf *c)
{
	return W_XTRA(c->xtra) | (c->biflow ? W_REV : 0);
}

/* A data set of the type records, its header, padding, none: their bytes. */
static inline size_t
types_set_bytes(unsigned int rec, unsigned int when)
{
	size_t n = types_bytes(rec, when);

	return n == 0 ? 0 : SET_HDR_BYTES + n + 3;
}

int
lr_ipfix_init(struct lr_ipfix *x, const struct lr_ipfix_conf *c,
	      lr_ipfix_send_t send, void *ctx)
{
	size_t rec_max, need;
	unsigned int a;

	memset(x, 0, sizeof(*x));
	x->conf = *c;
	/* A message must hold the templates and then the largest record
	 * (IPv6 data with this conf's timestamps and reverse fields, or the
	 * statistics' options record) in a set with its up to 3 B of padding:
	 * a message is begun with the templates when they are due (every
	 * message with --template-every 1, the first after a refusal), and
	 * make_room() does not begin another for the record. */
	rec_max = RTE_MAX(lr_ipfix_record_bytes(x, true),
			  rec_bytes(REC_STATS, 0, false, NULL));
	need = MSG_HDR_BYTES + templates_size(c) +
	       types_set_bytes(REC_XTRA, xtra_when(c)) + SET_HDR_BYTES +
	       rec_max + 3;
	if (c->mtu < need)
		return lr_err(EINVAL, "ipfix: MTU %u cannot hold the templates "
			      "and a record (%zu B)", c->mtu, need);
	/* And an application's template and type records in a message of
	 * their own, its record in another (add_app()). */
	for (a = LR_APP_TLS; a < LR_APP_KINDS; a++) {
		unsigned int w = app_when(c, a, true);

		if (!(c->apps & (1u << a)))
			continue;
		need = MSG_HDR_BYTES + RTE_MAX(
			SET_HDR_BYTES + template_bytes(REC_FLOWS | REC_APP, w) + 3 +
			types_set_bytes(REC_APP, W_APP(a)),
			SET_HDR_BYTES + rec_bytes(REC_FLOWS | REC_APP, w, false, NULL) +
			3 + 3);
		if (c->mtu < need)
			return lr_err(EINVAL, "ipfix: MTU %u cannot hold the "
				      "templates or a record of the flow "
				      "extensions (%zu B): a larger --ipfix-mtu",
				      c->mtu, need);
	}
	x->buf = calloc(1, c->mtu);
	if (x->buf == NULL)
		return lr_err(ENOMEM, "ipfix: no memory");
	x->send = send;
	x->ctx = ctx;
	x->tmpl_due = !c->transport_templates;
	return 0;
}

static void
close_set(struct lr_ipfix *x)
{
	if (x->set_off == 0)
		return;
	while ((x->len - x->set_off) % 4 != 0)
		x->buf[x->len++] = 0;	/* shorter than any record (RFC 7011 3.3.1) */
	put16(x->buf + x->set_off + 2, (uint16_t)(x->len - x->set_off));
	x->set_off = 0;
	x->set_id = 0;
}

/* The type records of the rows types_bytes() counts, in a data set of
 * their options template of its own (the caller left room). */
static void
put_types(struct lr_ipfix *x, unsigned int rec, unsigned int when)
{
	size_t i;

	if (types_bytes(rec, when) == 0)
		return;
	close_set(x);
	x->set_off = x->len;
	x->set_id = LR_IPFIX_TMPL_TYPES;
	put16(x->buf + x->len, LR_IPFIX_TMPL_TYPES);
	x->len += SET_HDR_BYTES;
	for (i = 0; i < RTE_DIM(ies); i++) {
		const struct ie *e = &ies[i];
		struct type_rec t;

		if (!typed(e, rec, when))
			continue;
		memset(&t, 0, sizeof(t));
		t.id = e->list_id != 0 ? e->list_id : e->id;
		t.pen = e->list_id != 0 ? PEN_CESNET : e->pen;
		t.type = e->type;
		t.name_len = (uint8_t)RTE_MIN(strlen(e->name), sizeof(t.name));
		memcpy(t.name, e->name, t.name_len);
		x->len = (size_t)(put_record(x->buf + x->len, REC_TYPES, 0, &t,
					     NULL, NULL) - x->buf);
		x->msg_records++;
	}
	close_set(x);
}

/* A message without the templates, even when due (they open the next). */
static void
begin_bare(struct lr_ipfix *x)
{
	x->len = MSG_HDR_BYTES;
	x->msg_records = 0;
}

static void
begin_msg(struct lr_ipfix *x, uint64_t now_s)
{
	const struct lr_ipfix_conf *c = &x->conf;

	x->len = MSG_HDR_BYTES;
	x->msg_records = 0;
	if (((c->template_every && x->msgs_since_tmpl >= c->template_every) ||
	     (c->template_period_s && now_s >= x->tmpl_time_s + c->template_period_s)) &&
	    !c->transport_templates)
		x->tmpl_due = true;
	if (x->tmpl_due) {
		put_templates(x, true);
		x->tmpl_due = false;
		x->msgs_since_tmpl = 0;
		x->tmpl_time_s = now_s;
	}
}

static int
send_msg(struct lr_ipfix *x, uint64_t now_s)
{
	int ret;

	close_set(x);
	put16(x->buf, LR_IPFIX_VERSION);
	put16(x->buf + 2, (uint16_t)x->len);
	put32(x->buf + 4, (uint32_t)now_s);
	put32(x->buf + 8, x->seq);
	put32(x->buf + 12, x->conf.domain);
	/* Waiting first: a transport that holds it may report its fate
	 * from inside send(). */
	x->c.waiting++;
	x->c.records_waiting += x->msg_records;
	ret = x->send(x->ctx, x->buf, x->len, x->msg_records);
	/* The sequence moves on either way: a collector sees the gap. */
	x->seq += x->msg_records;
	x->msgs_since_tmpl++;
	if (ret == 0)
		lr_ipfix_delivered(x, x->len, x->msg_records);
	else if (ret < 0)
		lr_ipfix_lost(x, x->msg_records);
	x->len = 0;
	x->msg_records = 0;
	return ret < 0 ? ret : 0;
}

void
lr_ipfix_delivered(struct lr_ipfix *x, size_t len, uint32_t records)
{
	x->c.waiting--;
	x->c.records_waiting -= records;
	x->c.messages++;
	x->c.records += records;
	x->c.bytes += len;
}

void
lr_ipfix_lost(struct lr_ipfix *x, uint32_t records)
{
	x->c.waiting--;
	x->c.records_waiting -= records;
	x->c.send_errors++;
	x->c.records_lost += records;
	/* A collector that was away gets the templates again. */
	x->tmpl_due = !x->conf.transport_templates;
}

/* Room for @p rec bytes in a data set @p id; sends and restarts the message
 * when it would not fit. */
static int
make_room(struct lr_ipfix *x, uint16_t id, size_t rec, uint64_t now_s)
{
	size_t need;
	int ret = 0;

	if (x->len == 0)
		begin_msg(x, now_s);
	need = rec + (x->set_id == id ? 0 : 3 + SET_HDR_BYTES);
	if (x->len + need + 3 > x->conf.mtu) {
		ret = send_msg(x, now_s);
		begin_msg(x, now_s);
	}
	if (x->set_id != id) {
		close_set(x);
		x->set_off = x->len;
		x->set_id = id;
		put16(x->buf + x->len, id);
		x->len += SET_HDR_BYTES;
	}
	return ret;
}

/*
 * A record with its application's fields. Its template, and the type
 * records of its enterprise elements, go in the message before it the
 * first time one is used after the templates were (re)sent, unless the
 * transport sends every template itself (TCP: at each connection).
 */
static int
add_app(struct lr_ipfix *x, const struct lr_flow_rec_app *ra, uint64_t now_s)
{
	const struct lr_ipfix_conf *c = &x->conf;
	unsigned int app = ra->r.app;
	bool v6 = ra->r.ipv6 != 0;
	uint16_t id = LR_IPFIX_TMPL_APP(app, v6), bit = (uint16_t)(1u << (app * 2 + v6));
	unsigned int when = app_when(c, app, v6);
	size_t rec = rec_bytes(REC_FLOWS | REC_APP, when, false, NULL);
	int ret = 0;

	size_t tb = SET_HDR_BYTES + template_bytes(REC_FLOWS | REC_APP, when) +
		    3 + types_set_bytes(REC_APP, W_APP(app));
	size_t need = SET_HDR_BYTES + rec + 3 + 3;
	bool want;

	if (x->len == 0)
		begin_msg(x, now_s);
	/* The type records and the template if they are not sent yet, then
	 * the record: in this message, else in a new one without the
	 * templates due (they open the one after), else each in a message
	 * of its own (lr_ipfix_init() checked that each fits one). */
	want = !c->transport_templates && !(x->apps_sent & bit);
	if (x->len + (want ? tb : 0) + need > c->mtu) {
		if (send_msg(x, now_s) != 0)
			ret = -EIO;
		begin_bare(x);
	}
	if (want) {
		uint8_t *p;

		/* The type records first: a collector learns the elements
		 * before the template that uses them. */
		put_types(x, REC_APP, W_APP(app));
		p = x->buf + x->len;
		p = put16(p, SET_TEMPLATE);
		p = put16(p, (uint16_t)(SET_HDR_BYTES +
					template_bytes(REC_FLOWS | REC_APP, when)));
		p = put_template(p, id, REC_FLOWS | REC_APP, when);
		x->len = (size_t)(p - x->buf);
		x->apps_sent |= bit;
		if (x->len + need > c->mtu) {
			if (send_msg(x, now_s) != 0)
				ret = -EIO;
			begin_bare(x);
		}
	}
	if (make_room(x, id, rec, now_s) != 0)
		ret = -EIO;
	x->len = (size_t)(put_record(x->buf + x->len, REC_FLOWS | REC_APP, when,
				     &ra->r, &ra->f, &ra->x) - x->buf);
	x->msg_records++;
	return ret;
}

int
lr_ipfix_add(struct lr_ipfix *x, const struct lr_flow_rec *r, uint64_t now_s)
{
	bool v6 = r->ipv6 != 0;
	int ret;

	if (r->app != LR_APP_NONE && r->app < LR_APP_KINDS &&
	    (x->conf.apps & (1u << r->app)))
		return add_app(x, (const struct lr_flow_rec_app *)r, now_s);

	ret = make_room(x, v6 ? LR_IPFIX_TMPL_V6 : LR_IPFIX_TMPL_V4,
			lr_ipfix_record_bytes(x, v6), now_s);
	/* With flow-wide extensions every record is a lr_flow_rec_app. */
	x->len = (size_t)(put_record(x->buf + x->len, REC_FLOWS,
				     when_of(&x->conf, v6), r, NULL,
				     x->conf.xtra != 0 ?
				     &((const struct lr_flow_rec_app *)r)->x :
				     NULL) - x->buf);
	x->msg_records++;
	return ret;
}

int
lr_ipfix_stats(struct lr_ipfix *x, uint64_t ignored, uint64_t dropped,
	       uint64_t not_sent, uint64_t now_s)
{
	struct stats_rec st;
	int ret;

	ret = make_room(x, LR_IPFIX_TMPL_STATS, rec_bytes(REC_STATS, 0, false,
							  NULL), now_s);
	st.domain = x->conf.domain;
	/* What this exporter has sent, waiting in a transport included, and
	 * this message. */
	st.messages = x->c.messages + x->c.waiting + 1;
	st.records = x->c.records + x->c.records_waiting + x->msg_records;
	st.ignored = ignored;
	st.dropped = dropped;
	st.not_sent = not_sent + x->c.records_lost;
	x->len = (size_t)(put_record(x->buf + x->len, REC_STATS, 0, &st, NULL,
				     NULL) -
			  x->buf);
	x->msg_records++;	/* an options record is a data record too */
	if (ret == 0)
		ret = send_msg(x, now_s);
	else
		send_msg(x, now_s);
	return ret;
}

int
lr_ipfix_flush(struct lr_ipfix *x, uint64_t now_s)
{
	if (x->len == 0 || x->msg_records == 0) {
		if (x->len > MSG_HDR_BYTES)
			x->tmpl_due = !x->conf.transport_templates;
		x->len = 0;
		x->set_off = 0;
		x->set_id = 0;
		return 0;
	}
	return send_msg(x, now_s);
}

void
lr_ipfix_close(struct lr_ipfix *x, uint64_t now_s)
{
	if (x->buf != NULL)
		lr_ipfix_flush(x, now_s);
	free(x->buf);
	x->buf = NULL;
}

size_t
lr_ipfix_template_msg(struct lr_ipfix *x, uint8_t *buf, size_t len,
		      uint32_t seq, uint64_t now_s)
{
	size_t n = MSG_HDR_BYTES + templates_size(&x->conf);
	uint8_t *save_buf = x->buf;
	size_t save_len = x->len;

	if (len < n)
		return 0;
	/* Build it in @p buf with the exporter's own writer. */
	x->buf = buf;
	x->len = MSG_HDR_BYTES;
	put_templates(x, false);
	put16(buf, LR_IPFIX_VERSION);
	put16(buf + 2, (uint16_t)x->len);
	put32(buf + 4, (uint32_t)now_s);
	put32(buf + 8, seq);
	put32(buf + 12, x->conf.domain);
	n = x->len;
	x->buf = save_buf;
	x->len = save_len;
	return n;
}
