/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture files a port writes (lr_capture_out.h): net_pcap's tx_pcap,
 * checked at the port's close.
 *
 * Why by the file's size: the PMD's dumper (a FILE of libpcap's) is the
 * PMD's private state, and it ignores what pcap_dump(), pcap_dump_flush()
 * and pcap_dump_close() report, so no error of a write reaches us and
 * ferror() cannot be reached without reading the PMD's internals. What can
 * be relied on is the format and the PMD's counters: its tx_dumper counts a
 * frame after pcap_dump() (opackets) and adds the bytes it gave it
 * (caplen, obytes), so a whole file is exactly the 24 B file header, a
 * 16 B record header per frame and the frames' bytes. A write refused
 * anywhere (a full file system, a quota, the file size limit, an I/O
 * error) leaves the file shorter, whatever libpcap or stdio did with the
 * error. fsync() then asks the file system for what it could only find at
 * writeback (an I/O error, an NFS server's refusal), which a size read
 * from the page cache would not show.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "lr_capture_out.h"
#include "lr_common.h"

#define PCAP_FILE_HDR 24u
#define PCAP_REC_HDR 16u

struct out_file {
	char *path;
	uint64_t pkts0, bytes0;		/* the queue's counters at the start */
	uint64_t pkts, bytes;		/* at the stop */
};

struct out_port {
	uint16_t n;			/* files (tx queues that write one) */
	bool stopped;			/* the counters at the end were read */
	char name[RTE_ETH_NAME_MAX_LEN];	/* gone from ethdev at the close */
	struct out_file f[RTE_ETHDEV_QUEUE_STAT_CNTRS];
};

static struct out_port *outs[RTE_MAX_ETHPORTS];

static void
forget(uint16_t port)
{
	struct out_port *o = outs[port];
	uint16_t i;

	if (o == NULL)
		return;
	for (i = 0; i < o->n; i++)
		free(o->f[i].path);
	free(o);
	outs[port] = NULL;
}

/* The counters of each file's queue: with one file the port's totals,
 * which every PMD fills; with several the per-queue ones net_pcap fills
 * (the first RTE_ETHDEV_QUEUE_STAT_CNTRS queues: no more are kept). */
static int
read_counters(uint16_t port, struct out_port *o, bool at_start)
{
	struct rte_eth_stats st;
	uint16_t i;

	if (rte_eth_stats_get(port, &st) != 0)
		return -1;
	for (i = 0; i < o->n; i++) {
		uint64_t p = o->n == 1 ? st.opackets : st.q_opackets[i];
		uint64_t b = o->n == 1 ? st.obytes : st.q_obytes[i];

		if (at_start) {
			o->f[i].pkts0 = p;
			o->f[i].bytes0 = b;
		} else {
			o->f[i].pkts = p;
			o->f[i].bytes = b;
		}
	}
	return 0;
}

static int
add_file(const char *key, const char *value, void *opaque)
{
	struct out_port *o = opaque;

	RTE_SET_USED(key);
	if (o->n < RTE_DIM(o->f) && (o->f[o->n].path = strdup(value)) != NULL)
		o->n++;
	return 0;
}

void
lr_capture_out_start(uint16_t port, uint16_t nb_txq)
{
	const struct rte_devargs *da;
	struct rte_eth_dev_info di;
	struct rte_kvargs *kv;
	struct out_port *o;

	if (port >= RTE_MAX_ETHPORTS)
		return;
	forget(port);
	if (rte_eth_dev_info_get(port, &di) != 0 || di.device == NULL ||
	    di.driver_name == NULL || strcmp(di.driver_name, "net_pcap") != 0)
		return;
	da = rte_dev_devargs(di.device);
	if (da == NULL || da->args == NULL)
		return;
	kv = rte_kvargs_parse(da->args, NULL);	/* the PMD checked the keys */
	if (kv == NULL)
		return;
	o = calloc(1, sizeof(*o));
	if (o != NULL && rte_kvargs_count(kv, "tx_pcap") > 0)
		rte_kvargs_process(kv, "tx_pcap", add_file, o);
	rte_kvargs_free(kv);
	if (o == NULL)
		return;
	/* Queues past those set up are never written (nor closed). */
	while (o->n > nb_txq)
		free(o->f[--o->n].path);
	rte_eth_dev_get_name_by_port(port, o->name);
	outs[port] = o;
	if (o->n == 0 || read_counters(port, o, true) != 0)
		forget(port);
}

void
lr_capture_out_stop(uint16_t port)
{
	struct out_port *o = port < RTE_MAX_ETHPORTS ? outs[port] : NULL;

	if (o != NULL)
		o->stopped = read_counters(port, o, false) == 0;
}

/* Why a file came out short, where it can still be told: the file system
 * has less room than was missing (it filled up; root may use the blocks
 * kept back for it), or the file is at the process's size limit. 0: not
 * known here (a quota, a transient error). */
static int
why_short(int fd, uint64_t want, uint64_t have)
{
	struct statvfs vfs;
	struct rlimit rl;
	uint64_t room;

	if (fstatvfs(fd, &vfs) == 0) {
		room = (uint64_t)(geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail) *
		       vfs.f_frsize;
		if (room < want - have)
			return ENOSPC;
	}
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    want > (uint64_t)rl.rlim_cur)
		return EFBIG;
	return 0;
}

static int
check_file(const char *port_name, const struct out_file *f)
{
	uint64_t frames = f->pkts - f->pkts0;
	uint64_t want = PCAP_FILE_HDR + frames * PCAP_REC_HDR + (f->bytes - f->bytes0);
	struct stat st;
	int fd, err;

	/* A FIFO or a device (/dev/null) keeps no size to compare; a FIFO
	 * would also block an open for reading now that its writer is gone:
	 * look first, open only a regular file (and never wait there). */
	if (stat(f->path, &st) != 0) {
		/* Removed since (a script that read it and cleaned up before
		 * the ports closed): nothing left to check, and no sign that
		 * a write failed. */
		if (errno == ENOENT)
			return 0;
		return lr_err(errno, "port %s: capture %s: cannot be read back",
			      port_name, f->path);
	}
	if (!S_ISREG(st.st_mode))
		return 0;
	fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return lr_err(errno, "port %s: capture %s: cannot be read back",
			      port_name, f->path);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	if (fsync(fd) != 0) {
		err = errno;
		close(fd);
		return lr_err(err, "port %s: capture %s: not written whole",
			      port_name, f->path);
	}
	if ((uint64_t)st.st_size == want) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > want) {
		close(fd);
		return lr_err(EIO, "port %s: capture %s: %" PRIu64 " B in the "
			      "file, %" PRIu64 " B written (another writer?)",
			      port_name, f->path, (uint64_t)st.st_size, want);
	}
	err = why_short(fd, want, (uint64_t)st.st_size);
	close(fd);
	if (err != 0)
		return lr_err(err, "port %s: capture %s: not written whole, %"
			      PRIu64 " of %" PRIu64 " B (%" PRIu64 " frames)",
			      port_name, f->path, (uint64_t)st.st_size, want, frames);
	/* No errno to tell: say what is known, not an EIO nobody saw. */
	lr_err(0, "port %s: capture %s: not written whole, %" PRIu64 " of %"
	       PRIu64 " B (%" PRIu64 " frames): a write failed", port_name,
	       f->path, (uint64_t)st.st_size, want, frames);
	return -EIO;
}

int
lr_capture_out_check(uint16_t port)
{
	struct out_port *o = port < RTE_MAX_ETHPORTS ? outs[port] : NULL;
	uint16_t i;
	int ret = 0;

	if (o == NULL)
		return 0;
	/* No counters at the end: nothing to compare with. The first file
	 * that fails is the one said. */
	for (i = 0; o->stopped && i < o->n && ret == 0; i++)
		ret = check_file(o->name, &o->f[i]);
	forget(port);
	return ret;
}
