-- per-sweep.lua: the ESS paper's experiment (Table 1 and Table 3): UDP user
-- data sizes from 18 to 8972 B at a given rate, packet error ratio per size.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/per-sweep.lua [key=value ...]
--
--   mode=wire|memif|ports  where gen sends and rx receives (testbed.lua) (wire)
--   rate=100%              gen's rate: 100% of speed, 5Mpps, 9Gbps ... (100%)
--   speed=10G              the link speed the % and the theory refer to (10G)
--   seconds=2              per size; or count=N packets, or bytes=400G
--   sizes=18,64,...        user data sizes (the paper's 17)
--   flows=1                flows per size
--   json=FILE              the rows as JSON lines, one per size
--   tolerance=99.9         gen's --rate-tolerance in %: a size whose offered
--                          rate is below it is INVALID
--   catch_up=100           gen's catch-up after a stall, us (a machine whose
--                          worker CPU is shared stalls for ms: 20000 makes
--                          the time up, in bursts, instead of losing it)
--
-- A size whose gen fell short of its rate or stopped (testbed.invalid) is
-- printed as INVALID and left out of the worst PER; the script then fails.
--
-- Columns: the paper's Table 1 (frame size, overhead, theoretical frame
-- rate and user data rate) for each size, what was achieved, and Table 3:
-- PER measured here next to the paper's (BSD sockets, optimised buffers).
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.args(arg, { mode = "wire", rate = "100%", speed = "10G",
                                seconds = 2, flows = 1 },
                        { "sizes", "count", "bytes", "tolerance", "catch_up",
                          "json", table.unpack(testbed.keys) })
-- Each size's run is bounded: by seconds, or count or bytes (0 would be
-- a gen without an end).
testbed.positive(opt, opt.count and "count" or opt.bytes and "bytes" or "seconds")
testbed.positive(opt, "flows")
-- Table 3 of the paper: PER by user data size.
local paper = { [64] = 4.0e-1, [128] = 4.0e-1, [256] = 4.1e-1, [472] = 3.9e-1,
                [772] = 3.8e-1, [1000] = 3.8e-1, [1472] = 2.0e-1, [1700] = 7.1e-2,
                [1800] = 3.2e-3, [1900] = 6.1e-6, [2000] = 1.3e-6, [2200] = 0,
                [2972] = 0, [4472] = 0, [5972] = 0, [8972] = 0 }
local sizes = { 18, 64, 128, 256, 472, 772, 1000, 1472, 1700, 1800, 1900, 2000,
                2200, 2972, 4472, 5972, 8972 }
if opt.sizes then
	sizes = {}
	for s in tostring(opt.sizes):gmatch("%d+") do sizes[#sizes + 1] = tonumber(s) end
	if #sizes == 0 then testbed.usage_error("argument sizes=: give at least one data size") end
end
local speed = testbed.bps(opt.speed) or
	testbed.usage_error(("argument speed=%s: want bit/s, e.g. 10G, 10Gbps, 1e10")
	                    :format(tostring(opt.speed)))

linerate.live(false)
local tb <close> = testbed.open(opt)
local out = opt.json and assert(io.open(opt.json, "w"))
print(("per-sweep: mode %s, rate %s of a %s link, %s per size, %d flow(s)")
      :format(opt.mode, opt.rate, opt.speed,
              opt.count and (opt.count .. " packets") or opt.bytes and (opt.bytes .. " B")
              or (opt.seconds .. " s"), opt.flows))
print(("%6s %6s %6s | %8s %8s | %7s %7s | %12s %12s %10s %9s | %8s | %8s %8s")
      :format("data", "frame", "ovh%", "theo", "got", "theo", "got", "sent",
              "received", "lost", "PER", "paper", "p50 us", "p99 us"))
print(("%6s %6s %6s | %8s %8s | %7s %7s |"):format("B", "B", "", "Mpps", "Mpps",
                                                   "Gb/s", "Gb/s"))
local worst, invalid = 0, 0
for step, data in ipairs(sizes) do
	local frame = linerate.frame_size(data)
	local theo_pps = linerate.line_rate(speed, frame)
	local base = (step - 1) * opt.flows	-- each size its own flow ids
	local rx = tb:rx{ flows = opt.flows, ["flow-base"] = base }
	local g = { role = "gen", port = tb.tx, ["data-size"] = data, rate = opt.rate,
	            flows = opt.flows, ["flow-base"] = base,
	            ["src-port"] = "1024-" .. (1023 + opt.flows) }
	if opt.tolerance then
		-- A percentage, as gen's option: 0.999 would accept a run that
		-- offered 1 % of its rate.
		local t = tonumber(opt.tolerance)
		assert(t and t > 1 and t <= 100, ("per-sweep: tolerance=%s: a "
		       .. "percentage (99.9), not a fraction"):format(opt.tolerance))
		g["rate-tolerance"] = opt.tolerance
	end
	if opt.catch_up then g["catch-up"] = opt.catch_up end
	if opt.count then g.count = opt.count
	elseif opt.bytes then g.bytes = opt.bytes
	else g.duration = opt.seconds end
	local gen = assert(linerate.task(g))
	linerate.start()
	assert(gen:wait(3600))
	local r = tb:rx_done(rx, gen:stats().tx_packets)
	local s = gen:stats()
	-- Loss is what was sent and not received once; rx's sequence numbers
	-- say the same except for a tail lost after the last arrival.
	local lost = s.tx_packets - r.received
	local per = s.tx_packets > 0 and lost / s.tx_packets or 0
	-- Shortfall: a gen that did not send at its rate measured the
	-- machine, not the link; impossible counts (more received than sent,
	-- duplicates on a point-to-point link) measured a fault. Either row
	-- stands apart from the worst PER.
	local short = testbed.invalid(s)
	local bad = testbed.impossible(s.tx_packets, r)
	if short or bad then
		invalid = invalid + 1
	else
		worst = math.max(worst, per)
	end
	local lat = r.latency or {}
	local row = {
		data = data, frame = frame,
		overhead = linerate.overhead(data, frame),	-- fraction, as Lua's
		theo_mpps = theo_pps / 1e6, mpps = s.tx_mpps,
		theo_gbps = theo_pps * data * 8 / 1e9,
		gbps = s.tx_mpps * 1e6 * data * 8 / 1e9,
		sent = s.tx_packets, received = r.received, lost = lost, per = per,
		seq_lost = r.lost, dup = r.dup, out_of_order = r.out_of_order,
		paper_per = paper[data], p50_us = (lat.p50_ns or 0) / 1e3,
		p99_us = (lat.p99_ns or 0) / 1e3,
		offered = s.offered, short = short,	-- why it is INVALID, or nil
		invalid = bad,				-- impossible counts, or nil
	}
	print(("%6d %6d %6.1f | %8.3f %8.3f | %7.3f %7.3f | %12d %12d %10d %9.2e | %8s | %8.1f %8.1f")
	      :format(data, frame, row.overhead * 100, row.theo_mpps, row.mpps, row.theo_gbps,
	              row.gbps, row.sent, row.received, lost, per,
	              row.paper_per and ("%.1e"):format(row.paper_per) or "-",
	              row.p50_us, row.p99_us))
	if short then print(("%6d INVALID: %s"):format(data, short)) end
	if bad then print(("%6d INVALID: %s"):format(data, bad)) end
	if out then
		local parts = {}
		for k, v in pairs(row) do
			parts[#parts + 1] = ("%q:%s"):format(k, math.type(v) and
				(v ~= v and "null" or tostring(v)) or
				type(v) == "string" and ("%q"):format(v) or "null")
		end
		out:write("{", table.concat(parts, ","), "}\n")
	end
end
tb:close()
if out then out:close() end
if invalid > 0 then
	print(("per-sweep: worst PER %.3g over %d valid sizes; %d INVALID (rate short, "
	       .. "gen stopped or impossible counts)"):format(worst, #sizes - invalid, invalid))
	error(("per-sweep: %d of %d sizes INVALID"):format(invalid, #sizes), 0)
end
print(("per-sweep: worst PER %.3g"):format(worst))
