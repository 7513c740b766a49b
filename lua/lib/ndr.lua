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
--                         guess = 5, trial_s = 1 }
--   -- r.best (the passing trial, or nil), r.lo, r.hi, r.limited_by, r.why
--
-- A trial is a table with pps (the rate it asked), invalid (true when the
-- tester, not the device, spoiled it: the generator fell short, counts
-- that cannot be, the receiver's own drops), and whatever ok() reads;
-- sent, received and achieved_pps help the first guess.
local ndr = {}

-- What bounded a search's answer:
--   "dut"     the lowest rate that did not pass, above the answer, was a
--             valid trial the device failed: the device's own limit
--   "top"     the answer passed at the top of the range (the caller says
--             whose top it was: max=, or the tester's ceiling)
--   "tester"  the lowest rate above the answer that did not pass was an
--             invalid trial: the device passed all the tester could show;
--             the answer is a lower bound
--   "steps"   the device failed above the answer, but the search ran out
--             of steps before the resolution: a lower bound
--   nil       no valid trial at all: no answer (why says so)
local function verdict(s, lo, best, hi_t, n_valid)
	if best and best.pps >= s.top then
		return "top"
	end
	if n_valid == 0 then
		return nil, "no valid trial: the tester offered none of the rates asked"
	end
	if hi_t == nil then
		return nil, "no trial above the answer"
	end
	if hi_t.invalid then
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
-- not pass (a valid failure or an invalid trial) its upper end. Taken in
-- that order, a device whose loss is not monotone in the rate (a steady
-- random loss fails a PDR test at a rate so low that one frame lost is
-- over the ratio) cannot pull the upper end below a rate that passed.
--
-- With nothing known above the start, the first trial is at the top; when
-- it fails, what got through (a valid trial's received / trial_s) or what
-- the tester managed to offer (an invalid trial's achieved_pps) is a
-- guess, and trials at guess -/+ guess % bracket it (TRex's optimised
-- search, checked by trials rather than assumed).
function ndr.search(s)
	local known, ok = s.known or {}, s.ok
	local res, steps, g = s.resolution or 0.5, s.steps or 20, s.guess or 0
	local lo, best, hi, hi_t = 0, nil, s.top, nil
	local n, invalid, n_valid = 0, 0, 0

	local function consider(t)
		if t.invalid or t.pps > s.top then return end
		n_valid = n_valid + 1
		if ok(t) and t.pps > lo then lo, best = t.pps, t end
	end
	for _, t in ipairs(known) do consider(t) end
	local function bound(t)
		-- An invalid trial and a valid failure at one rate: the valid
		-- failure says more (it is the device's).
		if t.pps > lo and (t.pps < hi or t.pps == hi and (hi_t == nil or
		    hi_t.invalid)) and (t.invalid or not ok(t)) then
			hi, hi_t = t.pps, t
		end
	end
	for _, t in ipairs(known) do
		if t.pps <= s.top then bound(t) end
	end

	local function try(pps)
		local t = s.try(pps)
		n = n + 1
		known[#known + 1] = t
		if t.invalid then invalid = invalid + 1 end
		consider(t)
		if best == t then return true, t end
		-- A pass at a rate no higher than the best known keeps hi.
		if not t.invalid and ok(t) then return true, t end
		bound(t)
		return false, t
	end

	if not (best and best.pps >= s.top) then
		if hi_t == nil then
			local pass, t = try(s.top)
			if not pass and n < steps then
				local est
				if t.invalid then
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
		while not (best and best.pps >= s.top) and n < steps and
		    (hi - lo) > hi * res / 100 do
			try((hi + lo) / 2)
		end
	end
	local by, why = verdict(s, lo, best, hi_t, n_valid)
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
	         limited_by = by, why = why }
end

return ndr
