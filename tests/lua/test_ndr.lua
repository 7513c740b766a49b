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
		local over = math.max(0, math.floor((pps - d.capacity) * T - (d.queue or 0)))
		local left = sent - over
		local burst = math.min(left, d.burst or 0)
		left = left - burst
		local lost = over + burst + draws(left, d.loss or 0)
		return { pps = pps, sent = sent, received = sent - lost, lost = lost,
		         invalid = false, achieved_pps = pps }
	end
end

local function ratio(t) return t.sent > 0 and t.lost / t.sent or 1 end
local function nd(t) return t.lost == 0 end

-- NDR then PDR, as rfc2544.lua runs them.
local function run(d, o)
	o = o or {}
	local known = {}
	local s = { top = o.top or 14880952, try = device(d), known = known,
	            resolution = o.resolution or 0.5, steps = o.steps or 20,
	            guess = o.guess or 5, trial_s = d.trial_s or 1 }
	s.ok = nd
	local n = ndr.search(s)
	s.ok = function(t) return ratio(t) <= (o.pdr or 0.001) end
	local p = ndr.search(s)
	return n, p, known
end

local function near(x, want, rel) return math.abs(x - want) <= want * rel end

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

print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
