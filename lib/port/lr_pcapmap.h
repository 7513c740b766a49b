/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A classic pcap file loaded: read into memory whole with read(2) (one
 * pass; no mapping, which a file truncated meanwhile would fault), its
 * records walked and checked when it is opened, then handed out frame
 * by frame with no copy and no libpcap (the probe's --pcap). net_pcap reads
 * a capture with libpcap's fread per record and copies each frame into an
 * mbuf: on a capture that is a third of the probe's time.
 *
 * What it takes: pcap (not pcapng), us or ns stamps, either byte order,
 * Ethernet. Every record is checked at open: a record whose length is
 * beyond any snap length (262144 B, libpcap's bound too) is an error, a
 * last record cut short (a capture whose writer was killed) is counted in
 * cut_bytes and ends the frames there, as libpcap ends there.
 *
 * Times are Unix ns: a ns file's exactly, a us file's times 1000 (net_pcap
 * gives us). Seconds are pcap's unsigned 32 bits (until 2106).
 *
 * Threading: open and close on the control path; lr_pcapmap_next() on the
 * one lcore that reads the map.
 */
#ifndef LR_PCAPMAP_H
#define LR_PCAPMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#define LR_PCAPMAP_MAX_CAPLEN 262144u	/* a record longer is corrupt */

struct lr_pcapmap {
	const uint8_t *map;	/**< the file's bytes, in memory */
	size_t size;		/**< its bytes */
	const uint8_t *pos;	/**< the next record */
	const uint8_t *end;	/**< the end of the last whole record */
	uint64_t frames;	/**< whole records in the file */
	uint64_t bytes;		/**< their captured bytes */
	uint64_t cut_bytes;	/**< bytes of a cut last record, 0: none */
	uint64_t ts_mult;	/**< 1000 (us stamps) or 1 (ns stamps) */
	uint32_t max_caplen;	/**< the longest record */
	bool swap;		/**< written in the other byte order */
	bool nsec;
};

/**
 * Load @p path and check every record; @p who begins the messages
 * ("probe"). @return 0, or -errno with lr_errmsg() saying why in one line (ENOENT and the like: the file;
 * EINVAL: not a pcap of Ethernet, pcapng, a corrupt record).
 */
int lr_pcapmap_open(struct lr_pcapmap *m, const char *path, const char *who);

/** Free (one never opened, zeroed: nothing). */
void lr_pcapmap_close(struct lr_pcapmap *m);

/** From the first frame again. */
static inline void
lr_pcapmap_rewind(struct lr_pcapmap *m)
{
	m->pos = m->map + 24;
}

/**
 * Fast path: the next frame, its bytes in the map (@p d), captured length
 * @p caplen and capture time (Unix ns). @return false at the end.
 */
static inline bool
lr_pcapmap_next(struct lr_pcapmap *m, const uint8_t **d, uint32_t *caplen,
		uint64_t *ts_ns)
{
	uint32_t h[3];
	const uint8_t *p = m->pos;

	if (p >= m->end)
		return false;
	memcpy(h, p, sizeof(h));
	if (m->swap) {
		h[0] = rte_bswap32(h[0]);
		h[1] = rte_bswap32(h[1]);
		h[2] = rte_bswap32(h[2]);
	}
	*d = p + 16;
	*caplen = h[2];
	*ts_ns = (uint64_t)h[0] * 1000000000ull + (uint64_t)h[1] * m->ts_mult;
	m->pos = p + 16 + h[2];
	return true;
}

#endif
