-- rfc2544.lua: RFC 2544's benchmarks in one command (section 26): the
-- throughput by binary search for the non-drop rate (NDR) and a partial-
-- drop rate (PDR), the latency at the NDR, the frame loss rate from 100 %
-- down, and back-to-back bursts; for each frame size, over a device under
-- test on the virtual testbed.
--
--   linerate --no-pci --no-huge -m 1024 --lcores '0@0,1@1,2@0' -- lua/rfc2544.lua \
--       dut=delay dut_netem="rate 100mbit" sizes=64,512,1518
--
-- The device under test sits between two virtual wires:
--   gen == wire == DUT == wire == rx
--   dut=wire    no device: the wire (the search then finds the generator's
--               own ceiling, with the receiver on the same lcore)
--   dut=delay   the delay role with dut_netem= (tc-netem words: a
--               "rate 100mbit" link, a "loss 0.1%", a "limit 100"): a device
--               whose capacity is known, so the search has an answer
--   dut=testpmd Debian's dpdk-testpmd over two memif ports, dut_fwd=io or
--               macswap, its forwarding lcore on CPU dut_cpu= (0)
--   dut=kernel  the Linux kernel in a network namespace over veth pairs and
--               net_af_packet, dut_mode=forward (IPv4 routing) or bridge,
--               its receive work on CPU dut_cpu= (0); needs root
--   (lua/lib/dut.lua sets testpmd and the kernel up and tears them down.
--   With them gen and rx share the first worker lcore: give that worker
--   a CPU other than dut_cpu, e.g. --lcores '0@0,1@1'.)
--
-- Learning frames first, once per frame size (warmup= s at 10 % of the
-- line rate, which the DUT sees, RFC 2544 23); each trial then runs
-- trial= seconds at its rate and the receiver drains. A trial whose
-- generator fell short of the rate it was asked (gen's verdict "short":
-- the host, not the DUT, did not offer it), or whose counts a link cannot
-- make (received > sent, a negative loss), is INVALID:
-- repeated once, and if invalid again reported so and never taken as a
-- pass (the search treats it as a failure at that rate and says so). Each
-- trial has flow ids of its own, so that what a DUT still held of an
-- earlier trial is counted apart (stale), not as this one's.
-- A DUT's queue hides an overload shorter than it: a trial of T seconds
-- passes up to (queue frames / T) above the capacity, which is why the RFC
-- asks for 60 s trials.
--
-- Arguments (key=value):
--   sizes=64,128,256,512,1024,1280,1518   frame sizes (RFC 2544 9.1); jumbo
--                     (9018) on request; ipv6=1 for RFC 5180's over IPv6
--                     (84 B for its 78: 18 B of linerate's header after UDP)
--   tests=throughput,latency,loss,b2b  which benchmarks (all)
--   max=PCT           the highest rate tried, % of the port's speed (100)
--   speed=BPS         the link speed the % refer to (10G)
--   resolution=PCT    the search stops when hi - lo < PCT % of hi (0.5)
--   steps=N           at most N trials a search (20)
--   guess=PCT         after a failed first trial, bracket what the DUT let
--                     through -/+ PCT % (5; 0: plain binary search)
--   pdr=RATIO         the partial-drop rate's loss ratio (0.001)
--   trial=S           trial seconds (1; RFC 2544 says 60, give trial=60)
--   warmup=S          learning frames' seconds (0.1)
--   latency_trials=N  trials at the NDR for the latency (3; the RFC: 20):
--                     median of their p50s, worst, the histogram and the
--                     jitter (RFC 3550's J, mean over the flows, and the
--                     mean |D|; rx's flow_latency) of the median trial
--   b2b_max=N         the longest burst tried (100000); b2b_trials=N (2)
--   flows=N           flows (1)
--   catch_up=US       gen's catch-up after a stall of the host (20000: a
--                     shared CPU's stalls are made up, as per-sweep's)
--   tolerance=PCT     gen's rate tolerance in % (its 99.9): a trial that
--                     offered less is INVALID
--   json=FILE csv=FILE
local testbed = require("testbed")
local opt = testbed.args(arg, { sizes = "64,128,256,512,1024,1280,1518",
                                tests = "throughput,latency,loss,b2b",
                                max = 100, speed = "10G", resolution = 0.5,
                                steps = 20, pdr = 0.001, trial = 1, guess = 5,
                                warmup = 0.1, latency_trials = 3,
                                b2b_max = 100000, b2b_trials = 2, flows = 1,
                                dut = "wire", catch_up = 20000 },
                        { "json", "csv", "ipv6", "tolerance", "dut_netem",
                          "dut_fwd", "dut_mode", "dut_cpu", table.unpack(testbed.keys) })
linerate.live(false)
for _, k in ipairs({ "trial", "max", "resolution", "steps", "b2b_max" }) do
	testbed.positive(opt, k)
end
for _, k in ipairs({ "warmup", "latency_trials", "b2b_trials", "guess" }) do
	testbed.positive(opt, k, true)
end

local SPEED = { G = 1e9, M = 1e6, K = 1e3 }
local speed = tonumber(tostring(opt.speed):match("^[%d%.]+"))
speed = speed and speed * (SPEED[tostring(opt.speed):match("(%a)$") or ""] or 1)
assert(speed and speed > 0, "rfc2544: speed=: want e.g. 10G")
local ipv6 = tonumber(opt.ipv6) == 1
-- RFC 5180 5's IPv6 sizes start at 78 B; with linerate's 18 B header
-- (flow, sequence, TX time) after UDP the smallest is 84 B.
if ipv6 and opt.sizes == "64,128,256,512,1024,1280,1518" then
	opt.sizes = "84,128,256,512,1024,1280,1518"
end
local want = {}
for t in opt.tests:gmatch("[^,]+") do
	assert(({ throughput = 1, latency = 1, loss = 1, b2b = 1 })[t],
	       ("rfc2544: tests=%s: want throughput, latency, loss, b2b"):format(t))
	want[t] = true
end
assert(({ wire = 1, delay = 1, testpmd = 1, kernel = 1 })[opt.dut],
       "rfc2544: dut=wire, delay (with dut_netem=), testpmd or kernel")
assert(opt.dut ~= "delay" or opt.dut_netem,
       "rfc2544: dut=delay needs dut_netem= (e.g. \"rate 100mbit\")")
-- Linux netem's own default queue (1000 frames) unless the SPEC says: the
-- delay role's default is the path's BDP, and each trial's box would hold
-- its own (tasks keep their memory until the process ends).
if opt.dut_netem and not opt.dut_netem:find("limit") then
	opt.dut_netem = opt.dut_netem .. " limit 1000"
end

assert(not (ipv6 and opt.dut == "kernel" and (opt.dut_mode or "forward") == "forward"),
       "rfc2544: the kernel DUT forwards IPv4: give dut_mode=bridge with ipv6=1")
local sizes = {}
for s in tostring(opt.sizes):gmatch("[^,]+") do
	local n = math.tointeger(tonumber(s))
	assert(n and n >= (ipv6 and 84 or 64) and n <= 9018,
	       ("rfc2544: size %s: frames of %d..9018 B"):format(s, ipv6 and 84 or 64))
	sizes[#sizes + 1] = n
end
assert(#sizes > 0, "rfc2544: sizes=: give at least one frame size")

-- The testbed: gen == wire == DUT == wire == rx, or one wire, or a DUT
-- of its own (lua/lib/dut.lua): its ports, and what gen writes for it.
local g_port, r_port, dut_a, dut_b
local ext, gen_extra = nil, {}
if opt.dut == "wire" then
	g_port, r_port = assert(linerate.wire("rfc_in"))
elseif opt.dut == "delay" then
	g_port, dut_a = assert(linerate.wire("rfc_in"))
	dut_b, r_port = assert(linerate.wire("rfc_out"))
else
	ext = require("dut").open(opt.dut, { fwd = opt.dut_fwd, mode = opt.dut_mode,
	                                     cpu = opt.dut_cpu, speed = opt.speed })
	g_port, r_port, gen_extra = ext.tx, ext.rx, ext.gen
end
-- An error ends the device too.
local ext_guard <close> = setmetatable({}, { __close = function()
	if ext then ext:close() end
end })

local history = {}
-- The generator on a worker lcore of its own when there are two (EAL
-- --lcores '0@0,1@1,2@0'); the DUT and the receiver on the other. A DUT
-- outside (testpmd, the kernel) takes a CPU: gen and rx share the first.
local w = linerate.workers()
local lc_gen, lc_rest = w[1], ext and w[1] or (w[2] or w[1])

-- Each trial's frames carry flow ids of its own (flow_base): frames of an
-- earlier trial that a DUT still held (a kernel's queues, a ring nobody
-- polled between trials) are then counted apart (unknown_flow), never as
-- this trial's received or lost.
local next_base = 0
local function new_base()
	next_base = next_base + opt.flows
	return next_base - opt.flows
end

-- A stage's DUT (when there is one) and receiver, on the second lcore;
-- with @p jitter, rx keeps each flow's latency and RFC 3550 jitter.
local function dut_and_rx(base, jitter)
	local rx = assert(linerate.task{ role = "rx", port = r_port, flow_base = base,
	                                 flows = opt.flows, lcore = lc_rest,
	                                 flow_latency = jitter and 1 or 0 })
	if opt.dut == "delay" then
		assert(linerate.task{ role = "delay", port = dut_a, peer = dut_b,
		                      netem = opt.dut_netem, lcore = lc_rest })
	end
	return rx
end

-- One trial: frames of size at pps for secs (or count frames at the line
-- rate for a burst). Returns sent, received, lost, latency (and jitter
-- when asked), short (gen fell short), impossible (why the counts cannot
-- be) and invalid (either).
local function trial(size, pps, secs, count, jitter)
	local base = new_base()
	local rx = dut_and_rx(base, jitter)
	local g = { role = "gen", port = g_port, size = size, flows = opt.flows,
	            flow_base = base, lcore = lc_gen }
	for k, v in pairs(gen_extra) do g[k] = v end
	g.catch_up = opt.catch_up
	if opt.tolerance then g.rate_tolerance = opt.tolerance end
	if ipv6 then g.src_ip, g.dst_ip = "fd00::1", "fd00::2" end
	if count then
		g.count = count			-- a burst, back to back
	else
		g.rate = ("%d"):format(math.floor(pps))	-- never above the line
		g.duration = secs
	end
	local gen = assert(linerate.task(g))
	linerate.start()
	gen:wait((secs or 0) + 60)
	rx:wait{ idle = 0.2, timeout = 30 }
	linerate.stop()
	local gs, rs = gen:stats(), rx:stats()
	-- The loss is what was sent and not received: rx's sequence gaps
	-- miss a tail lost after the last frame that arrived.
	local rec = { size = size, pps = pps, count = count, sent = gs.tx_packets,
	              received = rs.received,
	              lost = math.max(gs.tx_packets - rs.received, rs.lost or 0),
	              short = testbed.invalid(gs) ~= nil,
	              achieved_pps = gs.achieved_pps,
	              stale = rs.unknown_flow_packets, latency = rs.latency,
	              jitter = rs.jitter }
	-- Counts no device can make (more received than sent, a negative
	-- loss): a fault of the testbed or the tool, never a result. Such a
	-- trial is invalid, as a short one is. (Reordering and duplicates
	-- are a DUT's to make: netem's reorder, duplicate.)
	if rs.received > rec.sent then
		rec.impossible = ("received %d > sent %d"):format(rs.received, rec.sent)
	elseif (rs.lost or 0) < 0 then
		rec.impossible = ("lost %d < 0"):format(rs.lost)
	end
	if rec.impossible then
		io.stderr:write(("rfc2544: %d B at %.0f pps: INVALID: %s\n")
		                :format(size, pps or 0, rec.impossible))
	end
	rec.invalid = rec.short or rec.impossible ~= nil
	history[#history + 1] = rec
	return rec
end

-- A trial that counts: repeated once when it was invalid.
local function judged(size, pps, jitter)
	local t = trial(size, pps, opt.trial, nil, jitter)
	if t.invalid then t = trial(size, pps, opt.trial, nil, jitter) end
	return t
end

local function loss_ratio(t)
	local total = t.received + t.lost
	return total > 0 and t.lost / total or 1
end

-- The highest rate whose trial passes ok(t), by binary search, within
-- resolution % of it. @p known holds every trial of this frame size so
-- far (the NDR search's, for the PDR's): the highest valid pass below the
-- lowest valid failure bounds the search before any new trial (a rate
-- whose trial lost nothing passes the PDR too). Without a failure known,
-- the first trial is at the top rate; when it fails, what the DUT let
-- through is a guess of its capacity, and two trials at guess -/+ guess%
-- bracket it (TRex's optimised search, checked here rather than assumed).
-- Returns the passing trial (nil: none), new trials, invalid ones.
local function search(size, ok, known)
	local top = linerate.line_rate(speed, size) * opt.max / 100
	local lo, hi, best, failed = 0, top, nil, false
	local n, invalid = 0, 0
	for _, t in ipairs(known) do
		if not t.invalid and not ok(t) and t.pps <= hi then hi, failed = t.pps, true end
	end
	for _, t in ipairs(known) do
		-- (A pass at the top rate itself, when nothing failed, ends it.)
		if not t.invalid and ok(t) and (t.pps < hi or not failed and t.pps <= hi) and
		    t.pps >= lo then lo, best = t.pps, t end
	end
	if best and best.pps >= top then return best, 0, 0 end
	local function try(pps)
		local t = judged(size, pps)
		n = n + 1
		known[#known + 1] = t
		if t.invalid then invalid = invalid + 1 end
		if not t.invalid and ok(t) then
			lo, best = pps, t
			return true, t
		end
		hi = pps
		return false, t
	end
	if not failed then
		local pass, t = try(top)
		if pass then return best, n, invalid end
		local est = not t.invalid and t.received / opt.trial or 0
		local a, b = est * (1 - opt.guess / 100), est * (1 + opt.guess / 100)
		if opt.guess > 0 and a > lo and a < hi and n < opt.steps then
			if try(a) and b < hi and n < opt.steps then try(b) end
		end
	end
	while n < opt.steps and (hi - lo) > hi * opt.resolution / 100 do
		try((hi + lo) / 2)
	end
	return best, n, invalid
end

local result = { dut = opt.dut, dut_netem = opt.dut_netem, speed_bps = speed,
                 dut_what = ext and ext.what or nil, trial_s = opt.trial, sizes = {} }
-- Learning frames (RFC 2544 23): once per frame size, before its trials,
-- the DUT sees the flows at a tenth of the line rate (not counted).
local function learn(size)
	if opt.warmup <= 0 then return end
	local base = new_base()
	local rx = dut_and_rx(base)
	local lc = { role = "gen", port = g_port, size = size, flows = opt.flows,
		flow_base = base,
		rate = ("%.0f"):format(linerate.line_rate(speed, size) / 10),
		duration = opt.warmup, lcore = lc_gen }
	for k, v in pairs(gen_extra) do lc[k] = v end
	local lg = assert(linerate.task(lc))
	linerate.start()
	lg:wait(opt.warmup + 30)
	rx:wait{ idle = 0.1, timeout = 10 }
	linerate.stop()
end

for _, size in ipairs(sizes) do
	local line = linerate.line_rate(speed, size)
	local r = { size = size, line_pps = line }
	learn(size)
	if want.throughput or want.latency then
		local known = {}
		local ndr, n, inv = search(size, function(t) return t.lost == 0 end, known)
		r.ndr_pps = ndr and ndr.pps or 0
		r.ndr_trials, r.ndr_invalid = n, inv
		local pdr, n2, inv2 = search(size, function(t)
			return loss_ratio(t) <= opt.pdr end, known)
		-- A valid trial that lost nothing is an NDR trial, whichever
		-- search ran it (the NDR search took an invalid trial at that
		-- rate as a failure).
		if pdr and pdr.lost == 0 and pdr.pps > r.ndr_pps then
			ndr, r.ndr_pps = pdr, pdr.pps
		end
		r.pdr_pps = pdr and pdr.pps or 0
		-- The latency of the trials that decided each rate (every frame
		-- of them, as TRex's ndr_bench reports latency at each).
		r.ndr_latency = ndr and ndr.latency or nil
		r.pdr_latency = pdr and pdr.latency or nil
		r.pdr_loss = pdr and loss_ratio(pdr) or nil
		r.pdr_trials, r.pdr_invalid = n2, inv2
	end
	if want.latency and (r.ndr_pps or 0) > 0 then
		local p50s, worst, trials = {}, 0, {}
		for _ = 1, opt.latency_trials do
			local t = judged(size, r.ndr_pps, true)
			if not t.invalid and t.latency and t.latency.p50_ns then
				p50s[#p50s + 1] = t.latency.p50_ns
				trials[#trials + 1] = t
				worst = math.max(worst, t.latency.max_ns or 0)
				r.latency_p99_ns = math.max(r.latency_p99_ns or 0,
				                            t.latency.p99_ns or 0)
			end
		end
		table.sort(p50s)
		r.latency_median_ns = p50s[(#p50s + 1) // 2]
		-- Every frame's latency, not 20 tagged ones: the whole histogram
		-- (rx's buckets) of the trial with the median p50, and its jitter
		-- (RFC 3550's, the mean over the flows, and the mean |D|).
		for _, t in ipairs(trials) do
			if t.latency.p50_ns == r.latency_median_ns then
				r.latency = t.latency
				r.jitter = t.jitter
				r.jitter_ns = t.jitter and t.jitter.flows > 0 and
					t.jitter.rfc3550_mean_ns or nil
				break
			end
		end
		r.latency_worst_ns = worst
		r.latency_trials = #p50s
	end
	if want.loss then
		r.loss = {}
		local clean = 0
		for pct = 100, 10, -10 do
			local t = judged(size, line * pct / 100)
			r.loss[#r.loss + 1] = { pct = pct, loss = loss_ratio(t),
			                        invalid = t.invalid }
			if t.lost == 0 and not t.invalid then clean = clean + 1 else clean = 0 end
			if clean == 2 then break end
		end
	end
	if want.b2b then
		-- The longest burst at the line rate that passes with no loss,
		-- by binary search on its length; the shortest of b2b_trials.
		local best = nil
		for _ = 1, opt.b2b_trials do
			local lo, hi = 0, opt.b2b_max
			local t = trial(size, nil, nil, hi)
			if not t.impossible and t.lost == 0 and t.received == hi then
				lo = hi
			else
				local n = 1
				while hi - lo > math.max(1, hi // 200) and n < opt.steps do
					local mid = (lo + hi) // 2
					t = trial(size, nil, nil, mid)
					n = n + 1
					if not t.impossible and t.lost == 0 and t.received == mid then
						lo = mid
					else
						hi = mid
					end
				end
			end
			best = best and math.min(best, lo) or lo
		end
		r.b2b_frames = best
	end
	result.sizes[#result.sizes + 1] = r
end
result.trials = #history

-- The RFC's tables.
local function mpps(x) return x and ("%9.4f"):format(x / 1e6) or "        -" end
print(("rfc2544: dut=%s%s, %s b/s, trials of %g s, %d trials in all")
      :format(opt.dut, opt.dut_netem and (" (" .. opt.dut_netem .. ")") or
	      ext and (" (" .. ext.what .. ")") or "",
	      opt.speed, opt.trial, #history))
print("  size |  line Mpps |   NDR Mpps  % line | PDR Mpps (loss) | trials inv | lat p50 us  worst us jitter us | b2b frames")
for _, r in ipairs(result.sizes) do
	print(("%6d | %s | %s %6.2f | %s %-6s | %6s %3s | %10s %9s %9s | %s"):format(
		r.size, mpps(r.line_pps), mpps(r.ndr_pps),
		r.ndr_pps and 100 * r.ndr_pps / r.line_pps or 0, mpps(r.pdr_pps),
		r.pdr_loss and ("%.0e"):format(r.pdr_loss) or "",
		r.ndr_trials and (r.ndr_trials + r.pdr_trials) or "-",
		r.ndr_invalid and (r.ndr_invalid + r.pdr_invalid) or "-",
		r.latency_median_ns and ("%.2f"):format(r.latency_median_ns / 1e3) or "-",
		r.latency_worst_ns and ("%.1f"):format(r.latency_worst_ns / 1e3) or "-",
		r.jitter_ns and ("%.3f"):format(r.jitter_ns / 1e3) or "-",
		r.b2b_frames or "-"))
	if r.loss then
		local parts = {}
		for _, l in ipairs(r.loss) do
			parts[#parts + 1] = ("%d%%: %.2e%s"):format(l.pct, l.loss,
				l.invalid and " INVALID" or "")
		end
		print("         frame loss rate: " .. table.concat(parts, ", "))
	end
end
result.history = history
if opt.json then assert(linerate.json(result, opt.json)) end
if opt.csv then
	local f = assert(io.open(opt.csv, "w"))
	f:write("size,line_pps,ndr_pps,pdr_pps,pdr_loss,latency_median_ns,latency_worst_ns,b2b_frames,trials,invalid,jitter_ns\n")
	for _, r in ipairs(result.sizes) do
		f:write(("%d,%.1f,%.1f,%.1f,%s,%s,%s,%s,%s,%s,%s\n"):format(r.size,
			r.line_pps, r.ndr_pps or 0, r.pdr_pps or 0, r.pdr_loss or "",
			r.latency_median_ns or "", r.latency_worst_ns or "",
			r.b2b_frames or "", (r.ndr_trials or 0) + (r.pdr_trials or 0),
			(r.ndr_invalid or 0) + (r.pdr_invalid or 0),
			r.jitter_ns and ("%.1f"):format(r.jitter_ns) or ""))
	end
	f:close()
end
