/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-bare: the ceiling a port gives with nothing else to do, for the
 * benchmarks to set linerate's figures against.
 *
 *   lr-bare [EAL options] -- tx|rx PORT-DEVARGS SECONDS [SIZE [MBUFS]]
 *
 * tx: rte_pktmbuf_alloc_bulk, set the length, rte_eth_tx_burst, in bursts
 *     of 32 on the first worker lcore. No payload writes, no pacing.
 * rx: rte_eth_rx_burst and rte_pktmbuf_free_bulk, nothing else.
 * Prints "lr-bare: MODE N packets in S s: X Mpps" at the end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#define BURST 32

static volatile int stop;
static uint16_t port;
static struct rte_mempool *pool;
static uint32_t len = 60;
static uint32_t nb_mbufs = 16383;
static uint64_t packets, cycles;
static double seconds;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int
tx_loop(void *arg)
{
	struct rte_mbuf *m[BURST];
	uint64_t n = 0, start = rte_rdtsc(), end = start + seconds * rte_get_tsc_hz();
	uint16_t i, sent;

	(void)arg;
	while (!stop && rte_rdtsc() < end) {
		if (rte_pktmbuf_alloc_bulk(pool, m, BURST) != 0)
			continue;
		for (i = 0; i < BURST; i++) {
			m[i]->data_len = (uint16_t)len;
			m[i]->pkt_len = len;
		}
		sent = rte_eth_tx_burst(port, 0, m, BURST);
		n += sent;
		if (sent < BURST)
			rte_pktmbuf_free_bulk(m + sent, BURST - sent);
	}
	packets = n;
	cycles = rte_rdtsc() - start;
	return 0;
}

static int
rx_loop(void *arg)
{
	struct rte_mbuf *m[BURST];
	uint64_t n = 0, start = 0, last = 0, end = 0;
	uint16_t got;

	(void)arg;
	while (!stop) {
		got = rte_eth_rx_burst(port, 0, m, BURST);
		if (got == 0) {
			/* Ends one second after the last frame, or at the time
			 * limit counted from the first. */
			if (start != 0 && rte_rdtsc() - last > rte_get_tsc_hz())
				break;
			continue;
		}
		last = rte_rdtsc();
		if (start == 0) {
			start = last;
			end = start + seconds * rte_get_tsc_hz();
		}
		n += got;
		rte_pktmbuf_free_bulk(m, got);
		if (last > end)
			break;
	}
	packets = n;
	cycles = last - start;
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_eth_conf ec;
	unsigned int worker;
	bool tx;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "lr-bare: EAL initialisation failed\n");
		return 2;
	}
	argc -= n;
	argv += n;
	if (argc < 4 || (strcmp(argv[1], "tx") != 0 && strcmp(argv[1], "rx") != 0)) {
		fprintf(stderr, "usage: lr-bare [EAL] -- tx|rx DEVARGS SECONDS [SIZE [MBUFS]]\n");
		return 2;
	}
	tx = strcmp(argv[1], "tx") == 0;
	seconds = atof(argv[3]);
	if (argc > 4)
		len = (uint32_t)atoi(argv[4]) - 4;
	if (argc > 5)	/* net_pcap's infinite_rx holds the whole file */
		nb_mbufs = (uint32_t)atoi(argv[5]);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	{
		char name[64];
		const char *comma = strchr(argv[2], ',');
		size_t k = comma ? (size_t)(comma - argv[2]) : strlen(argv[2]);

		snprintf(name, sizeof(name), "%.*s", (int)k, argv[2]);
		if (rte_dev_probe(argv[2]) != 0 ||
		    rte_eth_dev_get_port_by_name(name, &port) != 0) {
			fprintf(stderr, "lr-bare: no port %s\n", argv[2]);
			return 1;
		}
	}
	pool = rte_pktmbuf_pool_create("bare", nb_mbufs, 256, 0,
				       RTE_PKTMBUF_HEADROOM + RTE_MAX(len, 2048u),
				       rte_socket_id());
	memset(&ec, 0, sizeof(ec));
	if (pool == NULL || rte_eth_dev_configure(port, 1, 1, &ec) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(), NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(), NULL) != 0 ||
	    rte_eth_dev_start(port) != 0) {
		fprintf(stderr, "lr-bare: cannot set up %s\n", argv[2]);
		return 1;
	}
	for (n = 0; n < 1000; n++) {	/* up to 10 s for the link */
		struct rte_eth_link l;

		if (rte_eth_link_get_nowait(port, &l) == 0 && l.link_status)
			break;
		rte_delay_ms(10);
	}
	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker >= RTE_MAX_LCORE) {
		fprintf(stderr, "lr-bare: give EAL two lcores\n");
		return 2;
	}
	rte_eal_remote_launch(tx ? tx_loop : rx_loop, NULL, worker);
	/* rte_eal_wait_lcore() spins: with a peer process on the other
	 * core, the main lcore must sleep instead. */
	while (rte_eal_get_lcore_state(worker) == RUNNING)
		rte_delay_us_sleep(1000);
	rte_eal_wait_lcore(worker);
	printf("lr-bare: %s %" PRIu64 " packets in %.3f s: %.3f Mpps\n",
	       tx ? "tx" : "rx", packets, (double)cycles / rte_get_tsc_hz(),
	       cycles ? packets / ((double)cycles / rte_get_tsc_hz()) / 1e6 : 0);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return 0;
}
