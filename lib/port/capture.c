/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture file an rx queue replays (lr_capture.h): its frames counted
 * as net_pcap reads them, and the end of the file told by count. Then what
 * any rx queue's stamps mean (lr_clock_rx_init()): here in lib/port, which
 * knows its ports and what net_pcap writes, so that lib/common's clock (TSC
 * to Unix ns) needs no port.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include "lr_capture.h"
#include "lr_clock.h"
#include "lr_common.h"
#include "lr_port.h"

/* lib/port's log type (port.c). */
extern int lr_port_logtype;

/*
 * The same count for a classic pcap file without reading its frames: walk
 * the record headers in a read-only mapping (the frames' bytes are never
 * copied, so counting costs a fraction of the replay). @return 1 when done,
 * 0 when the file is not one this walk knows for sure (pcapng, an odd
 * record): libpcap counts it then.
 */
static int
count_frames_mapped(const char *path, uint64_t *frames, uint32_t *max_frame)
{
	const uint8_t *m, *p, *end;
	uint32_t magic, snap, caplen, max = 0;
	bool swap;
	uint64_t n = 0;
	struct stat st;
	int fd, done = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || st.st_size < 24) {
		close(fd);
		return 0;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 0;
	end = m + st.st_size;
	memcpy(&magic, m, 4);
	/* us or ns timestamps, either byte order */
	swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
	if (!swap && magic != 0xa1b2c3d4 && magic != 0xa1b23c4d)
		goto out;
	memcpy(&snap, m + 16, 4);
	snap = swap ? rte_bswap32(snap) : snap;
	for (p = m + 24; p + 16 <= end; p += 16 + caplen) {
		memcpy(&caplen, p + 8, 4);
		caplen = swap ? rte_bswap32(caplen) : caplen;
		/* libpcap refuses such records; let it decide */
		if (caplen > snap || caplen > 262144)
			goto out;
		if ((size_t)(end - p - 16) < caplen)
			break;	/* a cut last record: the PMD stops there too */
		n++;
		max = RTE_MAX(max, caplen);
	}
	*frames = n;
	*max_frame = max;
	done = 1;
out:
	munmap((void *)(uintptr_t)m, (size_t)st.st_size);
	return done;
}

/* Frames in a capture file, read as net_pcap reads it: pcap_next_ex()
 * until it returns anything but 1 (end of file, or a cut last record that
 * the PMD stops at too). */
static int
count_frames(const char *path, uint64_t *frames, uint32_t *max_frame)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *pc;
	uint64_t n = 0;

	if (count_frames_mapped(path, frames, max_frame))
		return 0;
	pc = pcap_open_offline(path, err);
	if (pc == NULL)
		return lr_err(EIO, "port: capture %s: %s", path, err);
	*max_frame = 0;
	while (pcap_next_ex(pc, &h, &d) == 1) {
		n++;
		if (h->caplen > *max_frame)
			*max_frame = h->caplen;
	}
	pcap_close(pc);
	*frames = n;
	return 0;
}

struct capture_args {
	uint16_t queue;
	uint16_t seen;
	uint64_t frames;
	uint32_t max_frame;
	int ret;
};

static int
capture_file(const char *key, const char *value, void *opaque)
{
	struct capture_args *a = opaque;
	uint64_t n = 0;
	uint32_t max = 0;

	RTE_SET_USED(key);
	if (a->ret == 0)
		a->ret = count_frames(value, &n, &max);
	if (a->seen == a->queue) {
		a->frames = n;
		a->max_frame = max;
	}
	a->seen++;
	return 0;
}

/* Frames of the port's files that the PMD has taken: delivered, plus those
 * it read but could not deliver (no mbuf: rx_nombuf; a chain it could not
 * complete: ierrors). Safe on any lcore; a few loads of the PMD's counters. */
static uint64_t
consumed(uint16_t port)
{
	struct rte_eth_stats st;

	if (rte_eth_stats_get(port, &st) != 0)
		return 0;
	return st.ipackets + st.rx_nombuf + st.ierrors;
}

struct lr_capture *
lr_capture_open(uint16_t port, uint16_t queue, int socket)
{
	struct capture_args a = { .queue = queue };
	const struct lr_port_info *pi = lr_port_info(port);
	const struct rte_devargs *da;
	struct rte_eth_dev_info di;
	struct rte_kvargs *kv;
	struct lr_capture *c;
	const char *inf;

	if (pi == NULL || rte_eth_dev_info_get(port, &di) != 0 ||
	    di.device == NULL || di.driver_name == NULL ||
	    strcmp(di.driver_name, "net_pcap") != 0)
		goto none;
	da = rte_dev_devargs(di.device);
	if (da == NULL || da->args == NULL)
		goto none;
	kv = rte_kvargs_parse(da->args, NULL);	/* the PMD checked the keys */
	if (kv == NULL)
		goto none;
	inf = rte_kvargs_get(kv, "infinite_rx");
	/* infinite_rx loops over the file: it never ends. */
	if (rte_kvargs_count(kv, "rx_pcap") <= queue ||
	    (inf != NULL && atoi(inf) > 0)) {
		rte_kvargs_free(kv);
		goto none;
	}
	rte_kvargs_process(kv, "rx_pcap", capture_file, &a);
	rte_kvargs_free(kv);
	if (a.ret != 0) {
		rte_errno = -a.ret;
		return NULL;
	}
	c = rte_zmalloc_socket("lr_capture", sizeof(*c), RTE_CACHE_LINE_SIZE,
			       socket);
	if (c == NULL)
		return lr_err_null(ENOMEM, "port %s: no memory for a capture",
				   pi->name);
	c->frames = a.frames;
	c->max_frame = a.max_frame;
	c->port = port;
	c->queue = queue;
	c->alone = pi->nb_rxq == 1;
	c->base = consumed(port);
	return c;
none:
	rte_errno = ENOENT;
	return NULL;
}

bool
lr_capture_at_end(struct lr_capture *c, uint64_t delivered)
{
	if (delivered < c->frames &&
	    (!c->alone || consumed(c->port) - c->base < c->frames))
		return false;
	__atomic_store_n(&c->ended, 1, __ATOMIC_RELEASE);
	return true;
}

bool
lr_capture_tell(struct lr_capture *c, const char *who, uint64_t delivered)
{
	const struct lr_port_info *pi = lr_port_info(c->port);
	const char *name = pi != NULL ? pi->name : "?";

	if (c->told || !lr_capture_ended(c))
		return false;
	c->told = true;
	if (delivered < c->frames)
		rte_log(RTE_LOG_NOTICE, lr_port_logtype, "port: %s: port %s "
			"queue %u: end of capture: %" PRIu64 " frames, %" PRIu64
			" of them lost in the PMD (no mbuf)\n", who, name,
			c->queue, c->frames, c->frames - delivered);
	else
		rte_log(RTE_LOG_NOTICE, lr_port_logtype, "port: %s: port %s "
			"queue %u: end of capture: %" PRIu64 " frames\n", who,
			name, c->queue, c->frames);
	return true;
}

void
lr_capture_free(struct lr_capture *c)
{
	rte_free(c);
}

int
lr_clock_rx_init(struct lr_clock_rx *rx, uint16_t port, bool capture,
		 const struct lr_clock *c)
{
	const struct lr_port_info *pi = lr_port_info(port);
	uint64_t clk;

	memset(rx, 0, sizeof(*rx));
	rx->mult = 1;
	if (capture) {
		/* net_pcap stamps every frame with its capture time, in us,
		 * whatever the offloads (lr_port.h). */
		if (rte_mbuf_dyn_rx_timestamp_register(&rx->offset, &rx->flag) != 0)
			return -ENOMEM;
		rx->mult = LR_PORT_CAPTURE_TS_NS;
		rx->trace = true;
		return 0;
	}
	if (pi == NULL || !(pi->rx_offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP))
		return 0;
	/* The NIC stamps packets: its clock, taken as ns, against Unix time
	 * at @p c's reading. No dynfield or no clock: the TSC, as without
	 * the offload. */
	if (rte_mbuf_dyn_rx_timestamp_register(&rx->offset, &rx->flag) == 0 &&
	    rte_eth_read_clock(port, &clk) == 0)
		rx->add = (int64_t)(c->ns0 - clk);
	else
		rx->flag = 0;
	return 0;
}
