-- probe-bench.lua: Table I of the CESNET paper: frame sizes x flow counts,
-- the probe's packet rate on one worker lcore. The one measurement of it:
-- tools/bench/probe-grid.sh drives this script with mode=pcap.
--
--   linerate --no-pci --no-huge -m 2048 -l 0-1 -- tools/bench/probe-bench.lua [key=value ...]
--
--   sizes=64,128,256,512  flows=128,16384,131072  seconds=3  mode=wire|ports|pcap
--   count=N  gen's frames per point instead of seconds (the same work in
--            every run: for callgrind, doc/performance.md)
--
-- The source:
--   wire, ports  gen feeds the probe as fast as it can, on the virtual wire
--                (both on the one worker lcore a 2-core machine has) or on
--                real ports (tx=PORT rx=PORT)
--   pcap         a capture replayed from memory: rx=DEVARGS (net_pcap0,
--                rx_pcap=FILE,infinite_rx=1), mbufs=N for its pool; no gen.
--                One point, the capture's: sizes= and flows= name it.
--
-- Per point: the probe's packets per second while sharing the lcore with its
-- source, its drops (ring full; gen's local drops), its cycles per packet
-- (parse, cache, free: bursts it handled, the PMD's rx not counted) and so
-- the rate one lcore of probe alone would take, tsc_hz / cycles per packet;
-- last, cyc/pkt against the size's first flow count, measured in the run
-- (issue 27's 131072 / 16384: flows=16384,131072).
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, testbed.with{
	{ "mode", "wire", "choice", "the source: wire, ports (tx=, rx=) or pcap (rx=)",
	  choices = { "wire", "ports", "pcap" } },
	{ "sizes", "64,128,256,512", "sizes", "frame sizes", min = 64, max = 9018 },
	{ "flows", "128,16384,131072", "sizes", "flow counts", min = 1, max = 16777216 },
	{ "seconds", 3, "num", "per point", above = 0 },
	{ "mbufs", nil, "int", "mode=pcap: the capture port's pool", min = 1024 },
	{ "count", nil, "int", "gen's frames per point instead of seconds: the same work in every run (callgrind)", min = 1 },
}, "the probe's packet rate, frame sizes x flow counts")
-- One point with gen as the source: the probe's rate over gen's time.
local function point_gen(tb, size, flows, probe)
	local gen = assert(linerate.task{ role = "gen", port = tb.tx, size = size,
	                                  flows = flows, order = "shuffle",
	                                  src_ip = "10.0.0.1-10.0.0.4",
	                                  count = opt.count,
	                                  duration = not opt.count and opt.seconds or nil })
	linerate.start()
	assert(gen:wait(opt.count and 86400 or opt.seconds + 30))
	testbed.drain(probe, gen:stats().tx_packets)
	linerate.stop()
	local g = gen:stats()
	return g.duration_s, g.local_drops
end

-- One point on a replayed capture: the probe's rate over its own time.
local function point_pcap(probe)
	linerate.start()
	assert(probe:wait(opt.seconds + 30))
	linerate.stop()
	return probe:stats().duration_s, 0
end

-- The capture's port, closed with the script as a testbed is.
local function pcap_source()
	assert(opt.rx, "mode=pcap needs rx=DEVARGS (a net_pcap port replaying a capture)")
	local port = assert(linerate.port(tostring(opt.rx), { mbufs = opt.mbufs }))
	return setmetatable({ rx_port = port }, { __close = function() end })
end

linerate.live(false)
local tb <close> = opt.mode == "pcap" and pcap_source() or testbed.open(opt)
print(("%6s %8s %10s %10s %8s %10s %14s %10s"):format("size", "flows", "shared Mpps",
      "drops", "cyc/pkt", "alone Mpps", "flows made", "cyc/first"))
for _, size in ipairs(opt.sizes) do
	local first	-- cyc/pkt of the size's first flow count: the ratio's base
	for _, flows in ipairs(opt.flows) do
		local probe = assert(linerate.task{ role = "probe", port = tb.rx_port,
		                                    entries = math.max(65536, 2 * flows),
		                                    export = "none",
		                                    duration = opt.mode == "pcap" and
		                                               opt.seconds or nil })
		local secs, drops
		if opt.mode == "pcap" then
			secs, drops = point_pcap(probe)
		else
			secs, drops = point_gen(tb, size, flows, probe)
		end
		local p = probe:stats()
		first = first or p.cycles_per_packet
		print(("%6d %8d %10.2f %10d %8.0f %10.2f %14d %10.2f"):format(size, flows,
		      p.rx_packets / secs / 1e6, p.export_ring_full + drops,
		      p.cycles_per_packet, p.mpps_per_lcore, p.flows_created,
		      first > 0 and p.cycles_per_packet / first or 0))
	end
end
