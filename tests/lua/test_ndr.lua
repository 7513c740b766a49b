-- test_ndr.lua: lua/lib/ndr.lua's search against simulated devices, with
-- no DPDK: a device of a capacity and a queue, one with a steady random
-- loss, one that loses a burst at the start of every trial, and testers
-- that cannot offer every rate (a ceiling, a noisy host). Run by meson
-- (suite unit) as: lua5.4 tests/lua/test_ndr.lua LUA_DIR
package.path = (arg[1] or "lua") .. "/lib/?.lua;" .. package.path
local ndr = require("ndr")

local failed, passed = 0, 0
local function check(cond, what, ...)
	if cond then
		passed = passed + 1
	else
		failed = failed + 1
		io.stderr:write("FAIL: " .. what:format(...) .. "\n")
	end
end

-- Frames lost to a random loss of probability p among n: a Poisson draw
-- (small means) or a normal one, from a seeded generator.
local function draws(n, p)
	local m = n * p
	if m <= 0 then return 0 end
	if m < 30 then
		local l, k, q = math.exp(-m), 0, math.random()
		while q > l do k = k + 1; q = q * math.random() end
		return math.min(k, n)
	end
	local u1, u2 = math.random(), math.random()
	local z = math.sqrt(-2 * math.log(1 - u1)) * math.cos(2 * math.pi * u2)
	return math.max(0, math.min(n, math.floor(m + z * math.sqrt(m * (1 - p)) + 0.5)))
end

-- A device: capacity pps, queue frames, steady loss p, burst frames lost
-- at the start of each trial. A tester: ceiling pps (above it a trial is
-- invalid: the generator fell short), noise (the probability that a trial
-- is spoiled by the host: invalid, whatever its rate).
local function device(d)
	local trials = 0
	return function(pps)
		trials = trials + 1
		local T = d.trial_s or 1
		local sent = math.floor(pps * T)
		if (d.ceiling and pps > d.ceiling) or
		    (d.noise and math.random() < d.noise) then
			return { pps = pps, invalid = true, why = "gen short",
			         sent = math.floor(math.min(pps, d.ceiling or pps) * T),
			         received = 0, lost = 0,
			         achieved_pps = math.min(pps, d.ceiling or pps) * 0.98 }
		end
		-- A host that stalls the generator: it gives up what it owed
		-- (a gap, no burst), falls short of pps, and the device sees
		-- less, never more, than the paced load.
		local offered = pps
		if d.stalls and math.random() < d.stalls then
			offered = pps * (1 - (d.gap or 0.02))
			sent = math.floor(offered * T)
		end
		local over = math.max(0, math.floor((offered - d.capacity) * T - (d.queue or 0)))
		local left = sent - over
		local burst = math.min(left, d.burst or 0)
		left = left - burst
		local lost = over + burst + draws(left, d.loss or 0)
		-- The tester's own drops (a receiver that fell behind), counted
		-- apart: the device's share is what is left.
		local tester = 0
		if d.tester_drops and math.random() < d.tester_drops then
			tester = 100
			lost = lost + tester
		end
		return { pps = pps, sent = sent, received = sent - lost, lost = lost,
		         lost_dut = lost - tester, invalid = false, achieved_pps = offered,
		         pass_pps = offered < pps and offered or nil }
	end
end

local function ratio(t) return t.sent > 0 and t.lost / t.sent or 1 end
-- As rfc2544.lua judges: a pass counting every frame lost, a failure
-- counting the device's alone, else the tester's share decides (nil).
local function judged(t, okf)
	if okf(t.lost, t.sent) then return true end
	if not okf(t.lost_dut or t.lost, t.sent) then return false end
	return nil
end
local function nd(t) return judged(t, function(l) return l == 0 end) end

-- NDR then PDR, as rfc2544.lua runs them.
local function run(d, o)
	o = o or {}
	local known = {}
	local s = { top = o.top or 14880952, try = device(d), known = known,
	            resolution = o.resolution or 0.5, steps = o.steps or 20,
	            guess = o.guess or 5, trial_s = d.trial_s or 1 }
	s.ok = nd
	local n = ndr.search(s)
	s.ok = function(t)
		return judged(t, function(l, n) return (n > 0 and l / n or 1) <= (o.pdr or 0.001) end)
	end
	local p = ndr.search(s)
	return n, p, known
end

local function near(x, want, rel) return math.abs(x - want) <= want * rel end

local stalls_dut = 0
for seed = 1, 20 do
	math.randomseed(seed)
	-- Capacity and a queue only: the NDR is the capacity (to the
	-- resolution, plus what the queue hides in a trial); so is the PDR.
	local C = 1e6 + seed * 12345
	local n, p = run{ capacity = C, queue = 1000 }
	check(n.limited_by == "dut" and n.lo <= C + 1000 and n.lo >= C * 0.99,
	      "seed %d capacity: NDR %s %s of %.0f", seed, n.lo, n.limited_by, C)
	check(p.limited_by == "dut" and p.lo >= n.lo and p.lo <= C * 1.002 + 1000,
	      "seed %d capacity: PDR %.0f %s", seed, p.lo, p.limited_by)
	-- A steady random loss below the PDR's ratio at every rate up to the
	-- capacity: the NDR is at the bottom (every trial with frames loses
	-- some), the PDR at the capacity (the issue's case: it ended where the
	-- NDR search did).
	math.randomseed(seed)
	n, p = run{ capacity = C, queue = 1000, loss = 1e-4 }
	check(n.limited_by == "dut" and n.lo < C * 0.1, "seed %d lossy: NDR %.0f %s",
	      seed, n.lo, n.limited_by)
	check(p.limited_by == "dut" and near(p.lo, C, 0.01) and p.best and
	      ratio(p.best) <= 0.001, "seed %d lossy: PDR %.0f of capacity %.0f (%s)",
	      seed, p.lo, C, p.limited_by)
	-- A burst of 50 frames lost at the start of each trial: no NDR; the PDR
	-- is where 50 frames are at most 0.1 % of a trial's (50000 pps).
	math.randomseed(seed)
	n, p = run{ capacity = C, burst = 50 }
	check(n.limited_by == "dut" and n.lo < 100, "seed %d burst: NDR %.0f", seed, n.lo)
	check(p.limited_by == "dut" and p.lo >= 50000 * 0.99 and near(p.lo, C, 0.01),
	      "seed %d burst: PDR %.0f", seed, p.lo)
	-- The tester cannot offer past 400 kpps, the device passes 1 Mpps:
	-- a lower bound said as the tester's, never the device's.
	math.randomseed(seed)
	n, p = run{ capacity = C, ceiling = 4e5 }
	check(n.limited_by == "tester" and n.lo <= 4e5 and n.lo >= 4e5 * 0.98,
	      "seed %d ceiling: NDR %.0f %s", seed, n.lo, n.limited_by)
	check(p.limited_by == "tester", "seed %d ceiling: PDR %s", seed, p.limited_by)
	-- ... and with the ceiling as the search's top (rfc2544's calibration):
	-- a pass at the top.
	math.randomseed(seed)
	n = run({ capacity = C, ceiling = 4e5 }, { top = 4e5 })
	check(n.limited_by == "top" and n.lo == 4e5, "seed %d top: %s", seed, n.limited_by)
	-- A noisy host spoils a third of the trials: never an answer above
	-- the device's capacity, and a "dut" only where a valid trial failed.
	math.randomseed(seed)
	n, p, known = run{ capacity = C, queue = 1000, noise = 0.33 }
	check(n.lo <= C + 1000 and p.lo <= C * 1.002 + 1000,
	      "seed %d noise: NDR %.0f PDR %.0f above %.0f", seed, n.lo, p.lo, C)
	check(n.limited_by ~= "dut" or (n.hi_trial and not n.hi_trial.invalid and
	      n.hi - n.lo <= n.hi * 0.005 and
	      n.hi_trial.lost > 0), "seed %d noise: dut without a valid failure", seed)
	check(n.limited_by ~= "top", "seed %d noise: top passed", seed)
	-- The same noise near the answer is tried again (repeats): most
	-- searches end with the device's limit, not the tester's (28 of 40
	-- with 2 repeats, 5 of 40 with none).
	if seed == 1 then
		local dut = 0
		for k = 1, 40 do
			math.randomseed(1000 + k)
			local nn = run{ capacity = C, queue = 1000, noise = 0.33 }
			if nn.limited_by == "dut" and nn.lo <= C + 1000 and nn.lo >= C * 0.99 then
				dut = dut + 1
			end
		end
		check(dut >= 25, "noise with repeats: %d of 40 searches found the device's limit", dut)
	end
	-- A host that stalls the generator (a gap of 2 % in half the trials):
	-- no loss of the device's is added, a pass counts at what was
	-- offered, and the answer is the device's, never above its capacity.
	math.randomseed(seed)
	n, p = run{ capacity = C, queue = 1000, stalls = 0.5, gap = 0.02 }
	check(n.lo <= C + 1000 and n.rate == n.lo and n.lo <= n.best.pps and
	      (n.limited_by ~= "dut" or n.lo >= C * 0.97) and
	      (n.limited_by == "dut" or n.limited_by == "tester"),
	      "seed %d stalls: NDR %.0f %s of %.0f", seed, n.lo, tostring(n.limited_by), C)
	stalls_dut = stalls_dut + (n.limited_by == "dut" and 1 or 0)
	-- A receiver that drops 100 frames in a fifth of the trials: such a
	-- trial is the device's only where its own loss decides; the NDR
	-- stays the device's (repeats), the PDR ignores 100 of 1e6.
	math.randomseed(seed)
	n, p = run{ capacity = C, queue = 1000, tester_drops = 0.2 }
	check(n.lo <= C + 1000 and (n.limited_by ~= "dut" or n.lo >= C * 0.99),
	      "seed %d tester drops: NDR %.0f %s", seed, n.lo, tostring(n.limited_by))
	check(p.limited_by == "dut" and p.lo >= C * 0.99 and p.lo <= C * 1.002 + 1000,
	      "seed %d tester drops: PDR %.0f %s", seed, p.lo, tostring(p.limited_by))
	-- A host that spoils every trial: no answer at all, and why.
	math.randomseed(seed)
	n = run{ capacity = C, noise = 1 }
	check(n.limited_by == nil and n.best == nil and n.why, "seed %d all invalid: %s",
	      seed, tostring(n.limited_by))
	-- Too few steps for the resolution: a bound, never the device's limit.
	math.randomseed(seed)
	n = run({ capacity = C, queue = 1000 }, { steps = 3 })
	check(n.limited_by == "steps" and n.lo < C and n.why, "seed %d steps: %s",
	      seed, tostring(n.limited_by))
	-- A device faster than the top: a pass at the top in one trial.
	n = run{ capacity = 2e7 }
	check(n.limited_by == "top" and n.trials == 1, "top: %s in %d", n.limited_by, n.trials)
	-- The PDR search takes the NDR's trials: a top passed by the NDR ends
	-- the PDR with no new trial.
	local _, pp = run{ capacity = 2e7 }
	check(pp.trials == 0 and pp.limited_by == "top", "pdr after top: %d", pp.trials)
end

-- Scripted trials: two passes short of their rate, then a failure the
-- device's counters hold, at the one rate: the device's limit (before,
-- the first short pass was taken for the upper end: "tester"); a failure
-- whose generator was short is still the device's.
do
	local seq = { { 0.6, 0 }, { 0.9, 0 }, { 0.99, 13 } }
	local k = 0
	local known = { { pps = 198000, sent = 198000, lost = 0, lost_dut = 0 },
	                { pps = 219000, sent = 219000, lost = 2000, lost_dut = 2000 } }
	local r = ndr.search{ top = 743000, known = known, resolution = 1, steps = 3,
	                      ok = nd, try = function(pps)
		k = k + 1
		local f, lost = seq[k][1], seq[k][2]
		return { pps = pps, sent = math.floor(pps * f), lost = lost, lost_dut = lost,
		         received = math.floor(pps * f) - lost, achieved_pps = pps * f,
		         pass_pps = f < 0.999 and pps * f or nil }
	end }
	check(r.limited_by == "steps" or r.limited_by == "dut", "short passes then a fail: %s (%s)",
	      tostring(r.limited_by), tostring(r.why))
	check(r.hi_trial and r.hi_trial.lost == 13, "short passes then a fail: upper end %s",
	      r.hi_trial and r.hi_trial.lost or "none")
	-- Every trial lost all it sent (a device that holds them past the
	-- trial), the generator short: the device's, no NDR above 0.
	r = ndr.search{ top = 148810, known = {}, resolution = 1, steps = 1, ok = nd,
	                try = function(pps)
		return { pps = pps, sent = 147629, lost = 147629, lost_dut = 147629, received = 0,
		         achieved_pps = 147629, pass_pps = 147629 }
	end }
	check(r.limited_by == "dut" and r.best == nil, "all lost, short: %s (%s)",
	      tostring(r.limited_by), tostring(r.why))
end

-- The top passed short of its rate (a stall of the generator), then
-- whole: the top, in two trials (before: "tester" after the first).
do
	local k = 0
	local r = ndr.search{ top = 1e6, known = {}, resolution = 1, steps = 10, ok = nd,
	                      try = function(pps)
		k = k + 1
		local f = k == 1 and 0.97 or 1
		return { pps = pps, sent = pps * f, lost = 0, lost_dut = 0, received = pps * f,
		         achieved_pps = pps * f, pass_pps = f < 1 and pps * f or nil }
	end }
	check(r.limited_by == "top" and r.trials == 2 and r.rate == 1e6,
	      "top short then whole: %s in %d", tostring(r.limited_by), r.trials)
end

-- The top passed short (90.2 of 100 offered), every rate tried above
-- 90.3 a failure the device's own: its limit, not the tester's.
do
	local k = 0
	local r = ndr.search{ top = 100, known = {}, resolution = 0.5, steps = 10, ok = nd,
	                      try = function(pps)
		k = k + 1
		if k == 1 then
			return { pps = pps, sent = 90.2, lost = 0, received = 90.2,
			         achieved_pps = 90.2, pass_pps = 90.2 }
		end
		local lost = pps > 90.3 and 1 or 0
		return { pps = pps, sent = pps, lost = lost, received = pps - lost, achieved_pps = pps }
	end }
	check(r.limited_by == "dut" and r.lo >= 90.2 and r.hi <= 90.3 / 0.995,
	      "short top, failures above: %s %s..%s", tostring(r.limited_by), r.lo, r.hi)
end

-- A PDR search that starts where the NDR passed, within the resolution
-- of its top (the tester's ceiling), whose try of the top passed short
-- (the generator sent 90 of 100): nothing above to try, the answer within
-- the resolution of the top; the top bounds it, not "none" (test_rfc2544's
-- tester-limited run under two busy loops, once).
do
	local known = { { pps = 98.9, sent = 98.9, lost = 0, received = 98.9,
	                  achieved_pps = 98.9 } }
	local r = ndr.search{ top = 100, known = known, resolution = 2, steps = 8,
	                      ok = function(t) return t.lost / t.sent <= 0.01 end,
	                      try = function(pps)
		return { pps = pps, sent = 90, lost = 0, received = 90, achieved_pps = 90,
		         pass_pps = 90 }
	end }
	check(r.limited_by == "top" and r.rate == 98.9,
	      "within the resolution of the top: %s %s", tostring(r.limited_by),
	      tostring(r.rate))
end

-- Half the trials short by 2 %: the device's limit in most searches (a
-- rate tried three times short each time is the tester's bound).
check(stalls_dut >= 16, "stalls: %d of 20 searches found the device's limit", stalls_dut)

print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
