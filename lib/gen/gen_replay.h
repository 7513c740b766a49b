/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen --pcap (replay.c): a capture's frames loaded into the task's memory
 * and sent, and the checks tests/fuzz/fuzz_replay and test_replay run
 * over its parser. Not a public header.
 */
#ifndef LR_GEN_REPLAY_H
#define LR_GEN_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "gen_internal.h"

/* --pcap (replay.c): load the capture into the task's memory, send it.
 * init: 0 or -errno (lr_errmsg says why); g->rp set. */
int lr_replay_init(struct lr_task *t, struct gen *g, double hz);
int lr_replay_poll(struct lr_task *t, struct gen *g, uint64_t now);
void lr_replay_report(const struct gen *g, json_t *o);
void lr_replay_free(struct gen *g);
/* task:set{multiplier=} (at the capture's timing) or {rate=} (under
 * --rate) on a replay: a new pacing block in *@p p for gen_set() to
 * publish. 0 or -errno (lr_errmsg: a one-line why). Control path. */
int lr_replay_set(struct lr_task *t, struct gen *g, const char *key,
		  const char *val, struct gen_pace **p);
/* The slots of the frames built and not sent (g->pend), in cycles. */
double lr_replay_pend_cost(const struct gen *g);

/* For tests/fuzz/fuzz_replay (not the fast path): where parse() found a
 * frame's headers, and what a replay would rewrite. */
struct lr_replay_frame_info {
	uint16_t l3;		/* IP header, 0: not IP */
	uint16_t l4csum;	/* UDP/TCP checksum field, 0: none to fix */
	uint16_t stamp;		/* UDP data stamped, 0: none */
	uint8_t l3type;		/* 0 none, 1 IPv4, 2 IPv6 */
	bool udp;
	bool has_key;		/* a 5-tuple (a flow to stamp) */
	bool shifted;		/* the source address was shifted */
	bool stamped;		/* linerate's header was written */
};

/* Parse frame @p d of @p len bytes as a capture's frame is, then into
 * @p out (len bytes) the frame as a replay sends it: the source shifted
 * by @p delta (when not 0 and IP), stamped when @p stamp and it has room. */
void lr_replay_check_frame(const uint8_t *d, uint32_t len, uint32_t delta,
			   bool stamp, uint8_t *out,
			   struct lr_replay_frame_info *fi);

/* The capture at @p path read as lr_replay_init() reads it (one pass;
 * flows numbered when @p stamp), frames longer than @p max_frame refused,
 * then @p each called on every frame loaded; all freed again. EAL needed
 * (the flow table). @return 0, or the error lr_replay_init() would give,
 * or -ERANGE: a frame loaded lies outside what was read (a bug). */
int lr_replay_check_file(const char *path, uint32_t max_frame, bool stamp,
			 void (*each)(const uint8_t *d, uint32_t len,
				      const struct lr_replay_frame_info *fi,
				      uint32_t flow, void *arg),
			 void *arg);

/* The same from the stream @p f (closed here; @p name for messages): a
 * capture that changes while it is read, for fuzz_replay. */
int lr_replay_check_stream(FILE *f, const char *name, uint32_t max_frame,
			   bool stamp,
			   void (*each)(const uint8_t *d, uint32_t len,
					const struct lr_replay_frame_info *fi,
					uint32_t flow, void *arg),
			   void *arg);

#endif
