-- delay-loop.lua: measure a path, make a netem table of it, emulate it,
-- and compare: the seed's workflow (UvA, 184 ms Amsterdam - San Diego:
-- measured RTTs -> maketable -> tc netem ... distribution FILE) in one tool.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/delay-loop.lua
--
-- 1. measure: gen -> the path -> rx, which keeps its latency samples and
--    writes them as a netem table (rx's dist_out: maketable's algorithm).
--    The path here is itself a delay role with path=SPEC (a stand-in for a
--    real one: give the rx task a real port instead).
-- 2. emulate: gen -> delay "delay MU SIGMA distribution TABLE" -> rx, with
--    MU and SIGMA the samples' mean and deviation, as maketable prints them.
-- 3. compare: quantiles side by side, and the two-sample KS statistic.
--
-- `help` lists the arguments (key=value).
local testbed = require("testbed")
local opt = testbed.params(arg, {
	{ "path", "delay 5ms 300us distribution paretonormal", "str",
	  "the path measured (a delay role with this netem SPEC)" },
	{ "count", 20000, "int", "frames each stage", min = 1 },
	{ "rate", 100000, "any", "gen's rate each stage", min = 0 },
	{ "dir", "/tmp", "dir", "where the table and the samples go" },
	{ "seconds", 1, "num", "how long rx waits for the last frame", min = 0 },
}, "measure a path, make a netem table of it, emulate it, compare")
linerate.live(false)
local tag = tostring(os.time()) .. "_" .. tostring(math.random(1e6))
local table_file = ("%s/lr_loop_%s.dist"):format(opt.dir, tag)
local files = {
	measured = ("%s/lr_loop_%s_measured.txt"):format(opt.dir, tag),
	emulated = ("%s/lr_loop_%s_emulated.txt"):format(opt.dir, tag),
}
-- Its table and samples go however the run ends (an error, Ctrl-C).
local cleanup <close> = setmetatable({}, { __close = function()
	os.remove(files.measured)
	os.remove(files.emulated)
	os.remove(table_file)
end })

local g, a = assert(linerate.wire("loop_in"))
local b, r = assert(linerate.wire("loop_out"))

-- One stage: frames through a delay role with SPEC, rx keeping samples.
local function stage(spec, samples, dist_out)
	local rx = assert(linerate.task{ role = "rx", port = r, flows = 4,
	                                 samples_out = samples, dist_out = dist_out })
	local d = assert(linerate.task{ role = "delay", port = a, peer = b,
	                                netem = spec })
	local gen = assert(linerate.task{ role = "gen", port = g, flows = 4,
	                                  count = opt.count, rate = opt.rate })
	linerate.start()
	assert(gen:wait(120))
	rx:wait{ idle = opt.seconds, timeout = 120 }
	linerate.stop()
	local st = rx:stats()
	-- A stage the tester cannot stand behind (gen short, the box late)
	-- ends the run here, said, not compared as if it measured the path.
	testbed.finish()
	assert(st.received == opt.count, ("%s: %d of %d frames arrived"):format(
		spec, st.received, opt.count))
	-- Frames the delay role sent late say the lcore was not free (another
	-- busy process on its CPU): then the samples measure the machine.
	local late = d:stats().forward.lateness
	if late and late.p99_ns and late.p99_ns > 100000 then
		print(("warning: '%s': 1 %% of the frames left over %.0f us late: "
		       .. "the lcore's CPU was busy, the samples are not the path's")
		      :format(spec, late.p99_ns / 1e3))
	end
	return d
end

local function read_samples(path)
	local v = {}
	for line in io.lines(path) do v[#v + 1] = tonumber(line) end
	table.sort(v)
	return v
end

local function mean_sd(v)
	local s, ss = 0, 0
	for _, x in ipairs(v) do s = s + x; ss = ss + x * x end
	local m = s / #v
	return m, math.sqrt((ss - #v * m * m) / (#v - 1))
end

local function quantile(v, q)
	return v[math.max(1, math.min(#v, math.floor(q * #v + 0.5)))]
end

-- Two-sample Kolmogorov-Smirnov statistic of sorted v and w.
local function ks(v, w)
	local i, j, d = 1, 1, 0
	while i <= #v and j <= #w do
		if v[i] <= w[j] then i = i + 1 else j = j + 1 end
		d = math.max(d, math.abs((i - 1) / #v - (j - 1) / #w))
	end
	return d
end

stage(opt.path, files.measured, table_file)
local m = read_samples(files.measured)
local mu, sigma = mean_sd(m)
local emulate = ("delay %.0fns %.0fns distribution %s"):format(mu, sigma, table_file)
print(("measured %d samples through '%s': mean %.3f us, deviation %.3f us")
      :format(#m, opt.path, mu / 1e3, sigma / 1e3))
print(("table %s; emulating with '%s'"):format(table_file, emulate))
stage(emulate, files.emulated)
local e = read_samples(files.emulated)

print(("%-8s %14s %14s"):format("quantile", "measured us", "emulated us"))
for _, q in ipairs({ 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999 }) do
	print(("%-8s %14.3f %14.3f"):format(q, quantile(m, q) / 1e3, quantile(e, q) / 1e3))
end
local d = ks(m, e)
-- The two-sample KS critical value at alpha = 0.001.
local crit = 1.95 * math.sqrt((#m + #e) / (#m * #e))
print(("KS statistic %.4f (%s the 0.1 %% critical value %.4f)")
      :format(d, d <= crit and "below" or "above", crit))
