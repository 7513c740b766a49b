/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A classic pcap file loaded and walked in place (lr_pcapmap.h). Checked
 * whole at open, so that the fast path's walk needs no check of its own:
 * it reads only records that were found whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "lr_common.h"
#include "lr_pcapmap.h"

#define LINKTYPE_ETHERNET 1
#define PCAPMAP_ALIGN (2u << 20)

static uint32_t
get32(const struct lr_pcapmap *m, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return m->swap ? rte_bswap32(v) : v;
}

static uint16_t
get16(const struct lr_pcapmap *m, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return m->swap ? rte_bswap16(v) : v;
}

/* The header: magic, version, link type. */
static int
check_header(struct lr_pcapmap *m, const char *who, const char *path)
{
	uint32_t magic, link;
	uint16_t major, minor;

	if (m->size < 24)
		return lr_err(EINVAL, "%s: pcap %s: %zu B, shorter than a pcap file "
			      "header", who, path, m->size);
	memcpy(&magic, m->map, 4);
	switch (magic) {
	case 0xa1b2c3d4: break;
	case 0xd4c3b2a1: m->swap = true; break;
	case 0xa1b23c4d: m->nsec = true; break;
	case 0x4d3cb2a1: m->swap = m->nsec = true; break;
	case 0x0a0d0d0a:
		return lr_err(EINVAL, "%s: pcap %s: pcapng, not pcap: convert it "
			      "(editcap -F pcap %s out.pcap) or read it with "
			      "--port net_pcap0,rx_pcap=%s", who, path, path, path);
	default:
		return lr_err(EINVAL, "%s: pcap %s: not a pcap file (magic 0x%08x)",
			      who, path, magic);
	}
	/* Versions 2.0 to 2.4, as libpcap (gen --pcap) takes them: one
	 * answer for a file, whichever role reads it (issue 35 L15). */
	major = get16(m, m->map + 4);
	minor = get16(m, m->map + 6);
	if (major != 2 || minor > 4)
		return lr_err(EINVAL, "%s: pcap %s: version %u.%u, not 2.0 to 2.4",
			      who, path, major, minor);
	m->ts_mult = m->nsec ? 1 : 1000;
	/* The link type's low 16 bits; the rest are FCS flags. */
	link = get32(m, m->map + 20) & 0xffff;
	if (link != LINKTYPE_ETHERNET)
		return lr_err(EINVAL, "%s: pcap %s: link type %u, not Ethernet", who, path,
			      link);
	return 0;
}

/* Every record: whole, and of a length libpcap would take. */
static int
walk(struct lr_pcapmap *m, const char *who, const char *path)
{
	const uint8_t *p = m->map + 24, *end = m->map + m->size;
	uint32_t caplen;

	while (p < end) {
		if ((size_t)(end - p) < 16) {
			m->cut_bytes = (uint64_t)(end - p);
			break;
		}
		caplen = get32(m, p + 8);
		if (caplen > LR_PCAPMAP_MAX_CAPLEN)
			return lr_err(EINVAL, "%s: pcap %s: record %" PRIu64 " at byte "
				      "%zu: %u B captured, more than any capture "
				      "takes (%u): a corrupt file", who, path,
				      m->frames + 1, (size_t)(p - m->map), caplen,
				      LR_PCAPMAP_MAX_CAPLEN);
		if ((size_t)(end - p - 16) < caplen) {
			m->cut_bytes = (uint64_t)(end - p);
			break;
		}
		m->frames++;
		m->bytes += caplen;
		m->max_caplen = RTE_MAX(m->max_caplen, caplen);
		p += 16 + caplen;
	}
	m->end = p;
	return 0;
}

int
lr_pcapmap_open(struct lr_pcapmap *m, const char *path, const char *who)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	ssize_t r;
	int fd, ret, err = 0;

	memset(m, 0, sizeof(*m));
	/* O_NONBLOCK: a FIFO without a writer would block open() for ever,
	 * before fstat() could refuse it (no effect on a regular file). */
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return lr_err(errno, "%s: pcap %s", who, path);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return lr_err(EINVAL, "%s: pcap %s: not a regular file (a pipe or "
			      "FIFO: read it with --port net_pcap0,rx_pcap=%s)",
			      who, path, path);
	}
	if (st.st_size < 24) {
		close(fd);
		return lr_err(EINVAL, "%s: pcap %s: %jd B, shorter than a pcap file "
			      "header", who, path, (intmax_t)st.st_size);
	}
	/* Read whole into memory, not mapped: a file truncated or rewritten
	 * while mapped would fault the reader (SIGBUS); a copy of what was
	 * read cannot change under the walk. The bytes it had at fstat. */
	/* In 2 MB pages where the kernel gives them (THP on madvise): one
	 * fault per 2 MB, not per 4 KB, while the file is read in. */
	if (posix_memalign((void **)&buf, PCAPMAP_ALIGN,
			   RTE_ALIGN_CEIL((size_t)st.st_size, PCAPMAP_ALIGN)) != 0)
		buf = NULL;
	else
		madvise(buf, RTE_ALIGN_CEIL((size_t)st.st_size, PCAPMAP_ALIGN),
			MADV_HUGEPAGE);
	if (buf == NULL) {
		close(fd);
		return lr_err(ENOMEM, "%s: pcap %s: no memory for its %jd MB", who, path,
			      (intmax_t)(st.st_size >> 20));
	}
	while (got < (size_t)st.st_size) {
		r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			break;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (err != 0 || got < 24) {
		free(buf);
		return lr_err(err != 0 ? err : EIO, "%s: pcap %s: read %zu of %jd "
			      "B%s", who, path, got, (intmax_t)st.st_size, err != 0 ?
			      "" : ": it shrank meanwhile");
	}
	m->map = buf;
	/* A file that shrank while read: the bytes read, cut where it was. */
	m->size = got;
	ret = check_header(m, who, path);
	if (ret == 0)
		ret = walk(m, who, path);
	if (ret != 0) {
		lr_pcapmap_close(m);
		return ret;
	}
	lr_pcapmap_rewind(m);
	return 0;
}

void
lr_pcapmap_close(struct lr_pcapmap *m)
{
	free((void *)(uintptr_t)m->map);
	memset(m, 0, sizeof(*m));
}
