-- A rate ramp without restarting the generator: task:set{rate=} changes a
-- running gen's rate (any form --rate takes but max: pps, "1.5Mpps",
-- "2Gbps", "2Gbpsl1", "20%"). The worker takes it at its next poll, between
-- two bursts; the packets before keep the old rate's slots, those after
-- pace at the new one. Each change is in the task's result, rate_changes:
-- asked and applied times, old and new rate, the slot it paced from, the
-- packets sent before it. offered then compares the frames sent with what
-- the changing schedule asked (each step at its own rate).
-- Refused with an error: max (paced <-> unpaced), a rate above the line
-- rate, another option, a task of another role, a task done. A --pcap
-- replay changes its multiplier (15-replay-multiplier.lua) or its rate.
linerate.live(false)
local a, b = assert(linerate.wire("ex13"))
local rx = assert(linerate.task{ role = "rx", port = b })
local gen = assert(linerate.task{ role = "gen", port = a, rate = "10000" })
linerate.start()
for _, r in ipairs{ "20000", "0.04Mpps", "0.5%" } do
	linerate.sleep(0.2)
	gen:set{ rate = r }
end
linerate.sleep(0.2)
gen:stop()
assert(gen:wait(5))
rx:wait{ idle = 0.2, timeout = 10 }
linerate.stop()
local s, r = gen:stats(), rx:stats()
for _, c in ipairs(s.rate_changes) do
	print(("%-10s -> %-10s asked at %.4f s, applied %.1f us later, %d "
	       .. "packets before"):format(c.from_rate, c.rate, c.asked_s,
		(c.applied_s - c.asked_s) * 1e6, c.packets_before))
end
print(("sent %d, received %d, lost %d; offered %.3f %% of the ramp, verdict %s")
      :format(s.tx_packets, r.received, r.lost, s.offered * 100, s.verdict))
assert(r.received == s.tx_packets and r.lost == 0 and r.dup == 0)
print(pcall(gen.set, gen, { rate = 1000 }))	-- false, "... the task has ended"
