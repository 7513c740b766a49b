-- probe-bench.lua: Table I of the CESNET paper: frame sizes x flow counts,
-- gen feeding the probe as fast as it can on the virtual wire (both on the
-- one worker lcore a 2-core machine has) or on real ports.
--
--   linerate --no-pci --no-huge -m 2048 -l 0-1 -- tools/bench/probe-bench.lua [key=value ...]
--
--   sizes=64,128,256,512  flows=128,16384,131072  seconds=3  mode=wire|ports
--
-- Per point: the probe's packets per second while sharing the lcore, its
-- drops (port imissed, ring full), its cycles per packet (parse, cache, free:
-- bursts it handled, the PMD's rx not counted) and so the rate one lcore of
-- probe alone would take, tsc_hz / cycles per packet.
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.args(arg, { mode = "wire", sizes = "64,128,256,512",
                                flows = "128,16384,131072", seconds = 3 })
local function list(s)
	local t = {}
	for v in tostring(s):gmatch("%d+") do t[#t + 1] = tonumber(v) end
	return t
end
linerate.live(false)
local tb <close> = testbed.open(opt)
print(("%6s %8s %10s %10s %8s %10s %14s"):format("size", "flows", "shared Mpps",
      "drops", "cyc/pkt", "alone Mpps", "flows made"))
for _, size in ipairs(list(opt.sizes)) do
	for _, flows in ipairs(list(opt.flows)) do
		local probe = assert(linerate.task{ role = "probe", port = tb.rx_port,
		                                    entries = math.max(65536, 2 * flows),
		                                    export = "none" })
		local gen = assert(linerate.task{ role = "gen", port = tb.tx, size = size,
		                                  flows = flows, order = "shuffle",
		                                  src_ip = "10.0.0.1-10.0.0.4",
		                                  duration = opt.seconds })
		linerate.start()
		assert(gen:wait(opt.seconds + 30))
		testbed.drain(probe, gen:stats().tx_packets)
		linerate.stop()
		local p, g = probe:stats(), gen:stats()
		print(("%6d %8d %10.2f %10d %8.0f %10.2f %14d"):format(size, flows,
		      p.rx_packets / g.duration_s / 1e6, p.export_ring_full + g.local_drops,
		      p.cycles_per_packet, p.mpps_per_lcore, p.flows_created))
	end
end
