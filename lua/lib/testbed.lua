-- testbed.lua: where a scenario's gen sends and its rx receives.
--
--   local testbed = require("testbed")
--   local opt = testbed.args(arg, { mode = "wire", seconds = 2 })
--   local tb <close> = testbed.open(opt) -- ports, and the peer process
--   local rx = tb:rx{ flows = 16 }       -- an rx task where the frames arrive
--   local gen = assert(linerate.task{ role = "gen", port = tb.tx, ... })
--   linerate.start(); gen:wait(); local r = tb:rx_done(rx) -- rx's stats()
--   tb:close()
--
-- Modes (mode=):
--   wire   one process, the virtual wire; gen and rx share the worker lcore
--   memif  two processes over net_memif: this one sends, a peer process
--          (lua/lib/peer-rx.lua, started here) receives on its own core
--   ports  one process, real ports: tx=PORT rx=PORT (a loopback cable)
-- Port options for every mode: mtu= (9000 default, for 9018 B frames),
-- speed= (the link speed rates in % refer to: 10G default).
local linerate = require("linerate")

local testbed = {}

-- The testbed's own arguments, which every scenario that opens one takes
-- (testbed.params' entries; testbed.with() adds them to a scenario's).
testbed.spec = {
	{ "mode", "wire", "choice", "where gen sends and rx receives: wire (one " ..
	  "process), memif (a peer process on the other core), ports (tx=, rx=)",
	  choices = { "wire", "memif", "ports" } },
	{ "tx", nil, "str", "mode=ports: the port gen sends on (devargs)" },
	{ "rx", nil, "str", "mode=ports: the port rx receives on (devargs)" },
	{ "mtu", 9000, "int", "the ports' MTU", min = 68, max = 9600 },
	{ "speed", "10G", "bps", "the link speed that rates in % refer to", min = 1e6 },
	{ "peer_eal", "--no-huge -m 512", "str", "mode=memif: the peer's EAL memory options" },
}
testbed.keys = {}
for _, e in ipairs(testbed.spec) do testbed.keys[#testbed.keys + 1] = e[1] end

-- @p spec with the testbed's own arguments after it (a key the scenario
-- describes itself keeps its own entry).
function testbed.with(spec)
	local out, have = {}, {}
	for _, e in ipairs(spec) do out[#out + 1] = e; have[e[1]] = true end
	for _, e in ipairs(testbed.spec) do
		if not have[e[1]] then out[#out + 1] = e end
	end
	return out
end

-- The script's name for its messages: rfc2544 for lua/rfc2544.lua.
local function script_name()
	return (tostring(arg and arg[0] or "scenario"):match("([^/]+)%.lua$")) or
	       tostring(arg and arg[0] or "scenario")
end

-- A bad argument: one line on stderr naming the script, exit 2, as the
-- command line's options do (no traceback: nothing ran yet).
function testbed.usage_error(msg)
	io.stderr:write(("%s: %s\n"):format(script_name(), msg))
	os.exit(2)
end

-- Bits per second from 10G, 10g, 10Gbps, 10Gbit, 10000M, 1e10, 100mbit
-- (k, M, G, T are powers of ten, whatever their case), or nil: read by
-- the C parser port --speed uses (linerate.parse_bps), so that a speed
-- means the same in a scenario and on the command line.
function testbed.bps(v)
	if type(v) == "number" then return v == v and v > 0 and v < math.huge and v or nil end
	return (linerate.parse_bps(tostring(v)))
end

-- Arguments described once: each entry is { key, default, kind, help,
-- min=, max=, above= (exclusive), below= (exclusive), choices= }, kinds:
--   num    a finite number within its range      int   an integer
--   bps    a rate in bit/s (10G, 10Gbps, 1e10)   bool  0 or 1
--   choice one of choices (a string)             str   any string
--   sizes  a comma list of integers in range     set   a comma list of choices
--   nums   a comma list of numbers in range
--   out    a file to write: its directory must exist (checked now)
--   dir    a directory that exists
--   any    a number when it reads as one (then finite and in range), else
--          the string (rate=: 100000, 50%, 1Mpps, max: gen reads them)
-- `help` prints them with their defaults. Every error is one line and
-- exit 2 (testbed.usage_error). Returns the values (sizes and set as
-- lists, bool as a boolean, bps as a number).
local function check_value(e, v)
	local key, kind = e[1], e[3]
	local function bad(want)
		testbed.usage_error(("argument %s=%s: want %s"):format(key, tostring(v), want))
	end
	local function range(x, what)
		if x ~= x or x == math.huge or x == -math.huge then bad(what) end
		if (e.min and x < e.min) or (e.max and x > e.max) or
		   (e.above and x <= e.above) or (e.below and x >= e.below) then
			local lo = e.min and ("%g <= "):format(e.min) or
			           e.above and ("%g < "):format(e.above) or ""
			local hi = e.max and (" <= %g"):format(e.max) or
			           e.below and (" < %g"):format(e.below) or ""
			bad(("%s, %s%s%s"):format(what, lo, key, hi))
		end
		return x
	end
	if kind == "num" then
		return range(tonumber(v) or bad("a number"), "a number")
	elseif kind == "int" then
		local x = math.tointeger(tonumber(v))
		return range(x or bad("an integer"), "an integer")
	elseif kind == "bps" then
		local x = range(testbed.bps(v) or bad("bit/s, e.g. 10G, 10Gbps, 10000M, 1e10"),
		                "bit/s")
		return math.tointeger(x) or x
	elseif kind == "any" then
		local x = tonumber(v)
		if x == nil then
			if tostring(v) == "" then bad("a value") end
			return v
		end
		return range(x, "a number")
	elseif kind == "bool" then
		if v == 1 or v == "1" or v == true or v == "true" or v == "yes" then return true end
		if v == 0 or v == "0" or v == false or v == "false" or v == "no" then return false end
		bad("0 or 1")
	elseif kind == "choice" then
		for _, c in ipairs(e.choices) do
			if tostring(v) == c then return c end
		end
		bad(table.concat(e.choices, ", "))
	elseif kind == "sizes" or kind == "set" or kind == "nums" then
		local list = {}
		for s in tostring(v):gmatch("[^,]+") do
			if kind == "nums" then
				local x = tonumber(s)
				if not x or x ~= x or (e.min and x < e.min) or (e.max and x > e.max) or
				   (e.above and x <= e.above) then
					bad(("numbers%s, comma separated (not '%s')"):format(
					    e.max and (" up to %g"):format(e.max) or "", s))
				end
				list[#list + 1] = x
			elseif kind == "sizes" then
				local x = math.tointeger(tonumber(s))
				if not x or (e.min and x < e.min) or (e.max and x > e.max) then
					bad(("integers %d..%d, comma separated (not '%s')")
					    :format(e.min, e.max, s))
				end
				list[#list + 1] = x
			else
				local found = false
				for _, c in ipairs(e.choices) do found = found or c == s end
				if not found then
					bad(("a comma list of %s (not '%s')")
					    :format(table.concat(e.choices, ", "), s))
				end
				list[#list + 1] = s
			end
		end
		if #list == 0 then bad("at least one value") end
		return list
	elseif kind == "out" then
		local path = tostring(v)
		local dir = path:match("^(.*)/[^/]*$") or "."
		if path == "" or path:sub(-1) == "/" then bad("a file name") end
		local d = io.open(path .. "/.", "r")
		if d then
			d:close()
			bad("a file name, not a directory")
		end
		local f = io.open((dir == "" and "/" or dir) .. "/.", "r")
		if not f then bad(("a file in a directory that exists (no %s)"):format(dir)) end
		f:close()
		return path
	elseif kind == "dir" then
		local f = io.open(tostring(v) .. "/.", "r")
		if not f then bad("a directory that exists") end
		f:close()
		return tostring(v)
	end
	return v
end

-- Write @p text to the file @p path, every write and the close checked
-- (a full disk, /dev/full): true, or nil and what failed.
function testbed.write_file(path, text)
	local f, err = io.open(path, "w")
	if not f then return nil, err end
	local ok, werr = f:write(text)
	local cok, cerr = f:close()
	if not ok then return nil, ("%s: %s"):format(path, tostring(werr)) end
	if not cok then return nil, ("%s: %s"):format(path, tostring(cerr)) end
	return true
end

local function print_help(spec, about)
	local out = {}
	out[#out + 1] = ("%s: %s"):format(script_name(), about or "arguments (key=value)")
	for _, e in ipairs(spec) do
		local d = e[2] == nil and "" or (" (" .. tostring(e[2]) .. ")")
		out[#out + 1] = ("  %-16s %s%s"):format(e[1] .. "=", e[4] or e[3], d)
	end
	io.stdout:write(table.concat(out, "\n"), "\n")
end

-- key=value arguments checked against @p spec (see check_value): the
-- defaults filled in, `help` prints the table and exits 0.
function testbed.params(argv, spec, about)
	local by = {}
	for _, e in ipairs(spec) do by[e[1]] = e end
	local o, given = {}, {}
	for _, a in ipairs(argv) do
		if a == "help" or a == "--help" or a == "-h" then
			print_help(spec, about)
			os.exit(0)
		end
		local k, v = a:match("^([%w_]+)=(.*)$")
		if not k then
			testbed.usage_error(("argument '%s': want key=value (help: the keys)")
			                    :format(a))
		end
		if not by[k] then
			local names = {}
			for _, e in ipairs(spec) do names[#names + 1] = e[1] end
			table.sort(names)
			testbed.usage_error(("argument '%s': no such key (keys: %s)")
			                    :format(k, table.concat(names, ", ")))
		end
		given[k] = v
	end
	for _, e in ipairs(spec) do
		local v = given[e[1]]
		if v == nil then v = e[2] end
		if v ~= nil then o[e[1]] = check_value(e, v) end
	end
	return o, given
end

-- key=value arguments over @p defaults, for a script that does not
-- describe them (testbed.params does, with help for each): a key whose
-- default is a number takes a finite number >= 0 (rate= also with its
-- unit), any other key a string, or a number when it reads as one. The
-- keys are the defaults', @p known's (a list) and the testbed's own; any
-- other is an error (a typo, trials=60 for trial=60, is said, not run
-- with the default). The one parser is testbed.params.
function testbed.args(argv, defaults, known)
	local spec, have = {}, {}
	for k, v in pairs(defaults or {}) do
		local num = type(v) == "number"
		spec[#spec + 1] = { k, v, num and k ~= "rate" and "num" or "any",
		                    min = num and 0 or nil }
		have[k] = true
	end
	for _, k in ipairs(known or {}) do
		if not have[k] then spec[#spec + 1] = { k, nil, "any" } end
		have[k] = true
	end
	for _, e in ipairs(testbed.spec) do
		if not have[e[1]] then spec[#spec + 1] = { e[1], nil, "any", e[4] } end
	end
	table.sort(spec, function(x, y) return x[1] < y[1] end)
	local o = testbed.params(argv, spec)
	return o
end

-- @p v formatted with @p fmt, or "none" when there is no value (a PER or
-- a latency rx could not determine is nil or linerate.null, never 0).
function testbed.num(v, fmt)
	if type(v) ~= "number" or v ~= v then return "none" end
	return fmt:format(v)
end

-- Which of a solved device's estimates (linerate.solve's devices[d]) it
-- cannot vouch for: solve flags a device implausible with all its reasons
-- at once (lib/latency's verdicts(): the mean's whole 95 % interval below 0
-- or not finite, the variance's likewise, the minimum's whole range below 0
-- or above the mean's interval). Returns mean, min: true where that
-- estimate, and whatever is made of it, is undetermined: print none.
function testbed.undetermined(v)
	local function num(x) return type(x) == "number" and x == x and x end
	if not v.implausible then return false, false end
	local ci_hi = num(v.ci95_mean_ns and v.ci95_mean_ns[2])
	local min_lo = num(v.min_range_ns and v.min_range_ns[1])
	local min_hi = num(v.min_range_ns and v.min_range_ns[2])
	-- a minimum above the mean's interval: a stall raises the mean of
	-- the pair it falls in, not its minimum, so it is the mean that is off
	local mean = not num(v.mean_ns) or not ci_hi or ci_hi < 0 or
	             (min_lo ~= false and min_lo > ci_hi)
	local min = not num(v.min_ns) or not min_hi or min_hi < 0
	return mean, min
end

-- @p v as a number above 0 (or at least 0 with @p zero_ok), or an error
-- naming the key (one line, exit 2).
function testbed.positive(opt, key, zero_ok)
	local v = tonumber(opt[key])
	if v == nil or v ~= v or v < 0 or (v == 0 and not zero_ok) or v == math.huge then
		testbed.usage_error(("argument %s=%s: want a number %s"):format(key,
		      tostring(opt[key]), zero_ok and ">= 0" or "> 0"))
	end
	return v
end

local function port_conf(opt)
	return { mtu = opt.mtu or 9000, speed = opt.speed or "10G" }
end

local Testbed = {}
Testbed.__index = Testbed

-- The peer: a second linerate on the other core, driven line by line on
-- its stdin; it answers in a file, as a Lua chunk.
local function start_peer(opt, sock)
	-- Beside this module, wherever the user's script is.
	local script = assert(package.searchpath("peer-rx", package.path),
	                      "testbed: peer-rx.lua not found on package.path")
	local reply = os.tmpname()
	os.remove(reply)
	local prefix = "lr_peer_" .. reply:match("[%w_]+$")
	-- A peer that exits (a bad EAL option, no memory) answers for itself,
	-- so that nobody waits for it.
	local cmd = ("%s --no-pci %s --main-lcore 1 -l 0-1 --file-prefix %s " ..
	             "--log-level=lib.eal:error -- --no-live %s " ..
	             "socket=%s reply=%s mtu=%s speed=%s; rc=$?; [ -e %s ] || " ..
	             "printf 'return { error = \"peer exited with %%d\" }\n--.\n' " ..
	             "$rc > %s"):format(
		linerate.exe(), opt.peer_eal or "--no-huge -m 512", prefix,
		script, sock, reply, port_conf(opt).mtu, port_conf(opt).speed,
		reply, reply)
	local pipe = assert(io.popen(cmd, "w"))
	pipe:setvbuf("line")
	return pipe, reply, prefix
end

function Testbed:ask(line, timeout)
	self.pipe:write(line, "\n")
	local t0 = linerate.now()
	while true do
		local f = io.open(self.reply, "r")
		if f then
			local text = f:read("a")
			f:close()
			if text:sub(-4) == "--.\n" then
				os.remove(self.reply)
				local r = assert(load(text, "peer", "t", {}))()
				if r.error then
					error("peer: " .. r.error, 0)
				end
				return r
			end
		end
		if linerate.now() - t0 > (timeout or 30) then
			error(("peer did not answer '%s' in %d s"):format(line, timeout or 30), 0)
		end
		linerate.sleep(0.01)
	end
end

function testbed.open(opt)
	local tb = setmetatable({ mode = opt.mode }, Testbed)
	if opt.mode == "wire" then
		tb.tx, tb.rx_port = assert(linerate.wire("lr_tb", port_conf(opt)))
	elseif opt.mode == "ports" then
		assert(opt.tx and opt.rx, "mode=ports needs tx=PORT and rx=PORT")
		tb.tx = assert(linerate.port(tostring(opt.tx), port_conf(opt)))
		tb.rx_port = assert(linerate.port(tostring(opt.rx), port_conf(opt)))
	elseif opt.mode == "memif" then
		local sock = os.tmpname()
		os.remove(sock)
		tb.sock = sock
		tb.pipe, tb.reply, tb.prefix = start_peer(opt, sock)
		tb:ask("hello", 30)	-- the peer's server port is up
		local conf = port_conf(opt)
		conf["link-timeout"] = 10
		tb.tx = assert(linerate.port(("net_memif0,role=client,socket=%s," ..
		                              "socket-abstract=no"):format(sock), conf))
		assert(tb.tx.link_up, "testbed: the peer's memif link is down after 10 s")
	else
		error(("mode '%s': want wire, memif or ports"):format(tostring(opt.mode)), 0)
	end
	return tb
end

-- An rx task where the frames arrive: here, or in the peer.
function Testbed:rx(conf)
	if self.mode == "memif" then
		local words = {}
		for k, v in pairs(conf or {}) do words[#words + 1] = k .. "=" .. tostring(v) end
		self:ask("start " .. table.concat(words, " "))
		return "peer"
	end
	local c = { role = "rx", port = self.rx_port }
	for k, v in pairs(conf or {}) do c[k] = v end
	return assert(linerate.task(c))
end

-- Wait until rx has @p expect frames (what the gen sent), or nothing has
-- arrived for 0.3 s more than 5 s after the gen ended: a receiver starved of
-- its core for a moment is not mistaken for one that has seen everything.
function testbed.drain(rx, expect)
	local t0 = linerate.now()
	repeat
		rx:wait{ idle = 0.3, timeout = 60 }
	until not expect or rx:stats().rx_packets >= expect or linerate.now() - t0 > 5
end

-- After the gen is done (@p sent: its tx_packets): drain, stop, and return
-- the rx task's stats() table.
function Testbed:rx_done(rx, sent)
	if self.mode == "memif" then
		linerate.stop()
		return self:ask("stop " .. (sent or 0), 60)
	end
	testbed.drain(rx, sent)
	linerate.stop()
	return rx:stats()
end

-- What a point-to-point link cannot do (every mode here is one: the
-- virtual wire, memif, a loopback cable): deliver more than was sent,
-- duplicate or reorder. Such counts are a fault of the testbed or of the
-- tool, never a result: returns why the row is invalid, or nil.
function testbed.impossible(sent, r)
	local why = {}
	if r.received > sent then
		why[#why + 1] = ("received %d > sent %d"):format(r.received, sent)
	end
	if (r.lost or 0) < 0 then why[#why + 1] = ("lost %d < 0"):format(r.lost) end
	if (r.dup or 0) > 0 then why[#why + 1] = ("dup %d"):format(r.dup) end
	if (r.out_of_order or 0) > 0 then
		why[#why + 1] = ("out_of_order %d"):format(r.out_of_order)
	end
	if r.per and (r.per < 0 or r.per > 1) then
		why[#why + 1] = ("rx PER %g outside [0, 1]"):format(r.per)
	end
	return #why > 0 and table.concat(why, ", ") or nil
end

-- Why a gen task's run cannot stand as a measurement, or nil when it can.
-- @p s is gen:stats(): its rate fell short (offered, the rate achieved over
-- its sending time against the rate asked, below its rate_tolerance: the
-- lcore did not keep the schedule, and what it did not send is not a
-- property of the link), or it ended early (its port stopped taking
-- frames). Such a row is INVALID, not a PER of 0.
function testbed.invalid(s)
	if s.verdict == "failed" then
		return s.verdict_why or "gen failed"
	end
	if s.short then
		return ("rate short: offered %.3f %% of the rate, %d packets late")
		       :format(s.offered * 100, s.late_packets)
	end
	return nil
end

-- Every task of the run whose verdict is not ok (linerate.results(), or
-- @p doc): one line each, "task N (role): why", as `--role` runs say
-- them; and the exit status they make (3: a rate short or a delay box
-- late, 5: a measurement invalid, 4: a task failed; 0: none).
local EXIT_OF = { short = 3, late = 3, invalid = 5, failed = 4 }
function testbed.verdicts(doc)
	doc = doc or linerate.results()
	local bad, code = {}, 0
	for _, t in ipairs(doc.tasks or {}) do
		if t.verdict and t.verdict ~= "ok" then
			bad[#bad + 1] = ("task %d (%s): %s"):format(t.id, t.role,
			                                           t.verdict_why or t.verdict)
			code = math.max(code, EXIT_OF[t.verdict] or 1)
		end
	end
	return bad, code
end

-- A scenario's end: the tasks' verdicts and @p problems (lines of its
-- own, e.g. an INVALID row) said on stderr, prefixed by the script's
-- name; exit with their status (problems of its own: 3), or return when
-- there are none. A step a scenario cannot stand behind fails the run.
function testbed.finish(problems)
	local bad, code = testbed.verdicts()
	for _, p in ipairs(problems or {}) do
		bad[#bad + 1] = p
		code = math.max(code, 3)
	end
	if #bad == 0 then return end
	for _, b in ipairs(bad) do
		io.stderr:write(("%s: INVALID: %s\n"):format(script_name(), b))
	end
	os.exit(code)
end

-- End the peer (closing its stdin ends it too) and remove what it left:
-- the socket and its EAL runtime directory. Also the __close of
-- "local tb <close> = testbed.open(opt)", so that an error ends the peer.
function Testbed:close()
	if self.pipe then
		pcall(self.pipe.write, self.pipe, "quit\n")
		self.pipe:close()	-- waits for the peer to exit
		self.pipe = nil
		os.remove(self.sock)
		os.remove(self.reply)
		os.execute("rm -rf /var/run/dpdk/" .. self.prefix)
	end
end
Testbed.__close = Testbed.close

-- Run an rtt plan (linerate.plan{role = "rtt", ...}, count and rate set)
-- to its end: start, wait for every task (the frames' time and linger s
-- more, for the last to come back), stop. Returns the frames that came
-- back and the tasks.
function testbed.run_rtt(plan, linger)
	local tasks = assert(linerate.plan(plan))
	linerate.start()
	local deadline = linerate.now() + plan.count / tonumber(plan.rate) +
	                 (linger or 5)
	for _, t in ipairs(tasks) do
		t:wait(math.max(0.1, deadline - linerate.now()))
	end
	linerate.stop()
	local got = 0
	for _, t in ipairs(tasks) do
		got = got + (t:stats().received or 0)
	end
	return got, tasks
end

return testbed
