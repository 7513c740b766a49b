-- A task without count or duration runs until stopped.
-- linerate.sleep(s) waits while printing the live line (if on);
-- task:stop() ends one task, linerate.stop() ends all and joins the lcores.
-- A task may also stop itself after a time: duration = seconds.
local p = assert(linerate.port("net_null0"))
local gen = assert(linerate.task{ role = "gen", port = p, rate = 1e6 })
linerate.start()
linerate.sleep(0.5)
print("state after 0.5 s:", gen:state())
gen:stop()
assert(gen:wait(5))
print("state after stop:", gen:state(), gen:stats().tx_packets, "packets")
linerate.stop()

local timed = assert(linerate.task{ role = "gen", port = p, duration = 0.2 })
linerate.start()
assert(linerate.wait(10))	-- every started task is done
print(("timed task ran %.3f s"):format(timed:stats().duration_s))
