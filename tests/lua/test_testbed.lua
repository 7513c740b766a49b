-- test_testbed.lua: lua/lib/testbed.lua's argument checks and units, with
-- no DPDK (linerate's module stubbed). Run by meson (suite unit) as:
-- lua5.4 tests/lua/test_testbed.lua LUA_DIR
package.path = (arg[1] or "lua") .. "/lib/?.lua;" .. package.path
-- linerate's module is C: its speed parser (linerate.parse_bps, tested in
-- tests/unit/common and tests/unit/lua) answers here for the speeds these
-- cases give, and only those.
local speeds = { ["10G"] = 1e10, ["40G"] = 4e10, ["40Gbps"] = 4e10, ["10"] = 10 }
package.loaded.linerate = {
	parse_bps = function(s) return speeds[s] end,
}
local testbed = require("testbed")

local failed, passed = 0, 0
local real_stderr = io.stderr
local function check(cond, what, ...)
	if cond then
		passed = passed + 1
	else
		failed = failed + 1
		real_stderr:write("FAIL: " .. what:format(...) .. "\n")
	end
end

-- testbed.usage_error ends the process: here it raises what it would say.
local real_exit, said = os.exit, nil
local stderr = io.stderr
io.stderr = { write = function(_, s) said = s end }
os.exit = function(code) error({ code = code }, 0) end
local function try(argv, spec)
	said = nil
	local ok, r = pcall(testbed.params, argv, spec)
	if ok then return r end
	return nil, r.code, said
end

-- A number is taken as it is; a string goes to linerate.parse_bps.
check(testbed.bps(40e9) == 40e9 and testbed.bps(0 / 0) == nil and
      testbed.bps(-1) == nil, "bps of numbers")
check(testbed.bps("10G") == 1e10 and testbed.bps("10Q") == nil, "bps of strings")

local spec = {
	{ "pdr", 0.001, "num", above = 0, below = 1 },
	{ "steps", 20, "int", min = 1, max = 1000 },
	{ "speed", "10G", "bps", min = 1e6 },
	{ "sizes", "64,128", "sizes", min = 64, max = 9018 },
	{ "dut", "wire", "choice", choices = { "wire", "delay" } },
	{ "quiet", 0, "bool" },
}
local r = try({}, spec)
check(r and r.pdr == 0.001 and r.steps == 20 and r.speed == 1e10 and #r.sizes == 2 and
      r.dut == "wire" and r.quiet == false, "defaults")
r = try({ "speed=40Gbps", "sizes=1518", "quiet=1" }, spec)
check(r and r.speed == 4e10 and r.sizes[1] == 1518 and r.quiet == true, "values")
for _, c in ipairs{ { "pdr=2", "pdr < 1" }, { "pdr=0", "0 < pdr" }, { "steps=0", "1 <= steps" },
                    { "steps=1.5", "an integer" }, { "speed=10", "1e+06 <= speed" },
                    { "sizes=32", "integers 64..9018" }, { "sizes=", "at least one" },
                    { "dut=router", "wire, delay" }, { "quiet=2", "0 or 1" },
                    { "nokey=1", "no such key" }, { "pdr", "want key=value" },
                    { "pdr=nan", "a number" }, { "steps=inf", "an integer" } } do
	local _, code, msg = try({ c[1] }, spec)
	check(code == 2 and msg and msg:find(c[2], 1, true) and not msg:find("\n.", 1),
	      "%s: exit %s, %s", c[1], tostring(code), tostring(msg))
end

-- The defaults form: a number's key takes a finite number >= 0 (rate=
-- also a string with its unit).
local function try_args(argv, defaults)
	said = nil
	local ok, r = pcall(testbed.args, argv, defaults)
	if ok then return r end
	return nil, r.code, said
end
local d = { count = 1000, rate = 100000, mode = "wire" }
r = try_args({ "count=5", "rate=1Mpps", "mode=memif" }, d)
check(r and r.count == 5 and r.rate == "1Mpps" and r.mode == "memif", "args values")
for _, a in ipairs{ "count=-5", "count=lots", "count=nan", "count=inf", "rate=-1" } do
	local _, code, msg = try_args({ a }, d)
	check(code == 2 and msg and msg:find("want a number", 1, true), "%s: %s", a, tostring(msg))
end
-- A typo is said, not run with the default; the testbed's keys are known.
local _, code, msg = try_args({ "cout=5" }, d)
check(code == 2 and msg and msg:find("no such key", 1, true), "typo: %s", tostring(msg))
r = try_args({ "peer_eal=-m 64", "mtu=1500" }, d)
check(r and r.peer_eal == "-m 64" and r.mtu == 1500, "testbed keys through args")

-- testbed.with: a scenario's entries first, then the testbed's; its own
-- entry for a testbed key stands.
local w = testbed.with({ { "count", 5, "int" }, { "mode", "memif", "choice",
                         choices = { "memif" } } })
local names = {}
for _, e in ipairs(w) do names[#names + 1] = e[1] end
check(table.concat(names, ",") == "count,mode,tx,rx,mtu,speed,peer_eal", "with: %s",
      table.concat(names, ","))
r = try({ "speed=40G" }, w)
check(r and r.mode == "memif" and r.speed == 40000000000 and math.type(r.speed) == "integer"
      and r.mtu == 9000, "with: defaults and speed as an integer")

-- testbed.undetermined: which of a solved device's estimates are none.
local function dev(t)
	local v = { implausible = true, mean_ns = 1000, ci95_mean_ns = { 900, 1100 },
	            min_ns = 500, min_range_ns = { 400, 600 } }
	for k, x in pairs(t) do v[k] = x end
	return v
end
local m, n = testbed.undetermined(dev{ implausible = false, mean_ns = -5 })
check(m == false and n == false, "plausible: %s %s", m, n)
m, n = testbed.undetermined(dev{ mean_ns = -50, ci95_mean_ns = { -80, -20 } })
check(m == true and n == false, "mean below 0: %s %s", m, n)
m, n = testbed.undetermined(dev{ min_ns = -50, min_range_ns = { -90, -10 } })
check(m == false and n == true, "min below 0: %s %s", m, n)
m, n = testbed.undetermined(dev{ min_ns = 1500, min_range_ns = { 1400, 1600 } })
check(m == true and n == false, "min above the mean's interval: the mean: %s %s", m, n)
m, n = testbed.undetermined(dev{ mean_ns = 0 / 0 })
check(m == true, "a NaN mean: %s", m)
-- A flag on the variance alone leaves mean and min standing.
m, n = testbed.undetermined(dev{})
check(m == false and n == false, "variance only: %s %s", m, n)

io.stderr, os.exit = stderr, real_exit
print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
