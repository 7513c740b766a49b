-- fw-bench.lua: Fig. 5 of the CESNET paper on our testbed: what the probe
-- costs per packet when it takes whole packets, packets trimmed to 64 B,
-- or Unified Header records, for several frame sizes; and what the
-- distributor (the firmware model as a pipeline stage) itself can feed.
--
--   linerate --no-pci --huge-unlink -m 1800 --lcores '0@0,1@1,2@0' -- \
--            tools/bench/fw-bench.lua [key=value ...]
--
--   sizes=64,128,256,512,1518  modes=full,trim=64,uh  flows=16384
--   seconds=1  rounds=3  channels=1  backend=fast|model
--
-- On the virtual wire: gen and the dist task poll in turn on the first
-- worker lcore, the probes of the channels on the second (here an lcore on
-- the CPU of the main lcore, which sleeps), or all on one worker if there
-- is only one. Per point:
--   probe cyc/pkt, alone Mpps  a probe lcore's own cost per packet (the TSC
--                   over the bursts it handled) and tsc_hz / that;
--   B/pkt           the bytes each packet moves from the distributor to a
--                   probe: the frame, its trimmed part, or a 72 B record;
--   dist cyc/pkt, ceiling Mpps  the distributor's stamp, parse, hash and
--                   hand-over per packet (the PMD's rx not counted), and the
--                   rate one distributor lcore could feed.
-- The machine is noisy: the whole grid runs `rounds` times over and each
-- column is the median over the rounds; "vs full" is the median of the
-- probe's cost against the first mode's at the same size in the same round.
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, {
	{ "sizes", "64,128,256,512,1518", "sizes", "frame sizes", min = 64, max = 9018 },
	{ "modes", "full,trim=64,uh", "str", "the firmware's export modes" },
	{ "flows", 16384, "int", "flows", min = 1 },
	{ "seconds", 1, "num", "per point", above = 0 },
	{ "rounds", 3, "int", "rounds", min = 1 },
	{ "channels", 1, "int", "channels", min = 1 },
	{ "backend", "fast", "choice", "the firmware model's backend",
	  choices = { "fast", "model" } },
}, "the firmware model's rate")
local function list(s, pat)
	local t = {}
	for v in tostring(s):gmatch(pat) do t[#t + 1] = tonumber(v) or v end
	return t
end
linerate.live(false)
local w = linerate.workers()
local src_lcore, probe_lcore = w[1], w[2] or w[1]
local a, b = assert(linerate.wire("fw", { mtu = 9000 }))

-- One point: the pipeline for `seconds`; what it measured.
local function point(size, mode)
	local dist = assert(linerate.task{ role = "dist", port = b, lcore = src_lcore,
	                                   channels = opt.channels, ingress = mode,
	                                   backend = opt.backend })
	local probes = {}
	for i = 0, opt.channels - 1 do
		probes[#probes + 1] = assert(linerate.task{ role = "probe", port = b,
			channel = i, lcore = probe_lcore, export = "none",
			entries = math.max(65536, 2 * opt.flows) })
	end
	local gen = assert(linerate.task{ role = "gen", port = a, lcore = src_lcore,
	                                  size = size, flows = opt.flows,
	                                  order = "shuffle", src_ip = "10.0.0.1-10.0.0.4",
	                                  duration = opt.seconds })
	linerate.start()
	assert(gen:wait(opt.seconds + 30))
	local sent = gen:stats().tx_packets
	testbed.drain(dist, sent)
	linerate.stop()
	local d, g = dist:stats(), gen:stats()
	local cyc, made, drops = 0, 0, d.local_drops
	for _, p in ipairs(probes) do
		local s = p:stats()
		cyc = cyc + s.cycles_per_packet * s.parsed.ok
		made = made + s.flows_created
		drops = drops + s.export_ring_full
	end
	cyc = cyc / math.max(1, d.handed)
	assert(made == opt.flows and d.handed == sent,
	       ("%d flows of %d, %d handed of %d sent"):format(made, opt.flows, d.handed, sent))
	return { rate = d.rx_packets / g.duration_s / 1e6, cyc = cyc,
	         alone = linerate.tsc_hz() / cyc / 1e6, bpp = d.bytes_per_packet,
	         dcyc = d.cycles_per_packet, ceil = d.mpps_ceiling, drops = drops }
end

local modes = list(opt.modes, "[^,]+")
print(("%6s %7s %10s %9s %10s %7s %9s %11s %6s %8s"):format("size", "mode", "rate Mpps",
      "probe cyc", "alone Mpps", "B/pkt", "dist cyc", "ceiling Mpps", "drops",
      "vs " .. modes[1]))
local sizes, got = opt.sizes, {}
for round = 1, opt.rounds do
	for _, size in ipairs(sizes) do
		for _, mode in ipairs(modes) do
			local k = size .. " " .. mode
			got[k] = got[k] or {}
			got[k][round] = point(size, mode)
		end
	end
end
local function median(t, key)
	local v = {}
	for i, x in ipairs(t) do v[i] = x[key] end
	table.sort(v)
	return v[(#v + 1) // 2]
end
for _, size in ipairs(sizes) do
	for _, mode in ipairs(modes) do
		local r, first = got[size .. " " .. mode], got[size .. " " .. modes[1]]
		-- the probe's cost against the first mode's in the same round
		for i, x in ipairs(r) do x.vs = x.cyc / first[i].cyc end
		local cyc = median(r, "cyc")
		print(("%6d %7s %10.2f %9.0f %10.2f %7.0f %9.0f %11.2f %6d %8.2f"):format(
		      size, mode, median(r, "rate"), cyc, linerate.tsc_hz() / cyc / 1e6,
		      median(r, "bpp"), median(r, "dcyc"), median(r, "ceil"),
		      median(r, "drops"), median(r, "vs")))
	end
end
