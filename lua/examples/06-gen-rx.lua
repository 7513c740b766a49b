-- gen's traffic shapes and rx's accounting, on the virtual wire.
--   sizes:  size = 64 | "64,128" | "64:7,594:4,1518:1" | "imix" | "64-1518",
--           or data_size = UDP bytes (linerate.frame_size(data) gives the frame)
--   rates:  rate = "max" | 100000 | "1.5Mpps" | "2Gbps" (L2) | "2Gbpsl1" | "20%"
--   ends:   count = packets, bytes = frame bytes, or the task's duration
--   flows:  flows, flow_base, src_ip/dst_ip ranges ("10.0.0.1-10.0.0.8", IPv6
--           too), src_port/dst_port ranges, order = "seq" | "shuffle", seed
--   frames: pattern = "inc" | "zero" | "random" | hex, udp_cksum, fixed, burst
--   queues: slice = "I/N" takes the I-th share of flows, count, bytes and rate
--   trust:  rate_tolerance = 99.9 (% of the rate below which a paced task is
--           short), catch_up = 100 (us made up after a stall; the rest is
--           late), stall_timeout = 1 (s with no frame taken: the task ends)
-- rx: flows and flow_base size its table, latency = 0 without a shared TSC.
linerate.live(false)
print("1472 B of UDP data make a", linerate.frame_size(1472), "B frame;",
      linerate.data_size(64), "B fit in a 64 B frame;",
      ("%.2f Mpps fill 10 GbE at 64 B, %.1f %% of it overhead"):format(
	linerate.line_rate(10e9, 64) / 1e6, linerate.overhead(18, 64) * 100))

local a, b = assert(linerate.wire("ex6", { queues = 2, mtu = 9000 }))
local rx, gens = {}, {}
for q = 0, 1 do
	rx[#rx + 1] = assert(linerate.task{ role = "rx", port = b, queue = q,
	                                    flows = 64, flow_base = 100 })
	gens[#gens + 1] = assert(linerate.task{
		role = "gen", port = a, queue = q, slice = q .. "/2",
		size = "64:7,594:4,1518:1", rate = "1%", bytes = 2e6,
		flows = 64, flow_base = 100, src_ip = "10.0.0.1-10.0.0.8",
		src_port = "2000-2007", order = "shuffle", seed = 7,
		pattern = "0xdeadbeef", udp_cksum = 1, burst = 1,
		rate_tolerance = 99.9, catch_up = 100, stall_timeout = 1 })
end
linerate.start()
for _, g in ipairs(gens) do assert(g:wait(60)) end
for _, r in ipairs(rx) do r:wait{ idle = 0.2, timeout = 30 } end
linerate.stop()
local sent = gens[1]:stats().tx_packets + gens[2]:stats().tx_packets
local res = linerate.results().rx
print(("sent %d IMIX frames in 64 flows over 2 queues; rx: %d received once, "
       .. "%d lost, %d flows seen, %d outside the tables, p99 %.1f us"):format(
	sent, res.received, res.lost, res.flows_seen, res.unknown_flow_packets,
	res.latency.p99_ns / 1e3))
assert(res.received == sent and res.lost == 0 and res.flows_seen == 64)
-- Whether this machine let the gens keep their rate: offered and verdict.
for q, g in ipairs(gens) do
	local s = g:stats()
	print(("queue %d: offered %.3f %% of its share, %d late, verdict %s"):format(
		q - 1, s.offered * 100, s.late_packets, s.verdict))
end

-- Then IPv6 (one side's address makes both IPv6), 1000 B of UDP data, and
-- fixed pre-built frames, which rx counts as untracked (no sequence).
local rx6 = assert(linerate.task{ role = "rx", port = b, latency = 0 })
local rxf = assert(linerate.task{ role = "rx", port = b, queue = 1 })
local v6 = assert(linerate.task{ role = "gen", port = a, dst_ip = "fd00::2",
                                 data_size = 1000, count = 10 })
local fx = assert(linerate.task{ role = "gen", port = a, queue = 1, fixed = 1,
                                 count = 10 })
linerate.start()
assert(v6:wait(10) and fx:wait(10))
rx6:wait{ idle = 0.2, timeout = 30 }
rxf:wait{ idle = 0.2, timeout = 30 }
linerate.stop()
local r6, rf = rx6:stats(), rxf:stats()
print(("IPv6: %d frames of %d B, %d received; fixed: %d untracked"):format(
	v6:stats().tx_packets, linerate.frame_size(1000, true), r6.received,
	rf.untracked_packets))
assert(r6.received == 10 and rf.untracked_packets == 10)
