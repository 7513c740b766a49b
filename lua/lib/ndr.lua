-- ndr.lua: the throughput search of RFC 2544 26.1, alone: the highest
-- rate whose trial passes, with what bounded it. No linerate call here:
-- the trial is a function given to it, so that tests/lua/test_ndr.lua runs
-- the search against simulated devices (a capacity, a queue, a steady
-- loss, a burst loss, a noisy host) as TRex's ndr_bench tests its own.
--
--   local ndr = require("ndr")
--   local r = ndr.search{ top = pps, try = function(pps) return trial end,
--                         ok = function(t) return t.lost == 0 end,
--                         known = trials_so_far, resolution = 0.5, steps = 20,
--                         guess = 5, trial_s = 1, repeats = 2 }
--   -- r.best (the passing trial, or nil), r.lo, r.hi, r.limited_by, r.why
--
-- A trial is a table with pps (the rate it asked), invalid (true when the
-- tester, not the device, spoiled it for every test: counts that cannot
-- be, a generator that failed), pass_pps (the rate a pass counts at: what
-- the generator achieved, when it fell short of pps; default pps), and
-- whatever ok() reads; sent, received and achieved_pps help the first
-- guess. ok(t) says true (passed), false (the device failed: a valid
-- trial) or nil (this test cannot tell from it: the tester's share of
-- its loss decides; t.why says whose).
local ndr = {}

-- The rate a passing trial counts at (pass_pps: what the generator
-- achieved, when it fell short of the rate asked).
function ndr.rate(t)
	return math.min(t.pass_pps or t.pps, t.pps)
end

-- What bounded a search's answer:
--   "dut"     the lowest rate that did not pass, above the answer, was a
--             valid trial the device failed: the device's own limit
--   "top"     the answer passed at the top of the range (the caller says
--             whose top it was: max=, or the tester's ceiling)
--   "tester"  the lowest rate above the answer that did not pass was a
--             trial the tester spoiled, each time it was repeated: the
--             device passed all the tester could show; a lower bound
--   "steps"   the device failed above the answer, but the search ran out
--             of steps before the resolution: a lower bound
--   nil       no valid trial at all: no answer (why says so)
local function verdict(s, best, hi_t, n_valid, state, short)
	if best and best.pps >= s.top then
		-- Passed at the top as the generator offered it: short of the
		-- top (beyond the resolution), the tester's bound, unless a
		-- valid failure above the answer (at the top too) says the
		-- device's.
		if short(best) and (hi_t == nil or state(hi_t) == nil) then
			return "tester", ("the top passed at what the generator offered, " ..
			                  "%.0f of %.0f pps"):format(ndr.rate(best), s.top)
		end
		if not short(best) then return "top" end
	end
	if n_valid == 0 then
		return nil, "no valid trial: the tester offered none of the rates asked"
	end
	if hi_t == nil then
		-- Nothing above the answer to try: the range between it and
		-- the top is within the resolution (a PDR whose search starts
		-- at the NDR, one step below the tester's ceiling). The top
		-- bounds it, as a pass there would.
		if best and best.pps >= s.top * (1 - (s.resolution or 0.5) / 100) then
			return "top"
		end
		return nil, "no trial above the answer"
	end
	if state(hi_t) == nil then
		if not hi_t.invalid and short(hi_t) then
			return "tester", ("%.0f pps could not be offered (the generator sent %.0f pps)")
			       :format(hi_t.pps, ndr.rate(hi_t))
		end
		return "tester", ("%.0f pps could not be tried (%s)"):format(hi_t.pps,
		       hi_t.why or "invalid trial")
	end
	return "dut"
end

-- The highest rate in (0, s.top] whose trial passes s.ok, within
-- s.resolution % of the lowest rate above it that did not, in at most
-- s.steps new trials. s.known (a list, appended to) holds the trials of
-- this frame size so far, valid or not: the highest valid pass in it is
-- where the search starts from, and the lowest rate above that which did
-- not pass (a valid failure, or a trial that could not tell and was not
-- passed at that rate or above since) its upper end. Taken in that
-- order, a device whose loss is not monotone in the rate (a steady random
-- loss fails a PDR test at a rate so low that one frame lost is over the
-- ratio) cannot pull the upper end below a rate that passed.
--
-- With nothing known above the start, the first trial is at the top; when
-- it fails, what got through (a valid trial's received / trial_s) or what
-- the tester managed to offer (an invalid trial's achieved_pps) is a
-- guess, and trials at guess -/+ guess % bracket it (TRex's optimised
-- search, checked by trials rather than assumed). A trial that cannot
-- tell at the upper end is tried again, s.repeats more times at most (a
-- stall of the host is not the device's limit), before the search goes
-- on below it.
function ndr.search(s)
	local known, ok = s.known or {}, s.ok
	local res, steps, g = s.resolution or 0.5, s.steps or 20, s.guess or 0
	local repeats = s.repeats or 2
	local lo, best, hi, hi_t = 0, nil, s.top, nil
	local n, invalid, n_valid = 0, 0, 0
	local tries = {}	-- trials so far at each rate (this search's)

	local function judge(t)
		if t.invalid then return nil end
		return ok(t)
	end
	local rate = ndr.rate
	-- A pass short of its rate by more than the resolution: it says
	-- nothing of the rate asked (within it, it is a pass there).
	local function short(t) return t.pps - rate(t) > t.pps * res / 100 end
	local at = {}	-- trials known at each rate
	-- What @p t says of its rate: true, false, or nil (undecided: the
	-- tester spoiled it, or a pass short of its rate, tried there
	-- repeats + 1 times and short each time).
	local function state(t)
		local j = judge(t)
		if j and short(t) and (at[t.pps] or 0) > repeats then return nil end
		return j
	end
	-- lo, best, hi, hi_t from every trial known.
	local function bounds()
		lo, best, hi, hi_t, n_valid = 0, nil, s.top, nil, 0
		at = {}
		for _, t in ipairs(known) do at[t.pps] = (at[t.pps] or 0) + 1 end
		local passed_at = 0	-- the highest rate asked that passed as asked
		for _, t in ipairs(known) do
			if t.pps <= s.top then
				local j = judge(t)
				if j ~= nil then n_valid = n_valid + 1 end
				if j and rate(t) > lo then lo, best = rate(t), t end
				if j and not short(t) and t.pps > passed_at then passed_at = t.pps end
			end
		end
		for _, t in ipairs(known) do
			local j = state(t)
			-- A pass short of its rate bounds nothing until it is
			-- undecided; an undecided trial at a rate that passed since
			-- bounds nothing; of an undecided trial and a valid failure
			-- at one rate, the failure says more.
			if t.pps <= s.top and t.pps > lo and j ~= true and
			    not (j == nil and t.pps <= passed_at) and
			    (t.pps < hi or t.pps == hi and (hi_t == nil or state(hi_t) == nil)) then
				hi, hi_t = t.pps, t
			end
		end
	end
	bounds()

	local function try(pps)
		local t = s.try(pps)
		n = n + 1
		tries[pps] = (tries[pps] or 0) + 1
		known[#known + 1] = t
		if judge(t) == nil then invalid = invalid + 1 end
		bounds()
		return judge(t), t
	end
	-- Passed at the top as asked (within the resolution); a pass short
	-- of it is tried again.
	local function done() return best and best.pps >= s.top and not short(best) end

	if not done() and hi_t == nil then
		local pass, t = try(s.top)
		if not pass and n < steps then
			local est
			if pass == nil then
				est = t.achieved_pps
			elseif s.trial_s and t.received then
				est = t.received / s.trial_s
			end
			if est and est > 0 and g > 0 then
				local a, b = est * (1 - g / 100), est * (1 + g / 100)
				if a > lo and a < hi and try(a) and b > lo and b < hi and
				    n < steps then
					try(b)
				end
			end
		end
	end
	while not done() and n < steps do
		if hi_t and state(hi_t) == nil and (tries[hi_t.pps] or 0) <= repeats then
			try(hi_t.pps)
		elseif best and best.pps >= s.top and (at[s.top] or 0) <= repeats and
		    not (hi_t and hi_t.pps >= s.top and state(hi_t) == false) then
			try(s.top)
		elseif (hi - lo) > hi * res / 100 then
			try((hi + lo) / 2)
		else
			break
		end
	end
	local by, why = verdict(s, best, hi_t, n_valid, state, short)
	-- The device failed above, but the steps ran out before the
	-- resolution: the answer is a lower bound, not the device's limit.
	-- (Nothing passed at all: the device lost frames at every rate down
	-- to the lowest tried, its answer is 0: determined, with hi.)
	if by == "dut" and best and (hi - lo) > hi * res / 100 then
		by, why = "steps", ("%d trials ended the search with the answer between %.0f " ..
		                    "and %.0f pps"):format(steps, lo, hi)
	end
	return { best = best, lo = lo, hi = (by == "top") and s.top or hi,
	         hi_trial = hi_t, trials = n, invalid = invalid,
	         limited_by = by, why = why, rate = best and rate(best) or nil }
end


return ndr
