/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "lr_common.h"
#include "lr_distributor.h"
#include "lr_flowcache.h"
#include "lr_parse.h"
#include "lr_probe.h"
#include "../lr_frame.h"
#include "../lr_test.h"

/* A distributor of @p count frames on @p port's queue 0 and two probes on
 * its channels, all on lcore @p lcore: run them to the end. Probe 0 names
 * its distributor, probe 1 takes the port's (the scripts' short form). */
static void
dist_and_two_probes(unsigned int lcore, uint16_t port, const char *count,
		    struct lr_task **d, struct lr_task *p[2])
{
	struct lr_dist_conf dc;
	struct lr_probe_conf pc;
	unsigned int i;

	lr_dist_conf_init(&dc);
	assert_int_equal(lr_role_set(&lr_dist_role, &dc, "channels", "2"), 0);
	assert_int_equal(lr_role_set(&lr_dist_role, &dc, "count", count), 0);
	*d = lr_task_create(&lr_dist_role, lcore, port, 0, 0, &dc);
	assert_non_null(*d);
	lr_probe_role.conf_init(&pc);
	assert_int_equal(lr_role_set(&lr_probe_role, &pc, "entries", "1024"), 0);
	for (i = 0; i < 2; i++) {
		char ch[4];

		snprintf(ch, sizeof(ch), "%u", i);
		assert_int_equal(lr_role_set(&lr_probe_role, &pc, "channel", ch), 0);
		if (i == 0) {
			char id[16];

			snprintf(id, sizeof(id), "%u", (*d)->id);
			assert_int_equal(lr_role_set(&lr_probe_role, &pc, "dist", id), 0);
		} else {
			pc.dist_task = -1;
		}
		p[i] = lr_task_create(&lr_probe_role, lcore, port, LR_QUEUE_NONE, 0,
				      &pc);
		assert_non_null(p[i]);
	}
	assert_true(lr_engine_start() >= 1);
	assert_int_equal(lr_task_wait(*d, 5, 0), 0);
	assert_int_equal(lr_task_wait(p[0], 5, 0), 0);
	assert_int_equal(lr_task_wait(p[1], 5, 0), 0);
	lr_engine_stop();
}

/* A virtual wire named @p name; returns the worker lcore to run on. */
static unsigned int
dist_wire(const char *name, uint16_t wire[2])
{
	unsigned int w[4];

	assert_true(lr_engine_workers(w, 4) >= 1);
	assert_int_equal(lr_test_wire(name, wire), 0);
	return w[0];
}

/* Packets probe task @p p took into its cache. */
static uint64_t
parsed_ok(const struct lr_task *p)
{
	struct lr_probe_counts c;

	lr_probe_counts(p, &c);
	return c.parsed[LR_PARSE_OK];
}

/* The distributor over the virtual wire: mbufs that carry a NIC's RSS hash
 * go to the channel that hash picks (the model's hash is skipped), the
 * others to the model's; both channel probes see every flow once. */
static void
dist_takes_the_nic_hash(void **state)
{
	struct lr_task *d, *p[2];
	json_t *rep, *per;
	json_int_t flows;
	uint16_t wire[2];
	unsigned int lcore = dist_wire("dwire", wire), i, n = 200;

	(void)state;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(lr_port_info(wire[0])->pool);
		struct f f;

		assert_non_null(m);
		eth(&f, 0x0800);
		ip4(&f, 5, 17, 0);
		udp(&f, 1000 + i % 100, 53);
		fin4(&f);
		memcpy(rte_pktmbuf_append(m, (uint16_t)f.n), f.b, f.n);
		if (i % 2 == 0) {	/* the NIC hashed these: channel 1 */
			m->hash.rss = 7;
			m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		}
		assert_int_equal(rte_eth_tx_burst(wire[0], 0, &m, 1), 1);
	}
	dist_and_two_probes(lcore, wire[1], "200", &d, p);
	rep = lr_task_report(d);
	assert_int_equal(json_integer_value(json_object_get(rep, "nic_hash")), 100);
	assert_int_equal(json_integer_value(json_object_get(rep, "handed")), 200);
	per = json_object_get(rep, "per_channel");
	/* Channel 1 has the NIC's 100 and what the model sent there. */
	assert_true(json_integer_value(json_array_get(per, 1)) >= 100);
	assert_int_equal(parsed_ok(p[0]), json_integer_value(json_array_get(per, 0)));
	assert_int_equal(parsed_ok(p[0]) + parsed_ok(p[1]), 200);
	/* Every counter the distributor defines is in its report. */
#define HAS(name, key, ...) \
	if (key != NULL) \
		assert_true(json_is_integer(json_object_get(rep, key)));
	LR_DIST_COUNTERS(HAS)
	json_decref(rep);
	/* Flow i % 100 was always or never NIC-hashed: each on one shard. */
	flows = 0;
	for (i = 0; i < 2; i++) {
		struct lr_probe_counts c;

		rep = lr_task_report(p[i]);
		flows += json_integer_value(json_object_get(rep, "flows_created"));
		/* And every counter of a probe and its flow cache in its,
		 * the probe's own with the value it counted. */
		LR_FC_COUNTERS(HAS)
		LR_PROBE_COUNTERS(HAS)
		lr_probe_counts(p[i], &c);
#define SAME(name, key, ...) \
		if (key != NULL) \
			assert_int_equal(json_integer_value(json_object_get(rep, key)), \
					 c.name);
		LR_PROBE_COUNTERS(SAME)
#undef SAME
		json_decref(rep);
	}
	assert_int_equal(flows, 100);
#undef HAS
}

/* A probe reads the distributor it names, or the port's made last; a
 * second distributor on a port waits for the first to be done. */
static void
dist_named_by_probe(void **state)
{
	struct lr_dist_channel ch;
	struct lr_dist_conf dc;
	struct lr_probe_conf pc;
	struct lr_task *d1, *d2, *p;
	uint16_t wire[2];
	unsigned int lcore = dist_wire("nwire", wire);
	char id[16];

	(void)state;
	lr_dist_conf_init(&dc);
	assert_int_equal(lr_role_set(&lr_dist_role, &dc, "channels", "2"), 0);
	d1 = lr_task_create(&lr_dist_role, lcore, wire[1], 0, 0, &dc);
	assert_non_null(d1);
	assert_ptr_equal(lr_dist_last(wire[1]), d1);
	assert_null(lr_dist_last(wire[0]));
	assert_int_equal(lr_dist_channel(d1, 1, &ch), 0);
	assert_int_equal(lr_dist_channel(d1, 2, &ch), -ENOENT);
	assert_int_equal(lr_dist_channel(NULL, 0, &ch), -EINVAL);
	/* One running distributor per port (the short form's promise). */
	assert_null(lr_task_create(&lr_dist_role, lcore, wire[1], 0, 0, &dc));
	assert_int_equal(rte_errno, EBUSY);

	lr_probe_role.conf_init(&pc);
	assert_int_equal(lr_role_set(&lr_probe_role, &pc, "entries", "1024"), 0);
	/* A distributor named, but no channel to read. */
	snprintf(id, sizeof(id), "%u", d1->id);
	assert_int_equal(lr_role_set(&lr_probe_role, &pc, "dist", id), 0);
	assert_null(lr_task_create(&lr_probe_role, lcore, wire[1], LR_QUEUE_NONE,
				   0, &pc));
	assert_int_equal(rte_errno, EINVAL);
	/* The short form: the port's distributor, d1. */
	pc.dist_task = -1;
	assert_int_equal(lr_role_set(&lr_probe_role, &pc, "channel", "1"), 0);
	p = lr_task_create(&lr_probe_role, lcore, wire[1], LR_QUEUE_NONE, 0, &pc);
	assert_non_null(p);
	/* Not a dist task, or one on another port. */
	assert_int_equal(lr_dist_channel(p, 0, &ch), -EINVAL);
	snprintf(id, sizeof(id), "%u", p->id);
	assert_int_equal(lr_role_set(&lr_probe_role, &pc, "dist", id), 0);
	assert_null(lr_task_create(&lr_probe_role, lcore, wire[1], LR_QUEUE_NONE,
				   0, &pc));
	assert_int_equal(rte_errno, EINVAL);
	snprintf(id, sizeof(id), "%u", d1->id);
	assert_int_equal(lr_role_set(&lr_probe_role, &pc, "dist", id), 0);
	assert_null(lr_task_create(&lr_probe_role, lcore, wire[0], LR_QUEUE_NONE,
				   0, &pc));
	assert_int_equal(rte_errno, EINVAL);

	/* Done, d1 gives way; a probe may still name it. */
	lr_task_stop(d1);
	d2 = lr_task_create(&lr_dist_role, lcore, wire[1], 0, 0, &dc);
	assert_non_null(d2);
	assert_ptr_equal(lr_dist_last(wire[1]), d2);
	assert_non_null(lr_task_create(&lr_probe_role, lcore, wire[1],
				       LR_QUEUE_NONE, 0, &pc));
	lr_engine_stop();
}

/* The distributor on chained frames (net_pcap chains a frame longer than
 * an mbuf): every one parsed whole and handed on, none bad_len. */
static void
dist_parses_chained_frames(void **state)
{
	struct lr_task *d, *p[2];
	json_t *rep, *mal;
	uint16_t wire[2];
	unsigned int lcore = dist_wire("cwire", wire), i, n = 100;

	(void)state;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m;
		struct f f;

		tcp_frame(&f, 2000 + i % 10);
		m = chain_of(lr_port_info(wire[0])->pool, &f, 60);
		assert_int_equal(rte_eth_tx_burst(wire[0], 0, &m, 1), 1);
	}
	dist_and_two_probes(lcore, wire[1], "100", &d, p);
	rep = lr_task_report(d);
	mal = json_object_get(rep, "malformed");
	assert_int_equal(json_integer_value(json_object_get(mal, "bad_len")), 0);
	assert_int_equal(json_integer_value(json_object_get(rep, "handed")), 100);
	json_decref(rep);
	assert_int_equal(parsed_ok(p[0]) + parsed_ok(p[1]), 100);
}

/* The probe's options and its companion's (the distributor's) as the CLI
 * and linerate.plan{} set them: a key both know goes to both; a single
 * task (no companion conf) refuses the distributor's own. */
static void
probe_companion_options(void **state)
{
	static const struct {
		const char *key, *val;
		bool with;	/* the companion's conf given */
		int ret;
	} sets[] = {
		{ "count", "7", true, 0 },
		{ "trim", "64", true, 0 },
		{ "channels", "4", true, 0 },
		{ "entries", "4096", true, 0 },
		{ "channels", "65", true, -EINVAL },
		{ "trim", "40", true, -EINVAL },
		{ "colour", "1", true, -ENOENT },
		{ "hash", "l3", false, -EINVAL },	/* the dist's own */
		{ "colour", "1", false, -ENOENT },
		{ "active", "60", false, 0 },
	};
	struct lr_probe_conf pc;
	struct lr_dist_conf dc;
	unsigned int i;

	(void)state;
	assert_ptr_equal(lr_role_companion(&lr_probe_role), &lr_dist_role);
	lr_probe_role.conf_init(&pc);
	lr_dist_role.conf_init(&dc);
	for (i = 0; i < RTE_DIM(sets); i++)
		if (lr_role_conf_set(&lr_probe_role, &pc, sets[i].with ? &dc : NULL,
				     sets[i].key, sets[i].val) != sets[i].ret)
			fail_msg("%s=%s: want %d", sets[i].key, sets[i].val,
				 sets[i].ret);
	assert_true(pc.count == 7 && dc.count == 7);
	assert_true(pc.ingress == LR_INGRESS_TRIM && pc.trim == 64);
	assert_true(dc.ingress == LR_INGRESS_TRIM && dc.trim == 64);
	assert_true(dc.channels == 4 && pc.entries == 4096 && pc.active_s == 60);
	assert_false(dc.l3);
	assert_int_equal(lr_role_conf_set(&lr_probe_role, &pc, NULL, "hash",
					  "l3"), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "hash is an option of the dist"));
	/* ingress=uh: the probe's trim goes; a role without a companion
	 * takes its own options alone. */
	assert_int_equal(lr_role_conf_set(&lr_probe_role, &pc, &dc, "ingress",
					  "uh"), 0);
	assert_true(pc.ingress == LR_INGRESS_UH && pc.trim == 0 &&
		    dc.ingress == LR_INGRESS_UH);
	assert_int_equal(lr_role_conf_set(&lr_dist_role, &dc, NULL, "hash",
					  "l3"), 0);
	assert_true(dc.l3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dist_takes_the_nic_hash),
		cmocka_unit_test(dist_named_by_probe),
		cmocka_unit_test(dist_parses_chained_frames),
		cmocka_unit_test(probe_companion_options),
	};

	/* EAL once: the wires, the engine and the tasks of every test. */
	if (lr_test_eal_init("dist") != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, lr_test_teardown);
}
