/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe's --pcap loader (lr_pcapmap.h) against libpcap on the same
 * files: the same frames, lengths, bytes and times (us and ns files, both
 * byte orders), a cut last record counted where libpcap stops, bad files
 * refused with one line; then files cut and records' lengths changed at
 * random: every frame handed out lies inside what was read, and a file
 * libpcap reads whole gives the same frames.
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
#include <pcap.h>
#include <rte_byteorder.h>

#include "lr_common.h"
#include "lr_pcapmap.h"

static char path[64];

/* @p n frames of 14..1514 B, times from 1700000000 s in steps of 1.5 us
 * plus a ns part, written with @p prec; @return the file's bytes. */
static size_t
write_file(unsigned int n, int prec)
{
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, prec);
	static uint8_t frame[1514];
	pcap_dumper_t *w;
	unsigned int i;
	FILE *f;
	long sz;

	assert_non_null(pd);
	w = pcap_dump_open(pd, path);
	assert_non_null(w);
	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7);
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h = { .caplen = 14 + (i * 97) % 1501 };
		uint64_t ns = 1500ull * i + (i % 1000);

		h.len = h.caplen + (i % 3 == 0 ? 100 : 0);
		h.ts.tv_sec = 1700000000 + (time_t)(ns / 1000000000);
		h.ts.tv_usec = prec == PCAP_TSTAMP_PRECISION_NANO ?
			       (suseconds_t)(ns % 1000000000) :
			       (suseconds_t)(ns % 1000000000 / 1000);
		frame[0] = (uint8_t)i;
		pcap_dump((u_char *)w, &h, frame);
	}
	pcap_dump_close(w);
	pcap_close(pd);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fclose(f);
	return (size_t)sz;
}

static uint8_t *
slurp(size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long sz;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	b = malloc((size_t)sz + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*len = (size_t)sz;
	return b;
}

static void
spill(const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len != 0)
		assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* The loader's frames against libpcap's (ns precision asked) up to where
 * libpcap stops; @return the frames libpcap read. With @p whole, the
 * loader must have no frame past them either. */
static uint64_t
same_as_libpcap(struct lr_pcapmap *m, bool whole)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *pd;
	const uint8_t *d = NULL;
	uint32_t caplen = 0;
	uint64_t ts = 0, k = 0, bytes = 0;
	pcap_t *p;

	p = pcap_open_offline_with_tstamp_precision(path,
		PCAP_TSTAMP_PRECISION_NANO, err);
	assert_non_null(p);
	lr_pcapmap_rewind(m);
	while (pcap_next_ex(p, &h, &pd) == 1) {
		assert_true(lr_pcapmap_next(m, &d, &caplen, &ts));
		assert_int_equal(caplen, h->caplen);
		assert_memory_equal(d, pd, caplen);
		assert_int_equal(ts, (uint64_t)(uint32_t)h->ts.tv_sec * 1000000000ull +
				 (uint64_t)h->ts.tv_usec);
		assert_true(d >= m->map && d + caplen <= m->map + m->size);
		bytes += caplen;
		k++;
	}
	pcap_close(p);
	if (whole) {
		assert_false(lr_pcapmap_next(m, &d, &caplen, &ts));
		assert_int_equal(m->frames, k);
		assert_int_equal(m->bytes, bytes);
	}
	return k;
}

static void
test_same_as_libpcap(void **state)
{
	struct lr_pcapmap m;
	int prec;

	(void)state;
	for (prec = 0; prec <= 1; prec++) {
		write_file(3000, prec);
		assert_int_equal(lr_pcapmap_open(&m, path, "test"), 0);
		assert_int_equal(m.nsec, prec == PCAP_TSTAMP_PRECISION_NANO);
		assert_int_equal(m.frames, 3000);
		assert_int_equal(m.cut_bytes, 0);
		assert_int_equal(m.max_caplen, 1514);
		assert_int_equal(same_as_libpcap(&m, true), 3000);
		lr_pcapmap_close(&m);
	}
}

/* The other byte order: every field of the file header and of each
 * record header swapped. */
static void
test_swapped(void **state)
{
	struct lr_pcapmap m;
	size_t len, off;
	uint8_t *b;
	uint32_t v, caplen;
	unsigned int i;

	(void)state;
	write_file(500, PCAP_TSTAMP_PRECISION_MICRO);
	b = slurp(&len);
	for (i = 0; i < 24; i += 4) {
		if (i == 4) {	/* two 16-bit versions */
			uint16_t s[2];

			memcpy(s, b + 4, 4);
			s[0] = rte_bswap16(s[0]);
			s[1] = rte_bswap16(s[1]);
			memcpy(b + 4, s, 4);
			continue;
		}
		memcpy(&v, b + i, 4);
		v = rte_bswap32(v);
		memcpy(b + i, &v, 4);
	}
	for (off = 24; off < len; off += 16 + caplen) {
		memcpy(&caplen, b + off + 8, 4);
		for (i = 0; i < 16; i += 4) {
			memcpy(&v, b + off + i, 4);
			v = rte_bswap32(v);
			memcpy(b + off + i, &v, 4);
		}
	}
	spill(b, len);
	free(b);
	assert_int_equal(lr_pcapmap_open(&m, path, "test"), 0);
	assert_true(m.swap);
	assert_int_equal(same_as_libpcap(&m, true), 500);
	lr_pcapmap_close(&m);
}

static void
expect_refused(const char *msg)
{
	struct lr_pcapmap m;

	assert_int_not_equal(lr_pcapmap_open(&m, path, "test"), 0);
	if (strstr(lr_errmsg(), msg) == NULL || strchr(lr_errmsg(), '\n'))
		fail_msg("'%s', not '%s'", lr_errmsg(), msg);
	assert_null(m.map);
	lr_pcapmap_close(&m);	/* nothing to free, twice is fine */
}

static void
test_bad_files(void **state)
{
	static const uint8_t ng[28] = { 0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0, 0, 0,
					0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0 };
	struct lr_pcapmap m;
	size_t len;
	uint8_t *b;
	uint32_t v;

	(void)state;
	unlink(path);
	expect_refused("No such file");
	write_file(10, PCAP_TSTAMP_PRECISION_MICRO);
	b = slurp(&len);
	spill(b, 23);
	expect_refused("shorter than a pcap file header");
	spill(ng, sizeof(ng));
	expect_refused("pcapng, not pcap");
	memcpy(&v, b + 20, 4);
	v = 101;	/* LINKTYPE_RAW */
	memcpy(b + 20, &v, 4);
	spill(b, len);
	expect_refused("link type 101, not Ethernet");
	v = 1;
	memcpy(b + 20, &v, 4);
	/* the 3rd record's length beyond any snap length */
	v = LR_PCAPMAP_MAX_CAPLEN + 1;
	memcpy(b + 24 + 16 + 14 + 16 + 111 + 8, &v, 4);
	spill(b, len);
	expect_refused("record 3 at byte");
	/* the header alone: a file of no frames */
	spill(b, 24);
	assert_int_equal(lr_pcapmap_open(&m, path, "test"), 0);
	assert_int_equal(m.frames, 0);
	assert_int_equal(same_as_libpcap(&m, true), 0);
	lr_pcapmap_close(&m);
	free(b);
	/* a cut last record: counted, the frames before it as libpcap's */
	len = write_file(10, PCAP_TSTAMP_PRECISION_MICRO);
	b = slurp(&len);
	spill(b, len - 5);
	assert_int_equal(lr_pcapmap_open(&m, path, "test"), 0);
	assert_int_equal(m.frames, 9);
	assert_true(m.cut_bytes > 0 && m.cut_bytes < 16 + 1514);
	assert_int_equal(same_as_libpcap(&m, true), 9);
	lr_pcapmap_close(&m);
	free(b);
}

/* Files cut anywhere and record lengths set at random: the loader refuses
 * the file or hands out frames inside it; when libpcap reads it whole
 * (its lengths within the snap length) the same frames. */
static void
test_random_damage(void **state)
{
	struct lr_pcapmap m;
	const uint8_t *d;
	uint32_t caplen, v;
	uint64_t ts, k;
	size_t len, cut;
	uint8_t *b, *c;
	unsigned int i, j, compared = 0;

	(void)state;
	srand(27);
	len = write_file(200, PCAP_TSTAMP_PRECISION_NANO);
	b = slurp(&len);
	c = malloc(len);
	assert_non_null(c);
	for (i = 0; i < 400; i++) {
		memcpy(c, b, len);
		cut = 24 + (size_t)rand() % (len - 23);
		for (j = 0; j < (unsigned int)(i % 4); j++) {
			size_t at = 24 + (size_t)rand() % (len - 40);
			static const uint32_t lens[] = { 0, 1, 13, 65535, 65536,
				LR_PCAPMAP_MAX_CAPLEN, LR_PCAPMAP_MAX_CAPLEN + 1,
				0xffffffffu };

			v = lens[rand() % 8];
			memcpy(c + at, &v, 4);
		}
		spill(c, cut);
		if (lr_pcapmap_open(&m, path, "test") != 0) {
			assert_null(m.map);
			continue;
		}
		for (k = 0; lr_pcapmap_next(&m, &d, &caplen, &ts); k++)
			assert_true(d >= m.map + 40 && d + caplen <= m.map + m.size);
		assert_int_equal(k, m.frames);
		/* libpcap truncates a record longer than the snap length
		 * (65535 here) where the loader takes it whole. */
		if (m.max_caplen <= 65535) {
			assert_int_equal(same_as_libpcap(&m, true), m.frames);
			compared++;
		}
		lr_pcapmap_close(&m);
	}
	free(b);
	free(c);
	assert_true(compared > 100);	/* the comparison ran */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_libpcap),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_random_damage),
	};
	int ret;

	snprintf(path, sizeof(path), "/tmp/lr_ut_pcapmap_%d.pcap", (int)getpid());
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return ret;
}
