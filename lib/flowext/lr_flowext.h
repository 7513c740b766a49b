/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What a flow's first payloads say about its application: the parsers of
 * the probe's flow extensions (TLS, DNS, HTTP; issue 37). Each is a pure
 * function of the bytes it is given (one L4 payload, the transport said by
 * the caller), writes only into the fixed-size struct it is handed and
 * reads no byte past @p len: no allocation, no state between calls, no
 * DPDK. The probe keeps one such struct per flow in a side table indexed
 * by the flow's slot, so that each extension's memory per flow is the
 * size of its struct, said in doc/usage.md.
 *
 * A string field is cut to its buffer (its _len says how much was kept;
 * a cut is counted by the caller from the return's flags) and is never
 * NUL-terminated: IPFIX carries it as a variable-length octet string.
 * Bytes are copied as they came: a collector decides how to show them.
 */
#ifndef LR_FLOWEXT_H
#define LR_FLOWEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What a parser made of a payload. */
enum lr_ext_result {
	LR_EXT_OK,		/**< fields filled */
	LR_EXT_NOT,		/**< not this protocol (nothing written) */
	LR_EXT_TRUNC,		/**< this protocol, cut short: the fields
				 *   wholly inside the bytes are filled */
	LR_EXT_BAD,		/**< this protocol's start, then malformed:
				 *   the fields before the fault are filled */
};

/* ---- TLS (a record of a ClientHello or a ServerHello) ---- */

#define LR_TLS_SNI_MAX 255	/**< a DNS name fits (253) */
#define LR_TLS_ALPN_MAX 63
#define LR_TLS_JA3_STR_MAX 511	/**< JA3's text before its MD5 */

struct lr_tls {
	uint16_t version;		/**< the server's choice (ServerHello's
					 *   supported_versions, else its
					 *   legacy_version); before one: the
					 *   client's highest offer */
	uint16_t client_version;	/**< the highest the client offered */
	uint8_t sni_len;
	uint8_t alpn_len;
	bool have_client, have_server;	/**< a ClientHello / ServerHello seen */
	bool alpn_server;		/**< alpn is the server's choice, not
					 *   the client's first offer */
	bool have_ja3;			/**< ja3 is set: the ClientHello was
					 *   whole in one payload */
	uint8_t ja3[16];		/**< MD5 of the JA3 text (client) */
	char sni[LR_TLS_SNI_MAX];
	char alpn[LR_TLS_ALPN_MAX];
};

/**
 * A TLS record that starts @p p (a TCP payload): a ClientHello fills sni,
 * the client's version and first ALPN offer, and ja3; a ServerHello the
 * negotiated version and ALPN. GREASE values (RFC 8701) are skipped.
 */
enum lr_ext_result lr_tls_parse(const uint8_t *p, size_t len, struct lr_tls *t);

/** The same from a handshake message without its record (a QUIC CRYPTO
 *  stream's start). */
enum lr_ext_result lr_tls_parse_handshake(const uint8_t *p, size_t len,
					  struct lr_tls *t);

/** The JA3 text of a ClientHello into @p buf (NUL-terminated, cut to
 *  @p size): "version,ciphers,extensions,groups,point formats", each list
 *  '-'-separated, GREASE left out. @return its length, or -1 when @p p
 *  is not a whole ClientHello record. */
int lr_tls_ja3_text(const uint8_t *p, size_t len, char *buf, size_t size);

/* ---- QUIC (a client's Initial packets: RFC 9000, 9001; v2 RFC 9369) ---- */

#define LR_QUIC_V1 0x00000001u
#define LR_QUIC_V2 0x6b3343cfu
/** The CRYPTO stream bytes put together: a ClientHello up to this size
 *  (a post-quantum key share makes one of some 1.8 kB). */
#define LR_QUIC_CRYPTO_MAX 4096
#define LR_QUIC_RANGES 16	/**< pieces of it held apart at once */
#define LR_QUIC_DATAGRAM_MAX 2048	/**< a larger Initial is not read */

/** What a client's Initials have said so far. */
struct lr_quic {
	uint32_t version;		/**< of the last Initial read, 0: none */
	uint16_t packets;		/**< Initials decrypted */
	bool have_hello;		/**< the ClientHello was whole: tls set */
	struct lr_tls tls;		/**< its fields (SNI, ALPN, versions) */
};

/** A ClientHello being put together from CRYPTO frames that may come in
 *  any order over several Initials (Chromium splits and shuffles it).
 *  Large: the probe lends one from a small pool to a flow while its
 *  hello is incomplete, not one per flow. */
struct lr_quic_crypto {
	uint16_t nranges;
	uint16_t range[LR_QUIC_RANGES][2];	/**< [start, end) held */
	uint8_t buf[LR_QUIC_CRYPTO_MAX];
};

/** A worker's cipher contexts (AES-128-ECB for header protection,
 *  AES-128-GCM): made once, outside the fast path. */
struct lr_quic_ctx;

struct lr_quic_ctx *lr_quic_ctx_new(void);
void lr_quic_ctx_free(struct lr_quic_ctx *c);

/**
 * A UDP payload: each client Initial packet of QUIC v1 or v2 in it (a
 * datagram may coalesce several) is unprotected with the keys of its
 * Destination Connection ID, its CRYPTO frames added to @p cs; once the
 * stream holds a whole ClientHello, its fields go to @p q->tls.
 * Only the client's datagrams: a server's Initials use the server's keys
 * (BAD here).
 * @return NOT (not a long-header Initial of v1 or v2: a short header, a
 *   Handshake packet), OK (the hello is whole), TRUNC (decrypted, the hello not yet whole: more Initials to
 *   come, or past LR_QUIC_CRYPTO_MAX), BAD (did not decrypt, or frames
 *   that break the RFC).
 */
enum lr_ext_result lr_quic_parse(struct lr_quic_ctx *c, const uint8_t *p,
				 size_t len, struct lr_quic *q,
				 struct lr_quic_crypto *cs);

/** The frames of one decrypted Initial's payload (lr_quic_parse()'s
 *  second half, for tests and fuzzing): CRYPTO into @p cs, then the hello
 *  if whole. */
enum lr_ext_result lr_quic_frames(struct lr_quic *q, struct lr_quic_crypto *cs,
				  const uint8_t *p, size_t len);

/* ---- DNS (one message over UDP) ---- */

#define LR_DNS_NAME_MAX 127	/**< the question's name as text */
#define LR_DNS_RDATA_MAX 32	/**< the first answer's data */

struct lr_dns {
	uint16_t id;
	uint16_t qtype, qclass;		/**< the first question's, 0: none */
	uint16_t answers;		/**< ANCOUNT of the response */
	uint16_t atype;			/**< the first answer's type, 0: none */
	uint16_t rdata_len;		/**< bytes kept in rdata */
	uint16_t rdlength;		/**< the first answer's RDLENGTH as sent:
					 *   above rdata_len when rdata was cut */
	uint16_t psize;			/**< EDNS0 OPT's UDP payload size, 0: none */
	uint32_t ttl;			/**< the first answer's */
	uint8_t rcode;			/**< the header's 4 bits */
	uint8_t name_len;		/**< LR_DNS_NAME_MAX: maybe cut */
	bool response, dnssec_ok;
	char name[LR_DNS_NAME_MAX];	/**< "www.example.com", no trailing dot;
					 *   the root is empty, as ipfixprobe's */
	uint8_t rdata[LR_DNS_RDATA_MAX];	/**< as sent (a name in it
						 *   may be compressed) */
};

/** A DNS query or response (RFC 1035, EDNS0 RFC 6891): the first
 *  question, a response's first answer, the first OPT record; a
 *  compression pointer must point back before its name (it is never
 *  followed: the first question's name, the one read, has none before it).
 *  The struct is cleared first, but on NOT: it tells of one message. The
 *  rules for NOT, TRUNC and BAD are dns.c's first comment. */
enum lr_ext_result lr_dns_parse(const uint8_t *p, size_t len, struct lr_dns *d);

/* ---- HTTP/1.x (a request's or a response's head) ---- */

#define LR_HTTP_METHOD_MAX 15
#define LR_HTTP_HOST_MAX 63
#define LR_HTTP_TARGET_MAX 127
#define LR_HTTP_UA_MAX 127
#define LR_HTTP_REFERER_MAX 127
#define LR_HTTP_CTYPE_MAX 31

struct lr_http {
	uint16_t status;		/**< the response's, 0: none */
	uint8_t method_len, host_len, target_len, ua_len, referer_len,
		ctype_len;
	bool have_request, have_response;
	char method[LR_HTTP_METHOD_MAX];
	char host[LR_HTTP_HOST_MAX];
	char target[LR_HTTP_TARGET_MAX];
	char ua[LR_HTTP_UA_MAX];
	char referer[LR_HTTP_REFERER_MAX];
	char ctype[LR_HTTP_CTYPE_MAX];	/**< the response's Content-Type */
};

/** A request line and its headers (Host, User-Agent, Referer), or a
 *  status line and its Content-Type, in one TCP payload; header names
 *  case-insensitive, values trimmed. A request clears and fills only the
 *  request's fields, a response only the response's (so the answer lands
 *  beside the request); NOT, and a TRUNC too short to tell which, write
 *  nothing. The rules for NOT, TRUNC and BAD are http.c's first comment. */
enum lr_ext_result lr_http_parse(const uint8_t *p, size_t len, struct lr_http *h);

/* ---- TCP options (basicplus) ---- */

/**
 * The options of a TCP header, @p len bytes after its fixed 20: each
 * kind's bit ORed into @p kinds (kind K is bit 63 - K, RFC 9565's
 * tcpOptions; kinds past 63 have none), the MSS option's value (a length
 * of 4) into @p mss. Reads up to End of Option List or @p len.
 * @return OK (read to their end), TRUNC (an option cut by @p len), BAD (a
 *   length below 2): the options before the fault are in.
 */
enum lr_ext_result lr_tcp_options(const uint8_t *p, size_t len, uint64_t *kinds,
				  uint32_t *mss);

#endif /* LR_FLOWEXT_H */
