/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture object (lr_capture.h) over real net_pcap ports: which queues
 * replay a file, how many frames the file holds as the PMD reads it, and an
 * end told at the last frame, never before it and never missed. Every frame
 * is read here with rte_eth_rx_burst() on the main lcore, so that the test
 * knows exactly how many the queue has given.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "lr_capture.h"
#include "lr_common.h"
#include "lr_port.h"
#include "../lr_test.h"

static char paths[3][64];
static unsigned int nb_vdev;

/* A capture file of @p n frames, frame i of 60 + i B but the middle one
 * of 1514 B, so that the longest is neither the first nor the last; with
 * @p cut, a last record whose bytes stop short (the PMD stops before it, as
 * libpcap does). */
static void
write_capture(const char *path, unsigned int n, bool cut)
{
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *w;
	static uint8_t frame[1514];
	unsigned int i;
	FILE *f;

	assert_non_null(pd);
	w = pcap_dump_open(pd, path);
	assert_non_null(w);
	memset(frame, 0xa5, sizeof(frame));
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h = { .caplen = i == n / 2 ? 1514 : 60 + i };

		h.len = h.caplen;
		h.ts.tv_sec = 1000 + i;
		pcap_dump((u_char *)w, &h, frame);
	}
	pcap_dump_close(w);
	pcap_close(pd);
	if (!cut)
		return;
	/* A record header that promises 200 B, and 10 of them. */
	f = fopen(path, "ab");
	assert_non_null(f);
	{
		uint32_t hdr[4] = { 2000, 0, 200, 200 };

		assert_int_equal(fwrite(hdr, sizeof(hdr), 1, f), 1);
		assert_int_equal(fwrite(frame, 10, 1, f), 1);
	}
	fclose(f);
}

/* A net_pcap port of its own name reading @p files (one rx queue each),
 * set up with that many rx queues. */
static uint16_t
pcap_port(const char *const *files, unsigned int n, const char *extra)
{
	struct lr_port_conf pc;
	char spec[512];
	uint16_t port;
	unsigned int i;
	int len;

	len = snprintf(spec, sizeof(spec), "net_pcap%u", 40 + nb_vdev++);
	for (i = 0; i < n; i++)
		len += snprintf(spec + len, sizeof(spec) - len, ",rx_pcap=%s",
				files[i]);
	snprintf(spec + len, sizeof(spec) - len, "%s", extra);
	assert_int_equal(lr_port_find(spec, &port), 0);
	lr_port_conf_init(&pc);
	pc.nb_rxq = (uint16_t)n;
	pc.nb_txq = (uint16_t)n;
	pc.link_timeout_ms = 0;
	assert_int_equal(lr_port_setup(port, &pc), 0);
	return port;
}

/* Read up to @p max frames of (@p port, @p queue). @return how many. */
static uint64_t
take(uint16_t port, uint16_t queue, uint64_t max)
{
	struct rte_mbuf *m[LR_BURST];
	uint64_t got = 0;
	uint16_t n;

	while (got < max) {
		n = rte_eth_rx_burst(port, queue, m,
				     (uint16_t)RTE_MIN((uint64_t)LR_BURST, max - got));
		if (n == 0)
			break;
		rte_pktmbuf_free_bulk(m, n);
		got += n;
	}
	return got;
}

static void
opens_only_a_file_that_ends(void **state)
{
	const char *one[] = { paths[0] };
	uint16_t wire[2], port;

	(void)state;
	/* Not net_pcap. */
	assert_int_equal(lr_test_wire("uc", wire), 0);
	assert_null(lr_capture_open(wire[1], 0, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, ENOENT);
	/* infinite_rx loops over the file: it never ends. */
	port = pcap_port(one, 1, ",infinite_rx=1");
	assert_null(lr_capture_open(port, 0, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, ENOENT);
	/* No end is ever asked of a queue that replays nothing. */
	assert_false(lr_capture_end(NULL, 0));
}

/* As the PMD reads the file: every whole record, not a cut last one. */
static void
counts_as_the_pmd_reads(void **state)
{
	const char *cut[] = { paths[2] };
	struct lr_capture *c;
	uint16_t port;

	(void)state;
	port = pcap_port(cut, 1, "");
	c = lr_capture_open(port, 0, SOCKET_ID_ANY);
	assert_non_null(c);
	assert_int_equal(c->frames, 25);
	assert_int_equal(c->max_frame, 1514);
	assert_true(c->alone);
	assert_int_equal(take(port, 0, UINT64_MAX), 25);
	assert_true(lr_capture_end(c, 25));
	lr_capture_free(c);
}

/* The end at the last frame of the file: not one frame before (a task
 * that ends early loses the rest), and at once when it has come (a task
 * that misses it runs for ever on a queue that has nothing more). */
static void
ends_at_the_last_frame(void **state)
{
	const char *one[] = { paths[0] };
	struct lr_capture *c;
	uint64_t got = 0;
	uint16_t port;

	(void)state;
	port = pcap_port(one, 1, "");
	c = lr_capture_open(port, 0, SOCKET_ID_ANY);
	assert_non_null(c);
	if (c == NULL)	/* GCC's -Wstringop-overflow under ASan cannot see
			 * that cmocka's failed assert does not return */
		return;
	assert_int_equal(c->frames, 100);
	assert_false(lr_capture_end(c, 0));
	while (got < 99) {
		got += take(port, 0, RTE_MIN((uint64_t)7, 99 - got));
		assert_false(lr_capture_end(c, got));
		assert_false(lr_capture_ended(c));
	}
	assert_int_equal(got, 99);
	assert_false(lr_capture_tell(c, "test", got));	/* nothing to tell */
	got += take(port, 0, UINT64_MAX);
	assert_int_equal(got, 100);
	assert_true(lr_capture_end(c, got));
	assert_true(lr_capture_ended(c));
	/* Told once. */
	assert_true(lr_capture_tell(c, "test", got));
	assert_false(lr_capture_tell(c, "test", got));
	lr_capture_free(c);
}

/* The port's only queue: frames the PMD took but could not deliver count
 * towards the end (the reader got fewer than the file's). With two queues
 * the port's counters hold the other queue's frames: only the reader's own
 * count tells the end. */
static void
counts_the_port_only_alone(void **state)
{
	const char *one[] = { paths[0] };
	const char *two[] = { paths[0], paths[1] };
	struct lr_capture *c, *c0, *c1;
	uint16_t port;

	(void)state;
	port = pcap_port(one, 1, "");
	c = lr_capture_open(port, 0, SOCKET_ID_ANY);
	assert_non_null(c);
	assert_int_equal(take(port, 0, 60), 60);
	assert_false(lr_capture_end(c, 0));
	assert_int_equal(take(port, 0, UINT64_MAX), 40);
	/* The reader was given none of them: the PMD took them all. */
	assert_true(lr_capture_end(c, 0));
	lr_capture_free(c);

	port = pcap_port(two, 2, "");
	c0 = lr_capture_open(port, 0, SOCKET_ID_ANY);
	c1 = lr_capture_open(port, 1, SOCKET_ID_ANY);
	assert_non_null(c0);
	assert_non_null(c1);
	assert_false(c0->alone);
	assert_int_equal(c0->frames, 100);
	assert_int_equal(c1->frames, 30);
	/* Queue 0 read whole: 100 frames on the port's counters, more than
	 * queue 1's file holds, and queue 1 has not given one. */
	assert_int_equal(take(port, 0, UINT64_MAX), 100);
	assert_true(lr_capture_end(c0, 100));
	assert_false(lr_capture_end(c1, 0));
	assert_int_equal(take(port, 1, 29), 29);
	assert_false(lr_capture_end(c1, 29));
	assert_int_equal(take(port, 1, UINT64_MAX), 1);
	assert_true(lr_capture_end(c1, 30));
	lr_capture_free(c0);
	lr_capture_free(c1);
}

static int
setup(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++)
		snprintf(paths[i], sizeof(paths[i]), "/tmp/lr_ut_cap%u_%d.pcap",
			 i, (int)getpid());
	write_capture(paths[0], 100, false);
	write_capture(paths[1], 30, false);
	write_capture(paths[2], 25, true);
	return lr_test_eal_init("capture");
}

static int
teardown(void **state)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		unlink(paths[i]);
	return lr_test_teardown(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opens_only_a_file_that_ends),
		cmocka_unit_test(counts_as_the_pmd_reads),
		cmocka_unit_test(ends_at_the_last_frame),
		cmocka_unit_test(counts_the_port_only_alone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
