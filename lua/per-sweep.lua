-- per-sweep.lua: the ESS paper's experiment (Table 1 and Table 3): UDP user
-- data sizes from 18 to 8972 B at a given rate, packet error ratio per size.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/per-sweep.lua [key=value ...]
--
-- `help` lists the arguments (those of testbed.lua too: mode=, speed=).
--
-- A size whose gen fell short of its rate or stopped (testbed.invalid) is
-- printed as INVALID and left out of the worst PER; the run then ends with
-- an INVALID line and exit 3. Counts a link cannot make (more received than
-- sent, duplicates) are an error: exit 1.
--
-- Columns: the paper's Table 1 (frame size, overhead, theoretical frame
-- rate and user data rate) for each size, what was achieved, and Table 3:
-- PER measured here next to the paper's (BSD sockets, optimised buffers).
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, testbed.with{
	{ "rate", "100%", "any", "gen's rate: 100% of speed=, 5Mpps, 9Gbps, pps", min = 0 },
	{ "seconds", 2, "num", "per size (unless count= or bytes=)", above = 0 },
	{ "count", nil, "int", "packets per size, instead of seconds=", min = 1 },
	{ "bytes", nil, "any", "bytes per size, instead of seconds= (400G)" },
	{ "sizes", "18,64,128,256,472,772,1000,1472,1700,1800,1900,2000,2200,2972," ..
	  "4472,5972,8972", "sizes", "UDP user data sizes (the paper's 17)", min = 1, max = 8972 },
	{ "flows", 1, "int", "flows per size", min = 1, max = 65536 },
	{ "json", nil, "out", "the rows as JSON lines, one per size" },
	{ "tolerance", nil, "num", "gen's --rate-tolerance in % (99.9): a size " ..
	  "offered below it is INVALID", above = 1, max = 100 },
	{ "catch_up", nil, "num", "gen's catch-up after a stall, us (20000 makes " ..
	  "a shared CPU's ms stalls up in bursts)", min = 0 },
}, "the ESS paper's PER by UDP data size")
-- Table 3 of the paper: PER by user data size.
local paper = { [64] = 4.0e-1, [128] = 4.0e-1, [256] = 4.1e-1, [472] = 3.9e-1,
                [772] = 3.8e-1, [1000] = 3.8e-1, [1472] = 2.0e-1, [1700] = 7.1e-2,
                [1800] = 3.2e-3, [1900] = 6.1e-6, [2000] = 1.3e-6, [2200] = 0,
                [2972] = 0, [4472] = 0, [5972] = 0, [8972] = 0 }
local sizes = opt.sizes
local speed = opt.speed

linerate.live(false)
local tb <close> = testbed.open(opt)
local out = opt.json and assert(io.open(opt.json, "w"))
print(("per-sweep: mode %s, rate %s of a %s link, %s per size, %d flow(s)")
      :format(opt.mode, opt.rate, ("%gG"):format(opt.speed / 1e9),
              opt.count and (opt.count .. " packets") or opt.bytes and (opt.bytes .. " B")
              or (opt.seconds .. " s"), opt.flows))
print(("%6s %6s %6s | %8s %8s | %7s %7s | %12s %12s %10s %9s | %8s | %8s %8s")
      :format("data", "frame", "ovh%", "theo", "got", "theo", "got", "sent",
              "received", "lost", "PER", "paper", "p50 us", "p99 us"))
print(("%6s %6s %6s | %8s %8s | %7s %7s |"):format("B", "B", "", "Mpps", "Mpps",
                                                   "Gb/s", "Gb/s"))
local worst, shorts, faults = 0, {}, {}
-- JSON rows: none is linerate.null (nil would leave the key out), and
-- says why.
local null = linerate.null
local function nul(v)
	if v == nil then return null end
	return v
end
local function why(v, reason)
	if v == nil then return reason end
	return null
end
for step, data in ipairs(sizes) do
	local frame = linerate.frame_size(data)
	local theo_pps = linerate.line_rate(speed, frame)
	local base = (step - 1) * opt.flows	-- each size its own flow ids
	local rx = tb:rx{ flows = opt.flows, ["flow-base"] = base }
	local g = { role = "gen", port = tb.tx, ["data-size"] = data, rate = opt.rate,
	            flows = opt.flows, ["flow-base"] = base,
	            ["src-port"] = "1024-" .. (1023 + opt.flows) }
	-- A percentage, as gen's option (above 1: 0.999 would accept a run
	-- that offered 1 % of its rate).
	if opt.tolerance then g["rate-tolerance"] = opt.tolerance end
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
	local per = s.tx_packets > 0 and lost / s.tx_packets or nil
	-- Shortfall: a gen that did not send at its rate measured the
	-- machine, not the link; impossible counts (more received than sent,
	-- duplicates on a point-to-point link) measured a fault. Either row
	-- stands apart from the worst PER.
	local short = testbed.invalid(s) or (not per and "gen sent nothing")
	local bad = testbed.impossible(s.tx_packets, r)
	if short then shorts[#shorts + 1] = ("%d B: %s"):format(data, short) end
	if bad then faults[#faults + 1] = ("%d B: %s"):format(data, bad) end
	if not (short or bad) then
		worst = math.max(worst, per)
	end
	local lat = r.latency or {}
	local p50_us = lat.p50_ns and lat.p50_ns / 1e3	-- nil: none
	local p99_us = lat.p99_ns and lat.p99_ns / 1e3
	local overhead = linerate.overhead(data, frame)	-- fraction, as Lua's
	local theo_gbps = theo_pps * data * 8 / 1e9
	local gbps = s.tx_mpps * 1e6 * data * 8 / 1e9
	print(("%6d %6d %6.1f | %8.3f %8.3f | %7.3f %7.3f | %12d %12d %10d %9s | %8s | %8s %8s")
	      :format(data, frame, overhead * 100, theo_pps / 1e6, s.tx_mpps, theo_gbps,
	              gbps, s.tx_packets, r.received, lost, testbed.num(per, "%.2e"),
	              paper[data] and ("%.1e"):format(paper[data]) or "-",
	              testbed.num(p50_us, "%.1f"), testbed.num(p99_us, "%.1f")))
	if short then print(("%6d INVALID: %s"):format(data, short)) end
	if bad then print(("%6d INVALID: %s"):format(data, bad)) end
	if out then
		-- One JSON line (linerate.json: jansson's escapes, not Lua's
		-- %q), every key in every row: a value that is none is null,
		-- with its *_why, never a key left out.
		local offered_why
		if s.offered == nil then
			offered_why = "gen was not paced (rate=max)"
		elseif s.offered ~= s.offered then
			offered_why = "gen's offered is not a number"
		end
		local row = {
			data = data, frame = frame, overhead = overhead,
			theo_mpps = theo_pps / 1e6, mpps = s.tx_mpps,
			theo_gbps = theo_gbps, gbps = gbps,
			sent = s.tx_packets, received = r.received, lost = lost,
			per = nul(per), per_why = why(per, "gen sent nothing"),
			seq_lost = nul(r.lost), dup = nul(r.dup),
			out_of_order = nul(r.out_of_order),
			paper_per = nul(paper[data]),
			paper_per_why = why(paper[data], ("the paper's Table 3 has no " ..
			                                  "%d B row"):format(data)),
			p50_us = nul(p50_us), p99_us = nul(p99_us),
			latency_why = why(p50_us, r.latency_none or
			                  "rx reported no latency (latency=0?)"),
			offered = offered_why and null or s.offered,
			offered_why = nul(offered_why),
			short = nul(short or nil),	-- why it is INVALID
			invalid = nul(bad),		-- impossible counts
		}
		out:write(assert(linerate.json(row)), "\n")
	end
end
tb:close()
if out then out:close() end
local valid = #sizes - #shorts - #faults
print(("per-sweep: worst PER %s over %d valid sizes%s"):format(
	valid > 0 and ("%.3g"):format(worst) or "none", valid,
	(#shorts + #faults > 0) and ("; %d INVALID (rate short, gen stopped or " ..
	"impossible counts)"):format(#shorts + #faults) or ""))
-- Counts a link cannot make are a fault of the testbed or the tool: an
-- error. A size the generator fell short on is the tester's limit: exit 3.
if #faults > 0 then
	error(("per-sweep: impossible counts: %s"):format(table.concat(faults, "; ")), 0)
end
testbed.finish(shorts)
