-- peer-rx.lua: the receiving half of a two-process testbed (testbed.lua
-- starts it). Serves a net_memif port and runs one rx task per request.
-- Reads commands on stdin, answers each by writing a Lua chunk to reply=.
--   hello            -> {}                     (the port is up)
--   start k=v ...    -> {}                     (an rx task with those options)
--   stop [N]         -> the task's stats()     (once N frames are in, or
--                                              0.3 s without frames after 5 s)
--   quit
local linerate = require("linerate")
local testbed = require("testbed")
local opt = {}
for _, a in ipairs(arg) do
	local k, v = a:match("^([%w_-]+)=(.*)$")
	opt[k] = v
end
linerate.live(false)

local function ser(v, out)
	local t = type(v)
	if t == "table" then
		out[#out + 1] = "{"
		for k, x in pairs(v) do
			out[#out + 1] = ("[%q]="):format(k)
			ser(x, out)
			out[#out + 1] = ","
		end
		out[#out + 1] = "}"
	elseif t == "number" then
		out[#out + 1] = math.type(v) == "integer" and tostring(v) or ("%.17g"):format(v)
	elseif t == "string" then
		out[#out + 1] = ("%q"):format(v)
	else
		out[#out + 1] = tostring(v)
	end
end

local function answer(v)
	local out = { "return " }
	ser(v, out)
	out[#out + 1] = "\n--.\n"	-- complete: the reader waits for this
	local tmp = opt.reply .. ".tmp"
	local f = assert(io.open(tmp, "w"))
	f:write(table.concat(out))
	f:close()
	assert(os.rename(tmp, opt.reply))
end

-- Every failure is an answer too, so that the other side does not wait.
local function main()
local port = assert(linerate.port(("net_memif0,role=server,socket=%s,socket-abstract=no")
                                  :format(opt.socket),
                                  { mtu = opt.mtu, speed = opt.speed, ["link-timeout"] = 0 }))
local rx
for line in io.lines() do
	local cmd, rest = line:match("^(%S+)%s*(.*)$")
	if cmd == "hello" then
		answer({})
	elseif cmd == "start" then
		local c = { role = "rx", port = port }
		for k, v in rest:gmatch("([%w_-]+)=(%S+)") do c[k] = v end
		rx = assert(linerate.task(c))
		linerate.start()
		answer({})
	elseif cmd == "stop" then
		local n = tonumber(rest)
		testbed.drain(rx, n and n > 0 and n or nil)
		linerate.stop()
		answer(rx:stats())
	elseif cmd == "quit" then
		break
	end
end
end

local ok, err = pcall(main)
if not ok then
	answer({ error = tostring(err) })
	error(err, 0)
end
