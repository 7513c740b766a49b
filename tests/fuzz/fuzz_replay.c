/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: gen --pcap's reading of a capture (lib/gen/replay.c). The
 * input is the capture file: written to a temporary file and read as
 * lr_replay_init() reads it (libpcap, both passes, the flow table), then
 * each frame loaded parsed and rewritten as the fast path does it: the
 * source address shifted (incremental checksums, RFC 1624) and linerate's
 * header stamped. An input that is not a capture (no pcap magic) is one
 * frame. An input that starts "LRch" is a capture that changes while it
 * is read (a file rewritten in place, or a FIFO whose writer sends
 * another file): a u32 (little endian) offset S, a u32 length L, then
 * file A (L bytes) and file B (the rest); the loader reads A's bytes
 * before S and B's from S on, through a stream that cannot seek back.
 *
 * Invariants beside ASan/UBSan: a capture refused is refused with a
 * message (EINVAL, EIO, EFBIG or ENOMEM), never a crash; the offsets parse
 * finds lie inside the frame (and the loader finds the ones parse finds);
 * after the rewrite the IPv4 header checksum and the UDP/TCP checksum
 * still verify whenever they did before (tried on the frame as it is and
 * on a copy with both sums made right first), an IPv4 UDP checksum of 0
 * stays 0, and no byte changes but the source address's last 32 bits, the
 * two checksums and the stamped header. A changing capture is read once:
 * no byte of the stream twice, no frame handed on longer than the port
 * takes or than the stream held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "lr_common.h"
#include "lr_wire.h"
#include "gen_replay.h"
#include "lr_fuzz_eal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void
unlink_path(void)
{
	unlink(path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	lr_fuzz_eal_init("fuzz_replay");
	snprintf(path, sizeof(path), "/tmp/fuzz_replay_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
	atexit(unlink_path);
	return 0;
}

/* Where a frame's sums are: -1 where it has none that can be checked
 * inside its bytes. */
struct sums {
	int ip;		/* IPv4 header sum verifies: 1, not: 0 */
	int l4;		/* L4 sum verifies: 1, not: 0; -1 unknown */
	int l4_zero;	/* IPv4 UDP without a sum */
};

static uint32_t
l4_start(const struct lr_replay_frame_info *fi)
{
	return fi->l4csum - (fi->udp ? offsetof(struct rte_udp_hdr, dgram_cksum) :
			     offsetof(struct rte_tcp_hdr, cksum));
}

/* Does the IP length keep the L4 sum's bytes inside the frame? */
static bool
l4_inside(const uint8_t *d, uint32_t len, const struct lr_replay_frame_info *fi)
{
	uint32_t l4 = l4_start(fi);

	if (fi->l3type == 1) {
		const struct rte_ipv4_hdr *ip = (const void *)(d + fi->l3);
		uint32_t total = rte_be_to_cpu_16(ip->total_length);

		return total >= rte_ipv4_hdr_len(ip) &&
		       fi->l3 + rte_ipv4_hdr_len(ip) == l4 && fi->l3 + total <= len &&
		       l4 + 8 <= fi->l3 + total;
	}
	return fi->l3 + 40u + rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)
						 (const void *)(d + fi->l3))->payload_len) <= len &&
	       l4 + 8 <= fi->l3 + 40u + rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)
						 (const void *)(d + fi->l3))->payload_len);
}

/*
 * The ones' complement sum of an IPv6 L4 segment and its pseudo header
 * (RFC 8200 8.1): the upper layer's length, from its header to the
 * payload's end, and its protocol, past any extension header. DPDK's
 * helpers take the first next header and the whole payload length (and
 * shift a next header >= 128 into the sign bit of an int: UB, found by
 * fuzz_replay on a frame with extension headers).
 */
static uint16_t
ipv6_l4_sum(const uint8_t *d, const struct lr_replay_frame_info *fi)
{
	const struct rte_ipv6_hdr *ip = (const void *)(d + fi->l3);
	uint32_t l4 = l4_start(fi);
	uint32_t ulen = fi->l3 + 40u + rte_be_to_cpu_16(ip->payload_len) - l4;
	struct {
		rte_be32_t len;
		rte_be32_t proto;
	} ph = {
		.len = rte_cpu_to_be_32(ulen),
		.proto = rte_cpu_to_be_32(fi->udp ? IPPROTO_UDP : IPPROTO_TCP),
	};
	uint32_t sum;

	sum = __rte_raw_cksum(ip->src_addr, 32, 0);
	sum = __rte_raw_cksum(&ph, sizeof(ph), sum);
	sum = __rte_raw_cksum(d + l4, ulen, sum);
	return __rte_raw_cksum_reduce(sum);
}

static void
sums_of(const uint8_t *d, uint32_t len, const struct lr_replay_frame_info *fi,
	struct sums *s)
{
	s->ip = -1;
	s->l4 = -1;
	s->l4_zero = 0;
	if (fi->l3type == 1)
		s->ip = rte_ipv4_cksum((const void *)(d + fi->l3)) == 0;
	if (fi->l3type == 1 && fi->udp && fi->l4csum == 0 &&
	    l4_start(fi) + 8 <= len)
		s->l4_zero = 1;
	if (fi->l4csum == 0 || !l4_inside(d, len, fi))
		return;
	if (fi->l3type == 1)
		s->l4 = rte_ipv4_udptcp_cksum_verify((const void *)(d + fi->l3),
						     d + l4_start(fi)) == 0;
	else
		s->l4 = ipv6_l4_sum(d, fi) == 0xffff;
}

/* Both sums made right, where the frame has them inside its bytes. */
static void
fix_sums(uint8_t *d, uint32_t len, const struct lr_replay_frame_info *fi)
{
	uint16_t c;

	if (fi->l3type == 1) {
		struct rte_ipv4_hdr *ip = (void *)(d + fi->l3);

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (fi->l4csum == 0 || !l4_inside(d, len, fi))
		return;
	memset(d + fi->l4csum, 0, 2);
	if (fi->l3type == 1)
		c = rte_ipv4_udptcp_cksum((const void *)(d + fi->l3),
					  d + l4_start(fi));
	else
		c = (uint16_t)~ipv6_l4_sum(d, fi);
	if (c == 0)
		c = 0xffff;	/* 0 is "no sum" (UDP); both are 0 */
	memcpy(d + fi->l4csum, &c, 2);
}

static bool
in(uint32_t i, uint32_t at, uint32_t n)
{
	return at != 0 && i >= at && i < at + n;
}

static void
check(const uint8_t *d, uint32_t len, uint32_t delta, bool stamp)
{
	struct lr_replay_frame_info fi, fo;
	struct sums before, after;
	uint8_t *out = malloc(len ? len : 1);
	uint32_t src, i;

	if (out == NULL)
		abort();
	lr_replay_check_frame(d, len, delta, stamp, out, &fi);
	/* Offsets inside the frame. */
	if (fi.l3type > 2 || (fi.l3 != 0) != (fi.l3type != 0) ||
	    (fi.l3type == 1 && fi.l3 + 20u > len) ||
	    (fi.l3type == 2 && fi.l3 + 40u > len) ||
	    (fi.l4csum != 0 && (fi.l4csum + 2u > len || fi.l4csum < fi.l3 + 20u)) ||
	    (fi.stamp != 0 && (!fi.udp || fi.stamp + LR_HDR_BYTES > len)) ||
	    (fi.shifted && fi.l3 == 0) || (fi.stamped && fi.stamp == 0))
		abort();
	/* Nothing changed but the rewritten fields. */
	src = fi.l3 + (fi.l3type == 1 ? 12 : 20);
	for (i = 0; i < len; i++)
		if (out[i] != d[i] && !(fi.shifted && in(i, src, 4)) &&
		    !(fi.shifted && fi.l3type == 1 && in(i, fi.l3 + 10, 2)) &&
		    !in(i, fi.l4csum, 2) && !(fi.stamped && in(i, fi.stamp,
							       LR_HDR_BYTES)))
			abort();
	if (fi.shifted) {
		uint32_t a, b;

		memcpy(&a, d + src, 4);
		memcpy(&b, out + src, 4);
		if (rte_be_to_cpu_32(b) != rte_be_to_cpu_32(a) + delta)
			abort();
	}
	sums_of(d, len, &fi, &before);
	lr_replay_check_frame(out, len, 0, false, out, &fo);
	sums_of(out, len, &fo, &after);
	if ((before.ip == 1 && after.ip != 1) ||
	    (before.l4 == 1 && after.l4 != 1) ||
	    (before.l4_zero && (fo.l4csum != 0 || !fo.udp))) {
		fprintf(stderr, "fuzz_replay: frame of %u B, l3 %u (%s) l4csum %u "
			"stamp %u%s%s: ip sum %d -> %d, l4 sum %d -> %d, "
			"udp sum 0: %d\n", len, fi.l3, fi.l3type == 1 ? "IPv4" :
			"IPv6", fi.l4csum, fi.stamp, fi.shifted ? " shifted" : "",
			fi.stamped ? " stamped" : "", before.ip, after.ip,
			before.l4, after.l4, before.l4_zero);
		abort();
	}
	free(out);
}

static void
each(const uint8_t *d, uint32_t len, const struct lr_replay_frame_info *fi,
     uint32_t flow, void *arg)
{
	struct lr_replay_frame_info fp;
	uint8_t *fixed, *out;
	uint32_t delta = 1u + len * 0x01000193u;

	(void)flow;
	(void)arg;
	out = malloc(len);
	fixed = malloc(len);
	if (out == NULL || fixed == NULL)
		abort();
	/* The loader's offsets are parse's. */
	lr_replay_check_frame(d, len, 0, false, out, &fp);
	if (fp.l3 != fi->l3 || fp.l4csum != fi->l4csum || fp.stamp != fi->stamp ||
	    fp.l3type != fi->l3type || fp.udp != fi->udp ||
	    (fi->has_key && !fp.has_key) || memcmp(out, d, len) != 0)
		abort();
	check(d, len, delta, true);
	check(d, len, 0xffffffffu, false);
	memcpy(fixed, d, len);
	fix_sums(fixed, len, &fp);
	check(fixed, len, delta, true);
	check(fixed, len, 1, true);
	check(fixed, len, 0, true);
	free(out);
	free(fixed);
}

/* A capture whose bytes are A's before .at and B's from there on. */
struct changing {
	const uint8_t *a, *b;
	size_t a_len, b_len, at;
	size_t pos;		/* the next byte read */
	size_t frame_bytes;	/* handed to each() */
	uint32_t max_frame;
};

static ssize_t
changing_read(void *cookie, char *buf, size_t n)
{
	struct changing *c = cookie;
	size_t k;

	for (k = 0; k < n; k++, c->pos++) {
		if (c->pos < c->at && c->pos < c->a_len)
			buf[k] = (char)c->a[c->pos];
		else if (c->pos >= c->at && c->pos < c->b_len)
			buf[k] = (char)c->b[c->pos];
		else
			break;	/* the end of the file as it is now */
	}
	return (ssize_t)k;
}

/* Only where it is: a loader that went back would read another file. */
static int
changing_seek(void *cookie, off64_t *off, int whence)
{
	struct changing *c = cookie;

	if ((whence == SEEK_CUR && *off == 0) ||
	    (whence == SEEK_SET && (size_t)*off == c->pos)) {
		*off = (off64_t)c->pos;
		return 0;
	}
	return -1;
}

static void
each_changing(const uint8_t *d, uint32_t len,
	      const struct lr_replay_frame_info *fi, uint32_t flow, void *arg)
{
	struct changing *c = arg;

	/* Each frame within the port's limit, all of them within what the
	 * stream gave (a record header of 16 B each at least). */
	c->frame_bytes += len;
	if (len > c->max_frame || c->frame_bytes > c->pos)
		abort();
	each(d, len, fi, flow, NULL);
}

static void
changing_capture(const uint8_t *data, size_t size)
{
	cookie_io_functions_t io = { .read = changing_read,
				     .seek = changing_seek };
	struct changing c = { 0 };
	uint32_t at, a_len;
	FILE *f;
	int ret;

	if (size < 12)
		return;
	memcpy(&at, data + 4, 4);
	memcpy(&a_len, data + 8, 4);
	data += 12;
	size -= 12;
	c.a = data;
	c.a_len = RTE_MIN((size_t)a_len, size);
	c.b = data + c.a_len;
	c.b_len = size - c.a_len;
	c.at = at;
	c.max_frame = size % 2 ? 1522 : 9018 + 22;
	f = fopencookie(&c, "r", io);
	if (f == NULL)
		abort();
	ret = lr_replay_check_stream(f, "changing", c.max_frame,
				     size && (data[size - 1] & 1),
				     each_changing, &c);
	if (ret != 0 && ret != -EINVAL && ret != -EIO && ret != -EFBIG &&
	    ret != -ENOMEM)
		abort();
	if (ret != 0 && lr_errmsg()[0] == '\0')
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t magic;
	FILE *f;
	int ret;

	if (size > 65536)
		return 0;
	if (size < 4)
		return 0;
	if (memcmp(data, "LRch", 4) == 0) {
		changing_capture(data, size);
		return 0;
	}
	memcpy(&magic, data, 4);
	if (magic != 0xa1b2c3d4 && magic != 0xd4c3b2a1 && magic != 0xa1b23c4d &&
	    magic != 0x4d3cb2a1 && magic != 0x0a0d0d0a) {
		/* A frame. */
		struct lr_replay_frame_info fi;

		lr_replay_check_frame(data, (uint32_t)size, 0, false,
				      (uint8_t[65536]){ 0 }, &fi);
		each(data, (uint32_t)size, &fi, 0, NULL);
		return 0;
	}
	f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	ret = lr_replay_check_file(path, size % 2 ? 1522 : 9018 + 22,
				   data[size - 1] & 1, each, NULL);
	if (ret != 0 && ret != -EINVAL && ret != -EIO && ret != -EFBIG &&
	    ret != -ENOMEM)
		abort();
	if (ret != 0 && lr_errmsg()[0] == '\0')
		abort();
	return 0;
}
