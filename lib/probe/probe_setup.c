/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe role's conf and options, the setup and free of a task (its
 * flow cache, its ring to the exporter, its input: a queue, a capture or a
 * distributor's channel), its plan, and the role.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "lr_clock.h"
#include "lr_common.h"
#include "lr_flowcache.h"
#include "lr_opt.h"
#include "lr_pcapmap.h"
#include "lr_port.h"
#include "probe_internal.h"

RTE_LOG_REGISTER(lr_probe_logtype, user.lr.probe, INFO);

void
lr_probe_conf_init(struct lr_probe_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->entries = LR_FC_ENTRIES_DEFAULT;
	c->active_s = LR_FC_ACTIVE_S_DEFAULT;
	c->inactive_s = LR_FC_INACTIVE_S_DEFAULT;
	c->ring = 16384;
	c->ndpi_flows = LR_NDPI_FLOWS_DEFAULT;
	c->channel = -1;
	c->dist_task = -1;
	lr_exporter_conf_init(&c->export);
}

static void
probe_conf_init(void *conf)
{
	lr_probe_conf_init(conf);
}

/* count, trim and ingress are the distributor's options too: the plan's
 * distributor takes them as well (lr_role_conf_set()). */
static int
opt_count(void *conf, const char *key, const char *val)
{
	struct lr_probe_conf *c = conf;

	if (lr_parse_u64(val, &c->count) != 0)
		return lr_err(EINVAL, "probe: %s '%s': want packets", key, val);
	return 0;
}

static int
opt_ingress(void *conf, const char *key, const char *val)
{
	struct lr_probe_conf *c = conf;
	uint16_t trim = 0;
	int ret = lr_ingress_set(key, val, &c->ingress, &trim);

	if (ret != 0)
		return ret;
	c->trim = c->ingress == LR_INGRESS_TRIM ? trim : 0;
	return 0;
}

static int
opt_flow_ext(void *conf, const char *key, const char *val)
{
	struct lr_probe_conf *c = conf;

	RTE_SET_USED(key);
	if (lr_probe_ext_parse(val, &c->flow_ext) != 0)
		return -EINVAL;
	/* The exporter sends the applications' templates, every record the
	 * flow-wide extensions' fields. */
	c->export.ipfix.apps = c->flow_ext & LR_EXT_APPS;
	c->export.ipfix.xtra = (uint8_t)(c->flow_ext >> LR_EXT_XTRA_SHIFT);
	return 0;
}

#define PRC(field) LR_OPT_FIELD(struct lr_probe_conf, field)

/* The probe's options, then the export's; its companion's (the
 * distributor's) follow them in --help and usage.md. */
static const struct lr_opt probe_opts[] = {
	{ "entries", LR_OPT_UINT, PRC(entries), 8, 1u << 30, NULL, "N",
	  "flow cache capacity per rx queue, rounded up to 8 × 2^k; 88 B per "
	  "entry (112 B with biflow), so 1M flows take 88 MB on the port's "
	  "socket (" RTE_STR(LR_FC_ENTRIES_DEFAULT) ")", "`--entries 65536`",
	  NULL },
	{ "active", LR_OPT_UINT, PRC(active_s), 1, 86400, NULL, "S",
	  "active timeout: a flow older than this is exported and starts again "
	  "(" RTE_STR(LR_FC_ACTIVE_S_DEFAULT) ")", "`--active 60`", NULL },
	{ "inactive", LR_OPT_UINT, PRC(inactive_s), 1, 86400, NULL, "S",
	  "inactive timeout: a flow idle this long is exported ("
	  RTE_STR(LR_FC_INACTIVE_S_DEFAULT) ")",
	  "`--inactive 10`", NULL },
	{ "ring", LR_OPT_UINT, PRC(ring), 64, 1u << 24, NULL, "N",
	  "records in each queue's ring to the exporter; a full ring is "
	  "counted, never waits (16384)", "`--ring 65536`", NULL },
	{ "count", LR_OPT_FUNC, 0, 0, 0, 0, opt_count, "N",
	  "stop after exactly N packets, 0: no limit (0); what the last burst "
	  "held past N is freed unread and counted in `past_count_packets`",
	  "`--count 1000000`", NULL },
	{ "trim", LR_OPT_FUNC, 0, 0, 0, 0, opt_ingress, "B",
	  "parse only the first B bytes of each frame (64..9018), as a trimming "
	  "NIC delivers them; lengths are checked against, and bytes counted "
	  "from, the whole frame; a header cut by the trim counts as `trunc_l4` "
	  "(0: off)", "`--trim 64`", NULL },
	{ "ingress", LR_OPT_FUNC, 0, 0, 0, 0, opt_ingress, "MODE",
	  "what the flow cache takes in: `full` packets, `trim=B` (as `--trim "
	  "B`), or `uh`: Unified Header records from a distributor, no packet "
	  "bytes (needs `--channels`) (full)", "`--ingress uh`", NULL },
	{ "pcap", LR_OPT_STRING(struct lr_probe_conf, pcap, 1, NULL), "FILE",
	  "read the Ethernet frames of a pcap file (us or ns stamps; not pcapng) "
	  "instead of the port's queue, as `softflowd -r` and ipfixprobe's "
	  "`-i pcap;file=F` do: loaded into memory whole in one pass and parsed "
	  "where it lies, at the capture's own times (ns kept); one task on the "
	  "port's queue 0, which is not read; the run ends at its last frame "
	  "(none: the port's queue)", "`--port net_null0 --pcap trace.pcap`",
	  NULL },
	{ "flow-ext", LR_OPT_FUNC, 0, 0, 0, 0, opt_flow_ext, "LIST",
	  "flow extensions: read each TCP and UDP flow's first payloads for its "
	  "application and export its fields with it: `tls` (a ClientHello's "
	  "server name, ALPN, versions, JA3; the ServerHello's version and "
	  "ALPN), `quic` (the server name, version and ALPN of a v1 or v2 "
	  "client's Initials, the hello put together over several), `dns` (on "
	  "port 53: the question, the answer's first record, rcode, EDNS0), "
	  "`http` (HTTP/1.x: method, host, target, user agent, referer, "
	  "status, content type); with every TCP and UDP flow, whatever its "
	  "application: `basicplus` (TTL, IP flags, TCP window, options and "
	  "MSS of each direction's first packet, a SYN's size), `pstats` (the "
	  "first 30 payload packets' lengths, times, TCP flags and directions, "
	  "as basicLists), `app` (the application nDPI names: applicationId, "
	  "applicationName); comma separated; memory per flow: the largest "
	  "application's fields and the others', said in the result (none)",
	  "`--flow-ext tls,quic,dns,http`", NULL },
	{ "ndpi-flows", LR_OPT_UINT, PRC(ndpi_flows), 1, 65535, NULL, "N",
	  "with `--flow-ext app`: nDPI flow states lent per task to the flows "
	  "being named, about 700 B each; a flow that finds none is not named "
	  "and is counted in `labels.pool_full` (" RTE_STR(LR_NDPI_FLOWS_DEFAULT)
	  ")", "`--ndpi-flows 65535`", NULL },
	{ "channel", LR_OPT_UINT, PRC(channel), 0, LR_DIST_CHANNELS_MAX - 1, NULL,
	  "I", "(scripts) read channel I of a dist task instead of a queue: the "
	  "one `dist = TASK` names (a task object or its id), else the port's "
	  "dist task made last", "`channel = 0`", NULL },
	{ "dist", LR_OPT_UINT, PRC(dist_task), 0, LR_TASK_MAX - 1, NULL, "ID",
	  "(scripts) with `channel`: the dist task to read, by id", "`dist = d`",
	  NULL },
	LR_OPT_INCLUDE_ROW(struct lr_probe_conf, export, lr_exporter_opts),
	{ 0 },
};

static void
probe_free(struct lr_task *t)
{
	struct probe *p = t->priv;

	if (p == NULL)
		return;
	lr_fc_free(p->fc);
	lr_probe_ext_free(p->ext);
	lr_pcapmap_close(&p->pcap);
	lr_exporter_ring_free(p->ring);
	rte_free(p);
	t->priv = NULL;
	lr_exporter_close();
}

static int
probe_init(struct lr_task *t, const void *arg)
{
	const struct lr_probe_conf *c = arg;
	struct lr_dist_channel ch;
	struct lr_fc_conf fcc;
	struct probe *p;
	int ret;

	if (c->dist_task >= 0 && c->channel < 0)
		return lr_err(EINVAL, "probe: dist %d names whose channel to "
			      "read: give channel=I too", c->dist_task);
	if (c->channel >= 0 && c->pcap[0] != '\0')
		return lr_err(EINVAL, "probe: pcap %s and channel %d: read a file "
			      "or a distributor's channel, not both", c->pcap,
			      c->channel);
	if (c->channel >= 0) {
		/* Its distributor: the one named, else the port's. */
		const struct lr_task *d = c->dist_task < 0 ?
			lr_dist_last(t->port) :
			lr_engine_task((unsigned int)c->dist_task);

		if (c->dist_task >= 0 &&
		    (d == NULL || d->role != &lr_dist_role || d->port != t->port))
			return lr_err(EINVAL, "probe: dist %d: not a dist task on "
				      "port %u", c->dist_task, t->port);
		if (lr_dist_channel(d, (unsigned int)c->channel, &ch) != 0)
			return lr_err(ENOENT, "probe: channel %d: no dist task with "
				      "that many channels on port %u (make it first)",
				      c->channel, t->port);
		if (c->ingress != LR_INGRESS_FULL && c->ingress != ch.ingress)
			return lr_err(EINVAL, "probe: ingress %s, but the channel's "
				      "distributor hands on %s",
				      lr_ingress_names[c->ingress],
				      lr_ingress_names[ch.ingress]);
	} else if (c->pcap[0] != '\0' && c->ingress == LR_INGRESS_UH) {
		return lr_err(EINVAL, "probe: ingress=uh takes records from a "
			      "distributor, --pcap reads a file: not both");
	} else if (c->ingress == LR_INGRESS_UH) {
		return lr_err(EINVAL, "probe: ingress=uh takes Unified Header "
			      "records from a distributor channel: give channels=N "
			      "(CLI) or channel=I after a dist task");
	} else if (t->queue == LR_QUEUE_NONE) {
		return lr_err(EINVAL, "probe: no queue and no channel to read");
	}

	ret = lr_exporter_open(&c->export);
	if (ret != 0)
		return ret;
	p = rte_zmalloc_socket("lr_probe", sizeof(*p), RTE_CACHE_LINE_SIZE,
			       t->socket);
	if (p == NULL) {
		lr_exporter_close();
		return lr_err(ENOMEM, "probe: no memory on socket %d", t->socket);
	}
	/* From here probe_free() undoes it all, the exporter's user too. */
	t->priv = p;
	p->ring = lr_exporter_ring(c->ring, t->socket);
	if (p->ring == NULL) {
		ret = -rte_errno;
		probe_free(t);
		return ret;
	}
	lr_fc_conf_init(&fcc);
	fcc.entries = c->entries;
	fcc.active_s = c->active_s;
	fcc.inactive_s = c->inactive_s;
	fcc.socket = t->socket;
	fcc.export = lr_probe_to_exporter;
	fcc.biflow = c->export.ipfix.biflow;
	p->biflow = c->export.ipfix.biflow;
	fcc.arg = p;
	p->fc = lr_fc_create(&fcc);
	if (p->fc == NULL) {
		ret = -rte_errno;
		probe_free(t);
		return ret;
	}
	if (c->flow_ext != 0) {
		p->ext = lr_probe_ext_new(c->flow_ext, c->ndpi_flows, p->biflow,
					  lr_fc_capacity(p->fc), t->socket);
		if (p->ext == NULL) {
			probe_free(t);
			return -ENOMEM;
		}
		lr_fc_set_ext(p->fc, lr_probe_ext_packet, lr_probe_ext_end, p->ext);
	}
	lr_clock_init(&p->clk);
	p->expire_step = rte_get_tsc_hz() * EXPIRE_EVERY_US / 1000000;
	p->remaining = c->count ? c->count : UINT64_MAX;
	p->trim = c->trim ? c->trim : UINT32_MAX;
	p->input = t->capture ? lr_probe_input_port_trace :
		   lr_probe_input_port;
	if (c->channel >= 0) {
		/* The distributor stamped every packet (Unix ns) and counts
		 * the packets: this task reads until it is done. */
		p->in = ch.ring;
		p->dist = ch.dist;
		p->remaining = UINT64_MAX;
		p->input = ch.ingress == LR_INGRESS_UH ? lr_probe_input_uh :
			   lr_probe_input_channel;
		p->trim = ch.ingress == LR_INGRESS_TRIM ? ch.trim : UINT32_MAX;
		p->rx = ch.rx;
		p->dist_clock = ch.clock;
	} else if (c->pcap[0] != '\0') {
		ret = lr_pcapmap_open(&p->pcap, c->pcap, "probe");
		if (ret != 0) {
			probe_free(t);	/* the loader's message stands */
			return ret;
		}
		/* Every frame at its own capture time, Unix ns: the expiry
		 * walk follows the trace (probe.c), as for net_pcap's. */
		memset(&p->rx, 0, sizeof(p->rx));
		p->rx.trace = true;
		p->input = lr_probe_input_pcap;
		if (p->pcap.cut_bytes != 0)
			rte_log(RTE_LOG_WARNING, lr_probe_logtype, "probe: pcap "
				"%s: its last record is cut short (%" PRIu64 " B "
				"after frame %" PRIu64 "): read up to it, as "
				"libpcap does (pcap_cut_bytes)\n", c->pcap,
				p->pcap.cut_bytes, p->pcap.frames);
	} else if (lr_clock_rx_init(&p->rx, t->port, t->capture != NULL,
				    &p->clk) != 0) {
		probe_free(t);
		return lr_err(ENOMEM, "probe: no rx timestamp dynfield");
	}
	return 0;
}

/* The probe's plan: shards on the port's queues, or a distributor of
 * @p with_conf and a shard on each of its channels (lr_probe.h). */
static int
probe_place(uint16_t port, const void *conf, const void *with_conf,
	   const unsigned int *lcores, unsigned int n, double duration_s)
{
	const struct lr_port_info *pi = lr_port_info(port);
	const struct lr_dist_conf *dc = with_conf;
	struct lr_probe_conf qc = *(const struct lr_probe_conf *)conf;
	unsigned int q, made = 0;
	struct lr_task *d;

	if (qc.pcap[0] != '\0') {
		/* One reader of the file: a task per queue would read it
		 * once each. */
		if (dc != NULL && dc->channels != 0)
			return lr_err(EINVAL, "probe: --pcap reads a file on one "
				      "lcore; --channels spreads a port's queue "
				      "(read the file with --port net_pcap0,"
				      "rx_pcap=%s for that)", qc.pcap);
		if (lr_task_create(&lr_probe_role, lcores[0], port, 0,
				   duration_s, &qc) == NULL)
			return -rte_errno;
		return 1;
	}
	if (dc == NULL || dc->channels == 0)
		return lr_role_plan_queues(&lr_probe_role, port, &qc, lcores, n,
					   duration_s);
	if (dc->channels > n)
		return lr_err(EINVAL, "probe: %u channels but %u worker lcore%s: "
			      "each channel needs its own (EAL -l, or --lcores "
			      "'0@0,(1-%u)@1' to share CPUs)", dc->channels, n,
			      n == 1 ? "" : "s", dc->channels);
	if (pi->nb_rxq > 1)
		return lr_err(EINVAL, "probe: channels=%u on a port with %u rx "
			      "queues: its RSS spreads flows already (give "
			      "queues=1 to use the model)", dc->channels,
			      pi->nb_rxq);
	d = lr_task_create(&lr_dist_role, lcores[0], port, 0, duration_s, dc);
	if (d == NULL)
		return -rte_errno;
	made++;
	/* The distributor counts packets and ends the run; its probes read
	 * until it is done and their channel is empty. */
	qc.count = 0;
	qc.dist_task = (int32_t)d->id;
	for (q = 0; q < dc->channels; q++, made++) {
		qc.channel = (int32_t)q;
		if (lr_task_create(&lr_probe_role, lcores[(q + 1) % n], port,
				   LR_QUEUE_NONE, 0, &qc) == NULL)
			return -rte_errno;
	}
	return (int)made;
}

/* A probe on a distributor's channel reads no queue of its port. */
static bool
probe_queueless(const void *conf)
{
	return ((const struct lr_probe_conf *)conf)->channel >= 0;
}

static const struct lr_task_kind probe_task = {
	.uses_rx = true,
	.init = probe_init,
	.poll = lr_probe_poll,
	.report = lr_probe_report,
	.free = probe_free,
	.queueless = probe_queueless,
	.counters = &lr_probe_counters,
};

static const struct lr_plan probe_plan = {
	.companion = &lr_dist_role,
	.place = probe_place,
};

static const struct lr_report probe_report_ops = {
	.results = lr_probe_results,
	.live = lr_probe_live,
	.check = lr_probe_export_check,
	.results_counters = &lr_probe_section_counters,
};

static const struct lr_lifecycle probe_life = {
	.tick = lr_probe_tick,
	.stopped = lr_probe_stopped,
};

const struct lr_role lr_probe_role = {
	.name = "probe",
	.opts = probe_opts,
	.conf_bytes = sizeof(struct lr_probe_conf),
	.conf_init = probe_conf_init,
	.task = &probe_task,
	.plan = &probe_plan,
	.report = &probe_report_ops,
	.life = &probe_life,
};
