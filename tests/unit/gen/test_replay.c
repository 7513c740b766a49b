/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen --pcap's control path without a task (lib/gen/replay.c through
 * gen_replay.h's check functions): what tests/fuzz/fuzz_replay found.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "lr_common.h"
#include "lr_wire.h"
#include "gen_replay.h"

/* Ethernet, IPv4 (total length @p ip_len), UDP (length @p udp_len) and
 * @p data bytes of 'x' in a frame of @p frame bytes; both sums right over
 * what the IP length covers. */
static uint32_t
udp4(uint8_t *b, uint32_t frame, uint16_t ip_len, uint16_t udp_len)
{
	struct rte_ipv4_hdr *ip = (void *)(b + 14);
	struct rte_udp_hdr *u = (void *)(b + 34);

	memset(b, 'x', frame);
	memset(b, 0, 14);
	b[12] = 0x08;
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(ip_len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	u->src_port = rte_cpu_to_be_16(1000);
	u->dst_port = rte_cpu_to_be_16(53);
	u->dgram_len = rte_cpu_to_be_16(udp_len);
	u->dgram_cksum = 0;
	u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
	return frame;
}

static bool
sums_right(const uint8_t *b)
{
	const struct rte_ipv4_hdr *ip = (const void *)(b + 14);

	return rte_ipv4_cksum(ip) == 0 &&
	       rte_ipv4_udptcp_cksum_verify(ip, b + 34) == 0;
}

/* The stamp is written inside the IP datagram only: past its length (a
 * UDP length longer than the datagram, the bytes after it a trailer) the
 * sum it fixes never covered them, and a right sum went wrong. */
static void
stamp_inside_ip_length(void **state)
{
	struct lr_replay_frame_info fi;
	uint8_t b[128], out[128];
	uint32_t n;

	(void)state;
	n = udp4(b, 82, 68, 48);	/* well formed */
	assert_true(sums_right(b));
	lr_replay_check_frame(b, n, 3, true, out, &fi);
	assert_int_equal(fi.stamp, 42);
	assert_true(fi.stamped && fi.shifted);
	assert_true(sums_right(out));
	assert_int_equal(out[29], b[29] + 3);

	n = udp4(b, 82, 44, 48);	/* 16 data bytes in the datagram */
	assert_true(sums_right(b));
	lr_replay_check_frame(b, n, 3, true, out, &fi);
	assert_int_equal(fi.stamp, 0);
	assert_false(fi.stamped);
	assert_true(sums_right(out));
	assert_memory_equal(out + 42, b + 42, n - 42);
}

static void
count(const uint8_t *d, uint32_t len, const struct lr_replay_frame_info *fi,
      uint32_t flow, void *arg)
{
	(void)d;
	(void)len;
	(void)fi;
	(void)flow;
	(*(unsigned int *)arg)++;
}

/* A frame longer than the port takes is refused with its length (read
 * after pcap_close freed it before: ASan's heap-use-after-free in a
 * -Dsanitize=true build). */
static void
long_frame_refused(void **state)
{
	static const uint32_t ghdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	char path[] = "/tmp/test_replay_XXXXXX";
	uint8_t frame[1600];
	uint32_t rec[4] = { 1, 0, sizeof(frame), sizeof(frame) };
	unsigned int frames = 0;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	udp4(frame, sizeof(frame), 1586, 1566);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(ghdr, sizeof(ghdr), 1, f), 1);
	assert_int_equal(fwrite(rec, sizeof(rec), 1, f), 1);
	assert_int_equal(fwrite(frame, sizeof(frame), 1, f), 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(lr_replay_check_file(path, 1522, false, count, &frames),
			 -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "has 1600 B, more than the port "
			       "takes (1522 B"));
	assert_int_equal(frames, 0);
	assert_int_equal(lr_replay_check_file(path, 9018, false, count, &frames), 0);
	assert_int_equal(frames, 1);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stamp_inside_ip_length),
		cmocka_unit_test(long_frame_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
