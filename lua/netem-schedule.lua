-- netem-schedule.lua: a delay box whose impairments follow a schedule while
-- frames pass: a step, a sine, or a trace of delay and loss per interval
-- replayed, as trace-driven emulators do. Each change is a task:set{netem=}
-- (the box takes it at its next poll: frames held keep their due times).
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/netem-schedule.lua shape=sine
--
-- Without port=, the box sits on a virtual testbed, gen -> box -> rx, and
-- rx's latency per interval (the result's series) shows the schedule take
-- effect; with port= and peer= (NICs, or any ports) the box runs between
-- them for duration= seconds and carries whatever comes.
--
-- A trace (shape=trace trace=FILE) has a line per change: a time in seconds
-- from the start, then either a SPEC in tc-netem's words or numbers
-- "delay_ms[,loss_pct[,jitter_ms]]", e.g.
--
--   # t_s  delay_ms  loss_pct
--   0      10        0
--   0.5    35        0.5
--   1.5    12        2
--   2      delay 20ms 5ms distribution normal loss 1%
--
-- `help` lists the arguments. Exit 0 when every change was taken and the
-- box kept to its due times; 3 with an INVALID line when the box was late
-- (its lcore was taken away) or a change was not taken.
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, {
	{ "shape", "step", "choice", "the schedule: step, sine or trace", choices = { "step", "sine", "trace" } },
	{ "from", "delay 10ms", "str", "step: the SPEC before (the box's start)" },
	{ "to", "delay 40ms", "str", "step: the SPEC after" },
	{ "at", 1, "num", "step: when it changes (s from the start)", min = 0 },
	{ "delay_ms", 20, "num", "sine: the mean delay (ms)", min = 0 },
	{ "amp_ms", 10, "num", "sine: the amplitude (ms)", min = 0 },
	{ "period", 2, "num", "sine: its period (s)", above = 0 },
	{ "every", 0.1, "num", "sine: a change every (s)", min = 0.001 },
	{ "extra", nil, "str", "sine: SPEC words added to each (e.g. 'loss 1%')" },
	{ "trace", nil, "str", "trace: the file (see the top of this script)" },
	{ "duration", 3, "num", "seconds the box runs", above = 0 },
	{ "delay_max", nil, "str", "the box's delay_max (default: the schedule's greatest delay)" },
	{ "port", nil, "str", "the box's port (default: a virtual testbed with gen and rx)" },
	{ "peer", nil, "str", "the box's other port, with port=" },
	{ "rate", 20000, "any", "virtual testbed: gen's rate" },
	{ "series", 0.1, "num", "virtual testbed: rx's series period (s)", min = 0.001 },
	{ "json", nil, "out", "the result document" },
}, "a delay box whose impairments follow a schedule (step, sine, trace)")

local function spec_of(delay, loss, jitter)
	local s = ("delay %.6gms"):format(delay)
	if jitter and jitter > 0 then s = s .. (" %.6gms"):format(jitter) end
	if loss and loss > 0 then s = s .. (" loss %.6g%%"):format(loss) end
	return s
end

-- The schedule: { t = s from the start, spec = SPEC }, in time order,
-- the first at 0.
local sched = {}
if opt.shape == "step" then
	sched = { { t = 0, spec = opt.from }, { t = opt.at, spec = opt.to } }
elseif opt.shape == "sine" then
	if opt.amp_ms > opt.delay_ms then
		testbed.usage_error(("amp_ms=%g is above delay_ms=%g: a delay below 0")
		                    :format(opt.amp_ms, opt.delay_ms))
	end
	local t = 0
	while t < opt.duration do
		local d = opt.delay_ms + opt.amp_ms * math.sin(2 * math.pi * t / opt.period)
		local s = spec_of(d)
		if opt.extra then s = s .. " " .. opt.extra end
		sched[#sched + 1] = { t = t, spec = s }
		t = t + opt.every
	end
else
	if not opt.trace then testbed.usage_error("shape=trace needs trace=FILE") end
	local f, err = io.open(opt.trace, "rb")
	if not f then testbed.usage_error(("trace=%s: %s"):format(opt.trace, err)) end
	-- Read whole, to a bound: a file without an end (trace=/dev/zero)
	-- or without a newline is an error, not a line read for ever.
	local max = 16 * 1024 * 1024
	local data, rerr = f:read(max + 1)
	f:close()
	if rerr then testbed.usage_error(("trace=%s: %s"):format(opt.trace, rerr)) end
	data = data or ""
	if #data > max then
		testbed.usage_error(("trace %s: more than %d MiB: not a trace"):format(opt.trace, max >> 20))
	end
	-- A UTF-8 byte order mark (an editor's on Windows) is no part of line 1.
	data = data:gsub("^\239\187\191", "")
	local n = 0
	for line in (data .. "\n"):gmatch("([^\n]*)\n") do
		n = n + 1
		if line:find("%z") then
			testbed.usage_error(("trace %s line %d: a NUL byte: not a text line"):format(opt.trace, n))
		end
		line = line:gsub("#.*", ""):match("^%s*(.-)%s*$")
		if line ~= "" then
			local t, rest = line:match("^([%d%.eE+-]+)[%s,]+(.+)$")
			t = tonumber(t)
			local bad = ("trace %s line %d"):format(opt.trace, n)
			if not t or t < 0 then
				testbed.usage_error(bad .. ": want a time (s) then a SPEC or delay_ms[,loss_pct[,jitter_ms]]")
			end
			if #sched > 0 and t <= sched[#sched].t then
				testbed.usage_error(("%s: time %g is not after %g"):format(bad, t, sched[#sched].t))
			end
			local spec = rest
			if rest:match("^[%d%.+-]") then
				-- Each field a number >= 0 (loss a percentage): "10,-5"
				-- or "10,x" is refused, not read as "delay 10ms".
				local v, ok = {}, true
				for x in rest:gmatch("[^%s,]+") do
					local num = tonumber(x)
					ok = ok and num ~= nil and num >= 0 and num < math.huge
					v[#v + 1] = num or 0
				end
				if not ok or #v == 0 or #v > 3 or (v[2] and v[2] > 100) then
					testbed.usage_error(bad .. ": want delay_ms[,loss_pct[,jitter_ms]]: numbers >= 0, loss 0..100")
				end
				spec = spec_of(v[1], v[2], v[3])
			end
			sched[#sched + 1] = { t = t, spec = spec, where = bad }
		end
	end
	if #sched == 0 then testbed.usage_error(("trace %s: no line"):format(opt.trace)) end
	if sched[1].t ~= 0 then table.insert(sched, 1, { t = 0, spec = "delay 0ms" }) end
end

-- Every SPEC checked before anything starts: a bad one is the schedule's
-- error, not a failure in the middle of the run. The box's delay_max is the
-- greatest delay any of them can draw (a table's tail included), unless
-- given.
local dmax_ns = 0
for i, e in ipairs(sched) do
	local lo, hi = linerate.netem_bounds(e.spec)
	if not lo then
		testbed.usage_error(("%s (at %g s, change %d): %s"):format(
		    e.where or opt.shape, e.t, i, hi))
	end
	dmax_ns = math.max(dmax_ns, hi)
end
if opt.delay_max then
	local lo, hi = linerate.netem_bounds("delay " .. opt.delay_max)
	if not lo or hi < dmax_ns then
		testbed.usage_error(("delay_max=%s: want a time (200ms) no shorter than "
		                     .. "the schedule's greatest delay, %.6g ms")
		                    :format(opt.delay_max, dmax_ns / 1e6))
	end
	dmax_ns = hi
end
dmax_ns = math.max(dmax_ns, 1000)

linerate.live(false)
local gen, rx, a, b
if opt.port then
	if not opt.peer then testbed.usage_error("port= needs peer=") end
	a, b = assert(linerate.port(opt.port)), assert(linerate.port(opt.peer))
else
	local g, r
	g, a = assert(linerate.wire("sched_in"))
	b, r = assert(linerate.wire("sched_out"))
	rx = assert(linerate.task{ role = "rx", port = r })
	gen = assert(linerate.task{ role = "gen", port = g, rate = opt.rate,
	                            duration = opt.duration })
	linerate.series(opt.series)
end
local box = assert(linerate.task{ role = "delay", port = a, peer = b,
                                  netem = sched[1].spec,
                                  delay_max = ("%dns"):format(dmax_ns),
                                  -- what came in the last moment leaves too
                                  duration = opt.duration + dmax_ns / 1e9 + 0.2 })
linerate.start()
local t0 = linerate.now()
for i = 2, #sched do
	local e = sched[i]
	if e.t >= opt.duration then break end
	local wait = t0 + e.t - linerate.now()
	if wait > 0 then linerate.sleep(wait) end
	box:set{ netem = e.spec }
end
if gen then assert(gen:wait(opt.duration + 10)) end
assert(box:wait(opt.duration + 10))
if rx then rx:wait{ idle = 0.2, timeout = 10 } end
linerate.stop()

local problems = {}
local fwd = box:stats().forward
local changes, counts = fwd.netem_changes, fwd.netem_changes_counts
print(("%10s %10s %9s  %s"):format("asked s", "applied s", "taken us", "SPEC"))
print(("%10.4f %10s %9s  %s"):format(0, "start", "", sched[1].spec))
for _, c in ipairs(changes) do
	local applied = type(c.applied_s) == "number" and c.applied_s or nil
	print(("%10.4f %10s %9s  %s"):format(c.asked_s,
	      applied and ("%.4f"):format(applied) or "none",
	      applied and ("%.1f"):format((applied - c.asked_s) * 1e6) or "",
	      c.netem))
	if not applied then
		problems[#problems + 1] = ("change to '%s' not taken: %s"):format(c.netem,
		                                                                c.why_not or "?")
	end
end
-- The list holds the last 64 changes; the counts cover every one.
if counts.listed < counts.asked then
	print(("(%d earlier changes not listed)"):format(counts.asked - counts.listed))
end
local missed = counts.replaced + counts.ended
local listed_missed = #problems
if missed > listed_missed then
	problems[#problems + 1] = ("%d more changes not taken before the last %d listed")
		:format(missed - listed_missed, #changes)
end
if rx then
	local doc = linerate.results()
	-- t: the end of each interval, from the process's start
	print(("%8s %10s %12s %12s"):format("t s", "received", "p50 ms", "p99 ms"))
	for _, s in ipairs(doc.series or {}) do
		print(("%8.2f %10d %12s %12s"):format(s.t_s, s.received, testbed.num(s.lat_p50_ns and s.lat_p50_ns / 1e6, "%.3f"),
		      testbed.num(s.lat_p99_ns and s.lat_p99_ns / 1e6, "%.3f")))
	end
	local st, g = rx:stats(), gen:stats()
	print(("sent %d, received %d, lost %d (late %d: frames overtaken after a step down)")
	      :format(g.tx_packets, st.received, st.lost, st.late))
	if st.received > g.tx_packets then
		problems[#problems + 1] = ("received %d > sent %d"):format(st.received, g.tx_packets)
	end
end
if opt.json then assert(linerate.write_json(opt.json)) end
testbed.finish(problems)
