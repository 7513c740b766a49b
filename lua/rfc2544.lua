-- rfc2544.lua: RFC 2544's benchmarks in one command (section 26): the
-- throughput by binary search for the non-drop rate (NDR) and a partial-
-- drop rate (PDR), the latency at the NDR, the frame loss rate from the
-- top rate down, and back-to-back bursts; for each frame size, over a
-- device under test on the virtual testbed.
--
--   linerate --no-pci --no-huge -m 1024 --lcores '0@0,1@1,2@0' -- lua/rfc2544.lua \
--       dut=delay dut_netem="rate 100mbit" sizes=64,512,1518
--   linerate ... -- lua/rfc2544.lua help        (every argument, its default)
--
-- The device under test sits between the generator and the receiver:
--   dut=wire    no device: the virtual wire (what the search finds is the
--               tester's own ceiling: every answer is limited_by "tester")
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
-- Know the tester before judging the device: for each frame size a
-- calibration search runs first over the same lcores and the same kind
-- of path without the device (the delay box with no impairment for
-- dut=delay, two memif ports back to back for testpmd, a bare veth pair
-- for the kernel), and the device's searches go no higher than what the
-- tester passed there (its ceiling) and max=. Each answer then says what
-- bounded it (limited_by):
--   "dut"     the device's own limit: the lowest rate above the answer
--             that did not pass was a trial whose loss the device's own
--             counters hold
--   "line"    the device passed at the line rate (max=100, the default):
--             RFC 2544's throughput of a device that forwards it all
--   "tester"  the device passed all the tester could offer (its ceiling,
--             or a rate above the answer the tester spoiled each time it
--             was tried): a lower bound, printed >= X
--   "max"     the device passed at max= below 100 %: a lower bound, >= X
--   "steps"   the device failed above the answer but steps= ran out
--             before resolution=: a lower bound, >= X
--   null      no valid trial: no number, and why
-- and back-to-back bursts b2b_limited_by: "dut", "line" (the device
-- forwards the line rate: no burst limit), "b2b_max" (passed at b2b_max=,
-- >= X) or "tester" (no burst left back to back).
--
-- Every lost frame is placed (lost_at in the history), from counters:
-- the tester's (its receiving port's imissed, rx_nombuf and ierrors;
-- testpmd's TX-dropped into a full receiver), the device's (the delay
-- box's loss model, over_limit, no_room, held at the end, corrupted;
-- testpmd's rx_missed, rx errors, RX-dropped and what it took in and did
-- not forward; the namespace's /proc/net/dev drops and what it took in
-- and did not send), and what no counter explains. A trial fails when the
-- device's loss alone fails the test, passes when all of it passes, and
-- is INVALID for that test otherwise (the reason names the counter); it
-- is tried again (repeats=) before the search goes on below it. A trial
-- is INVALID for every test when the generator failed, a burst did not
-- leave back to back, a latency trial's emulated device was late by more
-- than 1 % of the latency, or counts no device makes (received > sent).
-- gen makes up a stall of its CPU (20 ms at most); a trial that lost
-- frames after such a burst is tried again with a catch-up of a burst's
-- time, where a stall leaves a gap and a trial short of its rate passes
-- at the rate it offered (pass_pps).
-- Each trial has flow ids of its own, so that what a device still held
-- of an earlier trial is counted apart (stale), not as this one's.
-- A device's queue hides an overload shorter than it: a trial of T seconds
-- passes up to (queue frames / T) above the capacity, which is why the RFC
-- asks for 60 s trials.
--
-- A device that stops forwarding (testpmd's process gone, the namespace
-- gone, or a trial that receives nothing at a rate that passed before)
-- ends the run: the message, the results so far (JSON, CSV), exit 1.
-- Exit 0 only when every size has a device-determined answer for every
-- test asked; 3 when some answer is a bound or undetermined (said on
-- stderr and in the JSON's "incomplete"); 130 on SIGINT/SIGTERM, with the
-- results so far written and "interrupted": true.
--
-- One line per trial on stderr (quiet=1: none): the size, test, phase,
-- rate, sent, lost, verdict, elapsed time and an estimate of what is left.
local testbed = require("testbed")
local ndr = require("ndr")

local SPEC = {
	{ "dut", "wire", "choice", "the device under test", choices = { "wire", "delay", "testpmd", "kernel" } },
	{ "sizes", nil, "sizes", "frame sizes, B (64,128,256,512,1024,1280,1518; with ipv6=1 84,...)", min = 64, max = 9018 },
	{ "tests", "throughput,latency,loss,b2b", "set", "the benchmarks to run", choices = { "throughput", "latency", "loss", "b2b" } },
	{ "max", 100, "num", "the highest rate tried, % of speed", above = 0, max = 100 },
	{ "speed", "10G", "bps", "the link speed rates refer to (10G, 10Gbps, 10000M, 1e10)", min = 1e6, max = 1e13 },
	{ "resolution", 0.5, "num", "a search ends when hi - lo < this % of hi", above = 0, max = 50 },
	{ "steps", 20, "int", "at most this many trials a search", min = 1, max = 1000 },
	{ "guess", 5, "num", "after a failed first trial, bracket what got through -/+ this % (0: plain halving)", min = 0, max = 50 },
	{ "pdr", 0.001, "num", "the partial-drop rate's loss ratio", above = 0, below = 1 },
	{ "trial", 1, "num", "trial seconds (RFC 2544 says 60)", above = 0, max = 86400 },
	{ "warmup", 0.1, "num", "learning frames' seconds, once a size (RFC 2544 23)", min = 0, max = 3600 },
	{ "calibrate", 1, "bool", "search the tester's own ceiling first, each size (0: take max= as reachable)" },
	{ "latency_trials", 3, "int", "trials at the NDR for the latency (RFC: 20)", min = 0, max = 1000 },
	{ "b2b_max", 100000, "int", "the longest back-to-back burst tried, frames", min = 1, max = 1e9 },
	{ "b2b_tolerance", 95, "num", "a burst left back to back when gen offered at least this % of the line rate, with no stall in it", above = 0, max = 100 },
	{ "b2b_trials", 2, "int", "back-to-back searches (the shortest counts; RFC: 50)", min = 1, max = 1000 },
	{ "flows", 1, "int", "flows", min = 1, max = 1048576 },
	{ "catch_up", nil, "num", "gen's catch-up after a stall of the host, us (default: a burst's time at the trial's rate: a stall leaves a gap, not a burst)", min = 0, max = 1e7 },
	{ "tolerance", 99.9, "num", "gen's rate tolerance, %: a trial that offered less passes at the rate it offered", above = 0, max = 100 },
	{ "unexplained", 0.1, "num", "a trial's loss is the device's when its counters hold all of it but this % (the rest: INVALID)", min = 0, max = 100 },
	{ "repeats", 2, "int", "a trial the tester spoiled is tried again this many times at its rate", min = 0, max = 100 },
	{ "ipv6", 0, "bool", "IPv6 frames (RFC 5180's sizes: 84 B for its 78)" },
	{ "quiet", 0, "bool", "no line per trial on stderr" },
	{ "json", nil, "out", "the results and every trial, as JSON" },
	{ "csv", nil, "out", "a row per size, as CSV" },
	{ "dut_netem", nil, "str", "dut=delay: the device, in tc-netem's words" },
	{ "dut_fwd", "io", "choice", "dut=testpmd: its forwarding mode", choices = { "io", "macswap" } },
	{ "dut_mode", "forward", "choice", "dut=kernel: IPv4 routing, a bridge, or a bare veth pair (the path itself)", choices = { "forward", "bridge", "veth" } },
	{ "dut_cpu", 0, "int", "the CPU of a DUT outside linerate (testpmd, the kernel)", min = 0, max = 4095 },
}
local opt, given = testbed.params(arg, SPEC, "RFC 2544 over a device under test (key=value)")
local fail = testbed.usage_error
local speed = opt.speed
local ipv6 = opt.ipv6
-- RFC 5180 5's IPv6 sizes start at 78 B; with linerate's 18 B header
-- (flow, sequence, TX time) after UDP the smallest is 84 B.
local sizes = opt.sizes or (ipv6 and { 84, 128, 256, 512, 1024, 1280, 1518 } or
                            { 64, 128, 256, 512, 1024, 1280, 1518 })
for _, n in ipairs(sizes) do
	if ipv6 and n < 84 then fail(("argument sizes: %d B: IPv6 frames of 84..9018 B"):format(n)) end
end
local want = {}
for _, t in ipairs(opt.tests) do want[t] = true end
if opt.dut == "delay" and not opt.dut_netem then
	fail("argument dut=delay needs dut_netem= (e.g. \"rate 100mbit\")")
end
if opt.dut ~= "delay" and opt.dut_netem then fail("argument dut_netem= is for dut=delay") end
if ipv6 and opt.dut == "kernel" and opt.dut_mode == "forward" then
	fail("argument ipv6=1: the kernel DUT forwards IPv4: give dut_mode=bridge with ipv6=1")
end
if (opt.dut == "testpmd" or opt.dut == "kernel") then
	for _, n in ipairs(sizes) do
		if n > 1518 then
			fail(("argument sizes: %d B: dut=%s takes frames up to 1518 B"):format(n, opt.dut))
		end
	end
end
-- Linux netem's own default queue (1000 frames) unless the SPEC says: the
-- delay role's default is the path's BDP, and each trial's box would hold
-- its own (tasks keep their memory until the process ends). Said once.
local dut_netem = opt.dut_netem
if dut_netem and not dut_netem:find("limit") then
	dut_netem = dut_netem .. " limit 1000"
	io.stderr:write(("rfc2544: dut_netem has no limit: netem's default queue is used " ..
	                 "(\"%s\")\n"):format(dut_netem))
end
linerate.live(false)

local t_start = linerate.now()
local function say(fmt, ...)
	if not opt.quiet then io.stderr:write(fmt:format(...)) end
end

-- The results, written whatever happens (an error, an interrupt: the
-- <close> below).
local history = {}
local hooks = {}	-- write(), print(): the results so far
-- What keeps the run from exit 0: a bound, an undetermined answer, an
-- interrupt, each said.
local incomplete = {}
local function note(size, what, why)
	incomplete[#incomplete + 1] = size > 0 and ("%d B %s: %s"):format(size, what, why) or
		("%s: %s"):format(what, why)
end
local result = { dut = opt.dut, dut_netem = dut_netem, speed_bps = speed, tests = opt.tests,
                 trial_s = opt.trial, max_pct = opt.max, resolution_pct = opt.resolution,
                 sizes = {},
                 history = history, interrupted = false }

-- Paths: where gen sends and rx receives, what gen writes for the path,
-- and what runs between (a delay box's SPEC). path.dut: the device;
-- path.cal: the tester alone, for its ceiling (nil: none to compare:
-- dut=wire, whose path is the tester's own).
local w = linerate.workers()
local ext, cal_ext
local paths = {}
local guard <close> = setmetatable({}, { __close = function(_, err)
	-- Whatever ended the run: the devices go, the results so far are
	-- written (a Lua error or an interrupt: err is set).
	if err ~= nil and result.finished == nil then
		result.finished = false
		if type(err) == "string" then result.error = result.error or err end
		if type(err) ~= "string" then
			result.interrupted = true
			note(0, "run", ("interrupted after %d trials"):format(#history))
		end
		pcall(linerate.stop)
		if hooks.write then pcall(hooks.write) end
		if hooks.print then pcall(hooks.print) end
	end
	if ext then ext:close() end
	if cal_ext then cal_ext:close() end
end })

if opt.dut == "wire" then
	local a, b = assert(linerate.wire("rfc_in", { speed = tostring(speed) }))
	paths.dut = { tx = a, rx = b, gen = {}, lc_gen = w[1], lc_rest = w[2] or w[1],
	              what = "the virtual wire (the tester's own path)" }
elseif opt.dut == "delay" then
	-- At speed=: the box takes what enters it at the link's speed.
	local a, da = assert(linerate.wire("rfc_in", { speed = tostring(speed) }))
	local db, b = assert(linerate.wire("rfc_out", { speed = tostring(speed) }))
	paths.dut = { tx = a, rx = b, box_in = da, box_out = db, box = dut_netem, gen = {},
	              limit = tonumber(dut_netem:match("limit%s+(%d+)")),
	              lc_gen = w[1], lc_rest = w[2] or w[1], what = "delay " .. dut_netem }
	-- The same box with no impairment: the tester's path.
	paths.cal = { tx = a, rx = b, box_in = da, box_out = db, box = "delay 0",
	              gen = {}, lc_gen = w[1], lc_rest = w[2] or w[1],
	              what = "the delay box with no impairment" }
else
	local dut = require("dut")
	ext = dut.open(opt.dut, { fwd = opt.dut_fwd, mode = opt.dut_mode,
	                          cpu = opt.dut_cpu, speed = tostring(speed) })
	paths.dut = { tx = ext.tx, rx = ext.rx, gen = ext.gen, lc_gen = w[1], lc_rest = w[1],
	              ext = ext, what = ext.what }
	if opt.dut == "kernel" and opt.dut_mode == "veth" then
		paths.cal = nil		-- the device is the path itself
	elseif opt.dut == "kernel" then
		cal_ext = dut.open("kernel", { mode = "veth", id = 20, speed = tostring(speed) })
		paths.cal = { tx = cal_ext.tx, rx = cal_ext.rx, gen = cal_ext.gen,
		              lc_gen = w[1], lc_rest = w[1], what = cal_ext.what }
	else
		-- Two memif ports back to back in this process, as testpmd's are
		-- reached: the server's link comes up when the client connects.
		-- (The server removes its socket file when the port closes.)
		local sock = os.tmpname()
		os.remove(sock)
		sock = sock .. ".sock"
		local conf = { mtu = 1500, speed = tostring(speed), ["link-timeout"] = 0 }
		local s = assert(linerate.port(("net_memif20,role=server,socket=%s," ..
		                                "socket-abstract=no"):format(sock), conf))
		conf["link-timeout"] = 10
		local c = assert(linerate.port(("net_memif21,role=client,socket=%s," ..
		                                "socket-abstract=no"):format(sock), conf))
		assert(c.link_up, "rfc2544: the calibration's memif link is down after 10 s")
		paths.cal = { tx = c, rx = s, gen = {}, lc_gen = w[1], lc_rest = w[1],
		              what = "two memif ports back to back" }
	end
end
result.dut_what = paths.dut.what
-- dut=wire and a bare veth pair are the tester's own path: what limits
-- them is the tester's, whatever the search says.
local path_is_tester = opt.dut == "wire" or opt.dut == "kernel" and opt.dut_mode == "veth"
result.calibration = not opt.calibrate and "off" or
	(paths.cal and paths.cal.what or "none: the device's path is the tester's")

-- Each trial's frames carry flow ids of its own (flow_base): frames of an
-- earlier trial that a device still held (a kernel's queues, a ring
-- nobody polled between trials) are then counted apart (unknown_flow),
-- never as this trial's received or lost.
local next_base = 0
local function new_base()
	next_base = next_base + opt.flows
	return next_base - opt.flows
end

local function diff(a, b)
	if type(a) ~= "table" or type(b) ~= "table" then return nil end
	local d = {}
	for k, v in pairs(b) do
		if type(v) == "table" then d[k] = diff(a[k], v)
		elseif type(v) == "number" and type(a[k]) == "number" then d[k] = v - a[k] end
	end
	return d
end

-- The receiving port's own drops: frames it had and could not hand over.
local function rx_drops(port)
	local s = port.stats
	return s and (s.imissed + s.rx_nombuf + s.ierrors) or 0
end

-- Progress: an estimate of the trials left, from what each test takes
-- (a search about log2(100 / resolution) trials, fewer from a good
-- guess), times the repeats invalid trials have cost so far.
local function search_trials()
	return math.min(opt.steps, math.ceil(math.log(100 / opt.resolution, 2)) - 2)
end
local planned_per_size = (opt.calibrate and paths.cal and search_trials() or 0) +
	((want.throughput or want.latency) and 2 * search_trials() or 0) +
	(want.latency and opt.latency_trials or 0) + (want.loss and 5 or 0) +
	(want.b2b and opt.b2b_trials * 8 or 0)
local sizes_done = 0
local size_trials = 0

local function eta()
	local invalid = 0
	for _, t in ipairs(history) do if t.invalid then invalid = invalid + 1 end end
	local repeats = #history > 0 and #history / math.max(1, #history - invalid / 2) or 1
	local left = math.max(1, planned_per_size * repeats - size_trials) +
	             planned_per_size * repeats * (#sizes - sizes_done - 1)
	local el = linerate.now() - t_start
	local per = #history > 0 and el / #history or opt.trial + 0.5
	return el, left * per
end

-- A fault of the device (gone, or no longer forwarding): the results so
-- far written, the message, exit 1.
local function stopped(msg)
	result.error, result.finished = msg, false
	linerate.stop()
	hooks.write()
	hooks.print()
	io.stderr:write("rfc2544: " .. msg .. "\n")
	os.exit(1)
end

local place, invalid

-- A box whose limit counts what it holds (not the model's clock: a SPEC
-- with reordering jitter or slots) and whose lcore the host held: its
-- over_limit may be the host's.
local function box_host_limit(rec)
	local c = rec.dut_counters
	return type(c) == "table" and c.model_clock == false and (rec.box_stalled_us or 0) > 0
end

-- The counters a device keeps of the frames it did not forward, as
-- {name = count} (this trial's): the delay box's drops, testpmd's and
-- the kernel's.
local function dut_drops(rec, path)
	local c = rec.dut_counters
	if type(c) ~= "table" then return nil end
	if path.box then
		-- Frames it still held when the trial ended are lost to the
		-- trial; a corrupted copy may not be counted by the receiver.
		-- Its limit is the SPEC's on the model's clock; else a stall of
		-- the host may have filled it (tester_drops()).
		return { ["the box's loss model"] = c.lost or 0,
		         ["its limit (over_limit)"] = box_host_limit(rec) and 0 or c.over_limit or 0,
		         ["held at the end (held_at_stop)"] = c.held_at_stop or 0,
		         ["corrupted copies"] = c.corrupted or 0 }
	end
	local i, o = c["in"], c.out
	if type(i) ~= "table" or type(o) ~= "table" then return nil end
	if path.ext and path.ext.pipe then
		-- testpmd: its rx ring overflowed (rx_missed), rx errors, and
		-- what it took in and did not hand to its tx queue.
		local fwd = (i.rx or 0) - (o.tx or 0) - (o.tx_dropped or 0)
		return { ["testpmd's rx_missed (its rx queue overflowed)"] = i.rx_missed or 0,
		         ["testpmd's rx_errors"] = i.rx_errors or 0,
		         ["testpmd's RX-dropped"] = i.rx_dropped or 0,
		         ["taken in, not forwarded"] = math.max(0, fwd) }
	end
	-- The kernel: its ends' drops, and what came in and did not leave
	-- (its routing, its queues).
	local fwd = (i.rx or 0) - (o.tx or 0) - (o.tx_drop or 0)
	return { ["the kernel's rx_drop (/proc/net/dev)"] = i.rx_drop or 0,
	         ["the kernel's tx_drop (/proc/net/dev)"] = o.tx_drop or 0,
	         ["taken in, not forwarded"] = math.max(0, fwd - (o.qdisc_drop or 0)),
	         ["its egress qdisc's drops (tc -s)"] = o.qdisc_drop or 0 }
end

-- The tester's own drops of the device's frames: its receiving port's
-- (imissed, rx_nombuf, ierrors) and a device egress the receiver did
-- not take (testpmd's TX-dropped into a full receiver).
local function tester_drops(rec, path)
	local t = { ["the receiving port's imissed/rx_nombuf/ierrors"] = rec.rx_port_drops }
	local c = rec.dut_counters
	if path.box and type(c) == "table" then
		-- The emulator's storage is the host's, not the SPEC's; so is
		-- a limit counted on the host's clock while the host held the
		-- box's CPU (a SPEC with reordering jitter or slots).
		t["the emulator's storage (no_room)"] = c.no_room or 0
		if box_host_limit(rec) then
			t["its limit while the host held its CPU (over_limit, no model clock)"] =
				c.over_limit or 0
		end
	end
	if type(c) == "table" and type(c.out) == "table" and path.ext and path.ext.pipe then
		t["testpmd's TX-dropped (the receiver was full)"] = c.out.tx_dropped or 0
	end
	return t
end

local function sum(t)
	local n = 0
	for _, v in pairs(t or {}) do n = n + v end
	return n
end

-- The largest entry of @p t, as "name N" (the counter a reason names).
local function largest(t)
	local name, n = nil, 0
	for k, v in pairs(t or {}) do if v > n then name, n = k, v end end
	return name and ("%s %d"):format(name, n) or nil
end

-- rec.lost_at: the frames sent and not received, where they went:
-- generator (frames gen counted sent that its port dropped: none of
-- linerate's ports do), tester (the receiving side's own drops), dut (the
-- device's counters, at most what is left) and unexplained (the rest).
-- rec.lost_dut: the loss that is the device's for sure: all of it but
-- the tester's and an unexplained part beyond opt.unexplained % of it.
-- With no counters of the device (dut=wire), the loss is unexplained.
place = function(rec, path, gs)
	local lost = math.max(rec.lost, 0)
	local tester = math.min(lost, sum(tester_drops(rec, path)))
	local dd = dut_drops(rec, path)
	local dut = math.min(lost - tester, sum(dd))
	local unexplained = lost - tester - dut
	rec.lost_at = { generator = 0, tester = tester, dut = dut, unexplained = unexplained }
	rec.gen_late = gs.late_packets
	rec.gen_caught_up = gs.caught_up_packets
	local slack = lost * opt.unexplained / 100
	rec.lost_dut = lost - tester - (unexplained > slack and unexplained or 0)
	-- The tester's own path (its calibration, the wire): all its loss
	-- is the path's, and what bounds it is said as the tester's.
	if path == paths.cal or path_is_tester then rec.lost_dut = lost end
	local refused = (rec.refused or 0) > 0 and
		("the device's input refused %d frames (its rx queue was full: the port " ..
		 "pushed back while gen polled)"):format(rec.refused) or nil
	rec.lost_why = refused
	if lost == 0 then return end
	if refused then
		rec.lost_why = ("%s; of the %d lost, %d were the tester's, %d the device's"):format(
			refused, lost, tester, dut)
	elseif tester > 0 then
		rec.lost_why = ("%d of the %d lost were the tester's (%s)"):format(tester, lost,
		               largest(tester_drops(rec, path)))
	elseif unexplained > slack then
		rec.lost_why = dd and ("%d of the %d lost are in no counter of the device (%s)")
		               :format(unexplained, lost, largest(dd) or "its counters: 0") or
		               ("%d lost: the path has no counters of its own"):format(lost)
	else
		rec.lost_why = ("the device's: %s"):format(largest(dd) or "")
	end
end

-- Why no test can use the trial (INVALID), or nil: the generator failed,
-- counts that cannot be, a burst that did not leave back to back, a
-- latency the host made. A generator short of the rate is not one: the
-- trial passes at the rate offered (pass_pps).
invalid = function(rec, gs, rs, how, path, box)
	if gs.verdict == "failed" then return gs.verdict_why or "gen failed" end
	if how.count and (gs.late_packets or 0) > 0 then
		return ("a stall of the host (%.0f us) split the burst"):format(gs.max_stall_us or 0)
	end
	local c = box and rec.dut_counters
	if how.count and c and c.in_span_ns and c.in_span_ns > 0 then
		-- The box's arrival stamps say how the burst came in: back to
		-- back when its link was idle no more than the tolerance, or
		-- (its capacity known, the NDR) when what the device could send
		-- while its input was idle is under 0.5 % of the burst.
		local idle = c.in_idle_ns / (c.in_span_ns + 1)
		local drained = how.capacity and how.capacity * c.in_idle_ns * 1e-9
		if (drained and drained > math.max(1, how.count * 0.005)) or
		    (not drained and idle > 1 - opt.b2b_tolerance / 100) then
			return ("the burst did not come back to back: the device's input was idle " ..
			        "%.1f %% of its %.0f us%s"):format(100 * idle, c.in_span_ns / 1e3,
			        drained and (", time for it to send %.1f frames"):format(drained) or "")
		end
	elseif how.count and path.ext and path.ext.pipe and (gs.tx_retry or 0) > 0 then
		-- testpmd's input refused the burst (memif pushing back where
		-- a NIC's rx ring overflows): the device did not take it whole.
		rec.refused = gs.tx_retry
		rec.lost_why = ("the device's input refused the burst %d times (its rx queue " ..
		                "was full)"):format(gs.tx_retry)
	elseif how.count and gs.short then
		return ("the burst left at %.3f %% of the line rate"):format(100 * (gs.offered or 0))
	end
	if how.test == "latency" and box and rec.box_verdict == "late" then
		-- The emulated device sent frames later than due (the host held
		-- its CPU): the latency measured is the device's give or take
		-- that lateness; past 1 % of the latency (and 10 us), the host's.
		-- Its median lateness over 1 % of the median latency: that
		-- median is the host's.
		local lh = rec.dut_counters.lateness
		local late = type(lh) == "table" and lh.p50_ns or math.huge
		local p50 = rs.latency and rs.latency.p50_ns or 0
		rec.box_late_p99_ns = type(lh) == "table" and lh.p99_ns or nil
		if late > p50 / 100 then
			return ("the emulated device sent frames late (p50 %.1f us after due, " ..
			        "over 1 %% of the latency p50 %.1f us): %s"):format(late / 1e3,
			        p50 / 1e3, rec.box_why or "")
		end
	end
	if rs.received > gs.tx_packets then
		return ("received %d > sent %d: counts no device makes"):format(rs.received, gs.tx_packets)
	end
	if (rs.lost or 0) < 0 then
		return ("rx lost %d < 0: counts no device makes"):format(rs.lost)
	end
	if gs.short then
		rec.pass_pps = math.min(how.pps, gs.achieved_pps or how.pps)
	end
	return nil
end

-- One trial on @p path: frames of size at pps for secs (or count frames
-- at the line rate: a back-to-back burst). Returns the history record.
local function trial(path, how)
	local size, pps = how.size, how.pps
	local base = new_base()
	local rx = assert(linerate.task{ role = "rx", port = path.rx, flow_base = base,
	                                 flows = opt.flows, lcore = path.lc_rest,
	                                 flow_latency = how.jitter and 1 or 0 })
	local box
	if path.box then
		box = assert(linerate.task{ role = "delay", port = path.box_in, peer = path.box_out,
		                            netem = path.box, lcore = path.lc_rest })
	end
	-- gen makes up a stall of its CPU (20 ms at most): a pass then
	-- passed a load burstier than the paced one. A trial that lost
	-- frames after such a burst is tried again with a catch-up of a
	-- burst's time (how.gaps): a stall then leaves a gap, never a
	-- burst, and the trial passes at the rate it offered.
	local catch_up = opt.catch_up or (how.gaps and math.max(1, 32 / pps * 1e6) or 20000)
	local g = { role = "gen", port = path.tx, size = size, flows = opt.flows,
	            flow_base = base, lcore = path.lc_gen, catch_up = catch_up,
	            rate_tolerance = how.count and opt.b2b_tolerance or opt.tolerance,
	            rate = ("%d"):format(math.floor(pps)) }	-- never above the line
	for k, v in pairs(path.gen) do g[k] = v end
	if ipv6 then g.src_ip, g.dst_ip = "fd00::1", "fd00::2" end
	if how.count then g.count = how.count else g.duration = how.secs end
	-- A burst into the delay box goes as fast as gen can: the box's
	-- input takes it at the link's speed (its arrival stamps, spaced by
	-- each frame's wire time), as a NIC's wire would.
	if how.count and path.box then g.rate = nil end
	local gen = assert(linerate.task(g))
	local dut0 = path.ext and path.ext:counters()
	local drops0 = rx_drops(path.rx)
	local t0 = linerate.now()
	linerate.start()
	gen:wait((how.secs or 0) + 60)
	rx:wait{ idle = 0.2, timeout = 30 }
	linerate.stop()
	local gs, rs = gen:stats(), rx:stats()
	local rec = { test = how.test, phase = how.phase, size = size, pps = pps, gaps = how.gaps,
	              count = how.count, start_s = t0 - t_start,
	              duration_s = linerate.now() - t0, index = #history + 1,
	              path = path == paths.cal and "tester" or "dut",
	              sent = gs.tx_packets, received = rs.received,
	              achieved_pps = gs.achieved_pps, offered = gs.offered,
	              late_packets = gs.late_packets, max_stall_us = gs.max_stall_us,
	              stale = rs.unknown_flow_packets, latency = rs.latency,
	              jitter = rs.jitter, rx_port_drops = rx_drops(path.rx) - drops0 }
	-- Histograms' buckets are lists, also empty (a trial that received
	-- nothing): never a JSON object.
	for _, h in ipairs({ rec.latency, rec.dut_counters and rec.dut_counters.lateness }) do
		if type(h) == "table" and type(h.buckets) == "table" then
			h.buckets = linerate.array(h.buckets)
		end
	end
	-- The loss is what was sent and not received: rx's sequence gaps
	-- miss a tail lost after the last frame that arrived.
	rec.lost = gs.tx_packets - rs.received
	-- testpmd over memif pushes back where a NIC's wire would overflow
	-- its rx ring: what the generator could not send while its port
	-- refused frames is the device's, offered and lost: its shortfall
	-- less what it gave up while the host held its CPU (late_packets
	-- less refused_packets). (The kernel's af_packet ring is the
	-- tester's own.)
	if path.ext and path.ext.pipe and how.secs and gs.short and (gs.tx_retry or 0) > 0 then
		local host = (gs.late_packets or 0) - (gs.refused_packets or 0)
		rec.refused = math.max(0, math.floor(pps * how.secs) - gs.tx_packets - host)
		if rec.refused == 0 then rec.refused = nil end
	end
	if box then
		local b = box:stats()
		rec.dut_counters = b.forward
		rec.box_gap_us = b.max_poll_gap_us
		rec.box_stalled_us = b.stalled_us
		rec.box_verdict, rec.box_why = b.verdict, b.verdict_why
	elseif path.ext then
		rec.dut_counters = diff(dut0, path.ext:counters())
	end
	-- Where the lost frames went, from counters (place()); what no test
	-- can use (invalid()): the tester spoiled the trial for every test.
	place(rec, path, gs)
	local why = invalid(rec, gs, rs, how, path, box)
	rec.invalid = why ~= nil
	rec.why = why or rec.lost_why
	rec.verdict = why and "INVALID" or
		(rec.lost == 0 and (rec.refused or 0) == 0 and "lossless" or "loss")
	-- Frames lost after gen made up a stall with a burst: whose, the
	-- burst's or the device's? Tried again with gaps for stalls.
	if not why and not how.count and not how.gaps and path ~= paths.cal and
	    (gs.caught_up_packets or 0) > 0 and (rec.lost > 0 or rec.refused) then
		why = ("the generator made up a stall with %d frames faster than the rate: " ..
		       "tried again with gaps for stalls"):format(gs.caught_up_packets)
		rec.invalid, rec.why, rec.verdict = true, why, "INVALID"
	end
	history[#history + 1] = rec
	size_trials = size_trials + 1
	local el, left = eta()
	say("rfc2544: %5d B %-10s %-11s %12.0f pps  sent %10d  lost %9d  %-8s %6.1f s  ~%.0f s left%s\n",
	    size, how.test, how.phase, pps, rec.sent, rec.lost, rec.verdict, el, left,
	    rec.why and ("  (" .. rec.why .. ")") or "")
	-- A device that stopped forwarding is a fault, not a result.
	if path.ext then
		local alive, gone = path.ext:alive()
		if not alive then
			stopped(("the device under test stopped: %s (trial %d, %d B at %.0f pps)")
			        :format(gone, rec.index, size, pps))
		end
	end
	-- A device that takes nothing in and sends nothing (a stopped
	-- process: its input refuses every burst) has stopped forwarding.
	if path == paths.dut and path.ext and rs.received == 0 and (rec.refused or 0) > 0 and
	    rec.sent <= (rec.refused or 0) then
		stopped(("the device under test stopped forwarding: trial %d received nothing, " ..
		         "its input refused %d of %d frames (is it stopped?)"):format(rec.index,
		         rec.refused, rec.sent + rec.refused))
	end
	if path == paths.dut and rec.sent > 0 and rs.received == 0 and not rec.invalid then
		for _, t in ipairs(history) do
			if t.path == "dut" and t.size == size and t.received > 0 and t.pps >= pps and
			    not t.count == not how.count then
				stopped(("the device under test stopped forwarding: trial %d " ..
				         "received nothing of %d frames at %.0f pps, where trial %d " ..
				         "passed %d at %.0f pps"):format(rec.index, rec.sent, pps,
				         t.index, t.received, t.pps))
			end
		end
	end
	if rec.invalid and rec.why and rec.why:find("tried again with gaps", 1, true) then
		local again = {}
		for k, v in pairs(how) do again[k] = v end
		again.gaps = true
		return trial(path, again)
	end
	return rec
end

-- A trial that counts: repeated once when it was invalid.
-- The tester spoiled @p t for a test that takes every frame lost: an
-- invalid trial, or one with a loss not the device's.
local function spoiled(t)
	return t.invalid or (t.lost_dut or t.lost) < t.lost
end

-- A trial that counts: tried again, repeats= times at most, while the
-- tester spoiled it.
local function judged(path, how, bad)
	bad = bad or spoiled
	local t = trial(path, how)
	for _ = 1, opt.repeats do
		if not bad(t) then break end
		t = trial(path, how)
	end
	return t
end

-- The device's own loss in @p t is not known: an invalid trial, or one
-- whose loss no counter explains beyond unexplained= %. (The tester's
-- share is known, and left out of the device's.)
local function unknown(t)
	return t.invalid or t.lost_at.unexplained > math.max(t.lost, 0) * opt.unexplained / 100
end

-- The device's loss ratio in @p t: what its counters hold and what its
-- input refused, of what was offered.
local function dut_loss_ratio(t)
	local r = t.refused or 0
	return (t.sent + r) > 0 and ((t.lost_dut or t.lost) + r) / (t.sent + r) or 1
end

local function loss_ratio(t)
	return t.sent > 0 and t.lost / t.sent or 1
end

-- Learning frames (RFC 2544 23): once per frame size, before its trials,
-- the device sees the flows at a tenth of the line rate (not counted).
local function learn(size)
	if opt.warmup <= 0 then return end
	local path = paths.dut
	local base = new_base()
	local rx = assert(linerate.task{ role = "rx", port = path.rx, flow_base = base,
	                                 flows = opt.flows, lcore = path.lc_rest })
	if path.box then
		assert(linerate.task{ role = "delay", port = path.box_in, peer = path.box_out,
		                      netem = path.box, lcore = path.lc_rest })
	end
	local lc = { role = "gen", port = path.tx, size = size, flows = opt.flows,
	             flow_base = base, duration = opt.warmup, lcore = path.lc_gen,
	             rate = ("%.0f"):format(linerate.line_rate(speed, size) / 10) }
	for k, v in pairs(path.gen) do lc[k] = v end
	if ipv6 then lc.src_ip, lc.dst_ip = "fd00::1", "fd00::2" end
	local lg = assert(linerate.task(lc))
	linerate.start()
	lg:wait(opt.warmup + 30)
	rx:wait{ idle = 0.1, timeout = 10 }
	linerate.stop()
end

-- A search on a path: ok() over ndr.search, trials recorded; a trial
-- that cannot tell is tried again by the search (repeats=).
local function search(path, size, top, ok, known, test, phase)
	return ndr.search{ top = top, ok = ok, known = known, resolution = opt.resolution,
	                   steps = opt.steps, guess = opt.guess, trial_s = opt.trial,
	                   repeats = opt.repeats, try = function(pps)
		return trial(path, { size = size, pps = pps, secs = opt.trial,
		                     test = test, phase = phase })
	end }
end

-- A test's judgement of a trial (ndr.lua's ok): true, it passed counting
-- every frame lost; false, it failed on the device's own loss (lost_dut);
-- nil, the tester's share of the loss decides (INVALID for this test).
local function judge_by(okf)
	return function(t)
		local r = t.refused or 0	-- offered, refused by the device
		if okf(t.lost + r, t.sent + r) then return true end
		if not okf((t.lost_dut or t.lost) + r, t.sent + r) then return false end
		return nil
	end
end
local lossless = judge_by(function(lost) return lost == 0 end)
local partial = judge_by(function(lost, sent) return (sent > 0 and lost / sent or 1) <= opt.pdr end)

-- What bounded an answer, in the result's words: the search's "top" is
-- max='s when the range was max='s, else the tester's ceiling.
local function bounded_by(s, top_is)
	if s.limited_by == "top" then return top_is end
	return s.limited_by
end

-- What bounded an answer that is the device's own: its limit, or the
-- line rate it forwards whole.
local function answer(by) return by == "dut" or by == "line" end

local function run_size(size)
	local line = linerate.line_rate(speed, size)
	local r = { size = size, line_pps = line }
	result.sizes[#result.sizes + 1] = r
	size_trials = 0
	-- The line rate is an answer (RFC 2544's throughput of a device that
	-- forwards all it is offered, as TRex's ndr_bench says 100 %); only a
	-- max= below it is a user's cap, and a bound.
	local top, top_is = line * opt.max / 100, opt.max >= 100 and "line" or "max"
	-- The tester's ceiling on this path, without the device.
	if opt.calibrate and paths.cal then
		local c = search(paths.cal, size, top, lossless, {}, "calibrate", "tester")
		r.ceiling_pps = c.best and ndr.rate(c.best) or 0
		r.ceiling_limited_by = c.limited_by == "top" and top_is or "tester"
		if c.best and c.limited_by ~= "top" then
			top, top_is = ndr.rate(c.best), "tester"
		elseif not c.best then
			r.limited_by = nil
			r.why = "the tester passed no rate on its own path: " .. (c.why or
			        ("every trial lost frames down to %.0f pps"):format(c.hi))
			note(size, "throughput", r.why)
			return r
		end
	end
	r.top_pps = top
	learn(size)
	local known = {}
	if want.throughput or want.latency then
		local n = search(paths.dut, size, top, lossless, known, "throughput", "ndr")
		local p = search(paths.dut, size, top, partial, known, "throughput", "pdr")
		local nb, pb = n.best, p.best
		-- A valid trial that lost nothing is an NDR trial, whichever
		-- search ran it.
		for _, t in ipairs(known) do
			if not t.invalid and lossless(t) and ndr.rate(t) > (nb and ndr.rate(nb) or 0) then nb = t end
		end
		-- A device that loses a share of frames at every rate (a random
		-- loss): a trial passes by chance where that share of it is
		-- below a frame or so. Not an NDR: a pass counts where the
		-- least loss ratio of the device's failures at twice its rate
		-- and more (a queue's loss ratio grows with the rate, a random
		-- loss's does not) would lose 3 frames or more of what it sent.
		local steady
		for _, t in ipairs(known) do
			if nb and not t.invalid and lossless(t) == false and t.sent > 0 and
			    t.pps >= 2 * nb.pps then
				local ratio = ((t.lost_dut or t.lost) + (t.refused or 0)) / t.sent
				if not steady or ratio < steady then steady = ratio end
			end
		end
		if nb and steady and steady * nb.sent < 3 then
			r.ndr_steady = steady
			n.why = ("the device lost %.3g %% or more at every rate tried above %.0f pps, " ..
			         "where a trial of %d frames passes by chance"):format(100 * steady,
			         ndr.rate(nb), nb.sent)
			nb, n.limited_by = nil, "dut"
		end
		r.ndr_pps = nb and ndr.rate(nb) or nil
		r.ndr_limited_by, r.ndr_why = bounded_by(n, top_is), n.why
		-- The lowest rate above the NDR that did not pass, of every
		-- trial (the PDR search's too: the NDR may be one of its).
		r.ndr_hi_pps, r.ndr_hi_lost_at = nil, nil
		local hi_t
		for _, t in ipairs(known) do
			if (t.invalid or lossless(t) ~= true) and t.pps > (r.ndr_pps or 0) and
			    t.pps < (r.ndr_hi_pps or math.huge) then
				r.ndr_hi_pps, r.ndr_hi_lost_at, r.ndr_hi_why = t.pps, t.lost_at, t.why
				r.ndr_hi_refused, hi_t = t.refused, t
			end
		end
		if nb and n.best ~= nb and not r.ndr_steady then
			-- An NDR trial of the PDR search's: bounded by the lowest
			-- rate above it that did not pass, as that trial says.
			if hi_t == nil then
				local at_top = top - ndr.rate(nb) <= top * opt.resolution / 100
				r.ndr_limited_by = at_top and top_is or "tester"
				r.ndr_why = not at_top and ("the generator offered %.0f of %.0f pps")
				            :format(ndr.rate(nb), nb.pps) or nil
			elseif not hi_t.invalid and lossless(hi_t) == false then
				r.ndr_limited_by, r.ndr_why = "dut", nil
				if hi_t.pps - r.ndr_pps > hi_t.pps * opt.resolution / 100 then
					r.ndr_limited_by, r.ndr_why = "steps", ("%d trials ended the search " ..
						"with the answer between %.0f and %.0f pps"):format(opt.steps,
						r.ndr_pps, hi_t.pps)
				end
			else
				r.ndr_limited_by, r.ndr_why = "tester", hi_t.why
			end
		end
		-- Without a valid trial, the NDR is none; a device that lost
		-- frames at every rate tried has an NDR below the lowest.
		if not nb and n.limited_by == "dut" then
			r.ndr_pps = 0
			r.ndr_why = r.ndr_steady and n.why or
				("the device lost frames at every rate tried, down to %.0f pps (%s)")
				:format(n.hi, n.hi_trial and n.hi_trial.why or "its own loss")
		end
		if answer(r.ndr_limited_by) and path_is_tester then
			r.ndr_limited_by = "tester"	-- the wire is the tester's path
		end
		r.pdr_pps = pb and ndr.rate(pb) or nil
		r.pdr_limited_by = bounded_by(p, top_is)
		if answer(r.pdr_limited_by) and path_is_tester then r.pdr_limited_by = "tester" end
		if not pb and p.limited_by == "dut" then
			r.pdr_pps = 0
			p.why = ("the device lost more than %g of the frames at every rate tried, " ..
			         "down to %.0f pps"):format(opt.pdr, p.hi)
		end
		r.pdr_why = p.why
		r.pdr_loss = pb and loss_ratio(pb) or nil
		r.ndr_latency = nb and nb.latency or nil
		r.pdr_latency = pb and pb.latency or nil
		r.ndr_trials, r.ndr_invalid = n.trials, n.invalid
		r.pdr_trials, r.pdr_invalid = p.trials, p.invalid
		r.limited_by = r.ndr_limited_by
		if not answer(r.ndr_limited_by) then
			note(size, "NDR", r.ndr_limited_by and ("a lower bound (limited by the %s)")
			     :format(r.ndr_limited_by) or ("none: " .. (r.ndr_why or "no valid trial")))
		end
		if not answer(r.pdr_limited_by) then
			note(size, "PDR", r.pdr_limited_by and ("a lower bound (limited by the %s)")
			     :format(r.pdr_limited_by) or ("none: " .. (r.pdr_why or "no valid trial")))
		end
	end
	if want.latency then
		if (r.ndr_pps or 0) > 0 then
			local p50s, worst, trials = {}, 0, {}
			for _ = 1, opt.latency_trials do
				local t = judged(paths.dut, { size = size, pps = r.ndr_pps, secs = opt.trial,
				                              jitter = true, test = "latency", phase = "ndr" })
				if not t.invalid and t.latency and t.latency.p50_ns then
					p50s[#p50s + 1] = t.latency.p50_ns
					trials[#trials + 1] = t
					worst = math.max(worst, t.latency.max_ns or 0)
					r.latency_p99_ns = math.max(r.latency_p99_ns or 0, t.latency.p99_ns or 0)
					-- The host's share of the frames' latency: the
					-- emulated device's lateness (its p99).
					if t.box_late_p99_ns then
						r.latency_host_p99_ns = math.max(r.latency_host_p99_ns or 0,
						                                 t.box_late_p99_ns)
					end
				end
			end
			table.sort(p50s)
			r.latency_median_ns = p50s[(#p50s + 1) // 2]
			-- Every frame's latency, not 20 tagged ones: the whole
			-- histogram of the trial with the median p50, and its jitter
			-- (RFC 3550's, the mean over the flows, and the mean |D|).
			for _, t in ipairs(trials) do
				if t.latency.p50_ns == r.latency_median_ns then
					r.latency, r.jitter = t.latency, t.jitter
					r.jitter_ns = t.jitter and t.jitter.flows > 0 and
						t.jitter.rfc3550_mean_ns or nil
					break
				end
			end
			r.latency_worst_ns = #p50s > 0 and worst or nil
			r.latency_trials = #p50s
			if #p50s == 0 and opt.latency_trials > 0 then
				note(size, "latency", "no valid latency trial at the NDR")
			elseif not answer(r.ndr_limited_by) then
				note(size, "latency", "measured at a bound NDR, not the device's")
			end
		else
			note(size, "latency", "no NDR to measure it at")
		end
	end
	if want.loss then
		-- RFC 2544 26.3: from the top rate down in steps of 10 % of it,
		-- until two steps in a row lose nothing. A step above the
		-- tester's ceiling is not tried: said, not guessed.
		r.loss = {}
		local clean = 0
		local max_pps = line * opt.max / 100
		for pct = 100, 10, -10 do
			local pps = max_pps * pct / 100
			local row = { pct = pct, pps = pps }
			if pps > top * 1.0001 then
				row.limited_by, row.why = "tester", ("above the tester's ceiling %.0f pps")
				                          :format(top)
				clean = 0
			else
				-- The device's loss ratio, the tester's share (placed)
				-- left out of it.
				local t = judged(paths.dut, { size = size, pps = pps, secs = opt.trial,
				                              test = "loss", phase = "loss" }, unknown)
				row.loss, row.invalid, row.lost_at = dut_loss_ratio(t), unknown(t), t.lost_at
				row.offered_pps = t.pass_pps	-- the generator short of it
				if unknown(t) then
					row.loss, row.why, row.limited_by = nil, t.why, "tester"
				elseif path_is_tester then
					row.loss, row.limited_by = loss_ratio(t), "tester"
				elseif t.lost_at.tester > 0 then
					row.why = ("the tester's %d lost frames left out"):format(t.lost_at.tester)
				end
				if row.loss == 0 then clean = clean + 1 else clean = 0 end
			end
			if row.limited_by then note(size, ("loss at %d %%"):format(pct), row.why) end
			r.loss[#r.loss + 1] = row
			if clean == 2 then break end
		end
	end
	if want.b2b then
		-- The longest burst at the line rate that passes with no loss, by
		-- binary search on its length; the shortest of b2b_trials. A
		-- burst that did not leave back to back (the generator short of
		-- the line rate, or a stall in it) says nothing of the device.
		local best, by, why
		for _ = 1, opt.b2b_trials do
			local lo, hi, hi_by = 0, opt.b2b_max, "b2b_max"
			local n = 0
			local function try(count)
				n = n + 1
				local t = judged(paths.dut, { size = size, pps = line, count = count,
				                              test = "b2b", phase = "b2b",
				                              capacity = r.ndr_limited_by == "dut" and
				                                         r.ndr_pps or nil })
				if spoiled(t) then return nil, t end
				return t.lost == 0 and t.received == count and not t.refused, t
			end
			local pass, t = try(hi)
			if pass then
				lo = hi
			else
				hi_by = pass == nil and "tester" or "dut"
				why = pass == nil and t.why or nil
				while hi - lo > math.max(1, hi // 200) and n < opt.steps do
					local mid = (lo + hi) // 2
					pass, t = try(mid)
					if pass then
						lo = mid
					else
						hi, hi_by = mid, pass == nil and "tester" or "dut"
						why = pass == nil and t.why or why
					end
				end
			end
			if best == nil or lo < best then best, by = lo, (lo == opt.b2b_max) and "b2b_max" or hi_by end
		end
		if by == "dut" and path_is_tester then by = "tester" end
		-- A device that forwards the line rate whole has no burst
		-- limit: the longest burst tried passed, and that is the answer.
		if by == "b2b_max" and r.ndr_limited_by == "line" then
			by, why = "line", "the device forwards the line rate without loss"
		end
		r.b2b_frames = best
		r.b2b_limited_by = by
		r.b2b_why = why
		if by == "tester" and best == 0 then
			r.b2b_frames, r.b2b_why = nil, why or "no burst left back to back"
		end
		if not answer(by) then
			note(size, "back-to-back", by == "b2b_max" and "a lower bound (b2b_max)" or
			     ("limited by the tester: " .. (why or "")))
		end
	end
	return r
end

-- The RFC's tables, a bound as ">= X", none as "-".
local function mpps(x, by)
	if x == nil then return "        -" end
	local s = ("%.4f"):format(x / 1e6)
	if by and not answer(by) then s = ">=" .. s end
	return ("%9s"):format(s)
end

function hooks.print()
	print(("rfc2544: dut=%s (%s), %.4g Gb/s, trials of %g s, %d trials in all%s")
	      :format(opt.dut, result.dut_what, speed / 1e9, opt.trial, #history,
	              result.interrupted and ", INTERRUPTED" or result.error and ", STOPPED" or ""))
	print("  size |  line Mpps | tester Mpps |   NDR Mpps  % line limited | PDR Mpps (loss)   | lat p50 us  worst us jitter us | PDR p50 us | b2b frames")
	for _, r in ipairs(result.sizes) do
		local ndr_pct = r.ndr_pps and ("%6.2f"):format(100 * r.ndr_pps / r.line_pps) or "     -"
		local b2b = r.b2b_frames and ((not answer(r.b2b_limited_by) and ">=" or "") ..
		            tostring(r.b2b_frames)) or (r.b2b_limited_by and "-" or "")
		print(("%6d | %s | %11s | %s %s %-7s | %s %-8s | %10s %9s %9s | %10s | %s"):format(
			r.size, mpps(r.line_pps),
			r.ceiling_pps and (r.ceiling_limited_by == "max" and ">=" or "") ..
				("%.4f"):format(r.ceiling_pps / 1e6) or "-",
			mpps(r.ndr_pps, r.ndr_limited_by), ndr_pct,
			tostring(r.ndr_limited_by or (r.ndr_why and "none" or "")),
			mpps(r.pdr_pps, r.pdr_limited_by),
			r.pdr_loss and ("(%.0e)"):format(r.pdr_loss) or "",
			r.latency_median_ns and ("%.2f"):format(r.latency_median_ns / 1e3) or "-",
			r.latency_worst_ns and ("%.1f"):format(r.latency_worst_ns / 1e3) or "-",
			r.jitter_ns and ("%.3f"):format(r.jitter_ns / 1e3) or "-",
			r.pdr_latency and r.pdr_latency.p50_ns and
				("%.2f"):format(r.pdr_latency.p50_ns / 1e3) or "-",
			b2b))
		if r.why then print("         " .. r.why) end
		-- Why the rate above the NDR failed: where its lost frames went.
		local la = r.ndr_hi_lost_at
		if la and r.ndr_hi_pps then
			print(("         above the NDR, %.4f Mpps lost %d: device %d, tester %d, unexplained %d%s%s")
			      :format(r.ndr_hi_pps / 1e6, la.dut + la.tester + la.unexplained + la.generator,
			              la.dut, la.tester, la.unexplained,
			              r.ndr_hi_refused and (", refused by the device %d"):format(r.ndr_hi_refused) or "",
			              r.ndr_hi_why and (" (" .. r.ndr_hi_why .. ")") or ""))
		end
		if r.loss then
			local parts = {}
			for _, l in ipairs(r.loss) do
				parts[#parts + 1] = l.loss and ("%d%%: %.2e"):format(l.pct, l.loss) or
					("%d%%: -"):format(l.pct)
			end
			print("         frame loss rate: " .. table.concat(parts, ", "))
		end
	end
	for _, why in ipairs(incomplete) do print("  incomplete: " .. why) end
end

local function num(x, fmt) return x and (fmt or "%.1f"):format(x) or "" end

-- The JSON document: an answer that is none is null (not a missing key),
-- for every test that ran.
local NULLS = {
	throughput = { "ndr_pps", "ndr_limited_by", "pdr_pps", "pdr_limited_by" },
	latency = { "latency_median_ns", "latency_worst_ns" },
	b2b = { "b2b_frames", "b2b_limited_by" },
}
local function document()
	local doc = {}
	for k, v in pairs(result) do doc[k] = v end
	doc.sizes = {}
	for _, r in ipairs(result.sizes) do
		local o = {}
		for k, v in pairs(r) do o[k] = v end
		if not r.why then
			for t, keys in pairs(NULLS) do
				if want[t] or (t == "throughput" and want.latency) then
					for _, k in ipairs(keys) do
						if o[k] == nil then o[k] = linerate.null end
					end
				end
			end
		end
		if r.loss then
			o.loss = {}
			for i, l in ipairs(r.loss) do
				o.loss[i] = { pct = l.pct, pps = l.pps, invalid = l.invalid or false,
				              loss = l.loss == nil and linerate.null or l.loss,
				              limited_by = l.limited_by or "dut", why = l.why,
				              lost_at = l.lost_at, offered_pps = l.offered_pps }
			end
		end
		doc.sizes[#doc.sizes + 1] = o
	end
	doc.sizes = linerate.array(doc.sizes)
	doc.history = linerate.array(history)
	doc.incomplete = linerate.array(incomplete)
	doc.error = result.error or linerate.null
	return doc
end

function hooks.write()
	result.trials = #history
	result.complete = #incomplete == 0 and not result.error and not result.interrupted
	-- A result that cannot be written is said in one line, exit 1.
	local function wrote(ok, err)
		if ok then return end
		io.stderr:write(("rfc2544: cannot write the results: %s\n"):format(tostring(err)))
		os.exit(1)
	end
	if opt.json then wrote(linerate.json(document(), opt.json)) end
	if opt.csv then
		local rows = {}
		rows[#rows + 1] = ("size,line_pps,ndr_pps,pdr_pps,pdr_loss,latency_median_ns,latency_worst_ns," ..
		        "b2b_frames,trials,invalid,jitter_ns,ceiling_pps,ndr_limited_by," ..
		        "pdr_limited_by,b2b_limited_by,pdr_latency_p50_ns,ndr_hi_pps," ..
		        "ndr_hi_lost_dut,ndr_hi_lost_tester,ndr_hi_lost_unexplained\n")
		for _, r in ipairs(result.sizes) do
			local la = r.ndr_hi_lost_at or {}
			rows[#rows + 1] = (("%d,%.1f,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n"):format(r.size,
				r.line_pps, num(r.ndr_pps), num(r.pdr_pps),
				r.pdr_loss and ("%g"):format(r.pdr_loss) or "",
				num(r.latency_median_ns), num(r.latency_worst_ns),
				r.b2b_frames and tostring(r.b2b_frames) or "",
				(r.ndr_trials or 0) + (r.pdr_trials or 0),
				(r.ndr_invalid or 0) + (r.pdr_invalid or 0),
				num(r.jitter_ns), num(r.ceiling_pps),
				r.ndr_limited_by or "", r.pdr_limited_by or "", r.b2b_limited_by or "",
				num(r.pdr_latency and r.pdr_latency.p50_ns), num(r.ndr_hi_pps),
				la.dut or "", la.tester or "", la.unexplained or ""))
		end
		wrote(testbed.write_file(opt.csv, table.concat(rows)))
	end
end

for i, size in ipairs(sizes) do
	run_size(size)
	sizes_done = i
end
result.finished = true
hooks.write()
hooks.print()
if #incomplete > 0 then
	io.stderr:write(("rfc2544: incomplete (exit 3): %s\n"):format(table.concat(incomplete, "; ")))
	os.exit(3)
end
