-- A capture replayed (gen pcap=), rx's latency per flow and its jitter
-- (flow_latency), and a time series of the run (linerate.series).
--   gen:    pcap = FILE, multiplier = X (its timing / X) or rate = R,
--           loops = N (0: no end), loop_ip_step = N, stamp = 1
--   rx:     flow_latency = 1: min/mean/p99/max and RFC 3550 jitter per flow
--   series: linerate.series(seconds): rates, loss and latency per interval
linerate.live(false)
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local cap = dir .. "/gen.pcap"

-- A capture to replay: what gen writes to a pcap port.
local p = assert(linerate.port("net_pcap9,tx_pcap=" .. cap))
local g = assert(linerate.task{ role = "gen", port = p, count = 400, flows = 4 })
linerate.start()
assert(g:wait(30))
linerate.stop()

assert(linerate.series(0.05))
local a, b = assert(linerate.wire("ex10"))
local rx = assert(linerate.task{ role = "rx", port = b, flows = 16, flow_latency = 1 })
local rp = assert(linerate.task{ role = "gen", port = a, pcap = cap, loops = 3,
                                 loop_ip_step = 256, stamp = 1, rate = 20000 })
linerate.start()
assert(rp:wait(30))
rx:wait{ idle = 0.2, timeout = 30 }
linerate.stop()
local s, r = rp:stats(), rx:stats()
local res = linerate.results()
print(("replayed %d frames of %d in %d loops, %d stamped; rx %d received, %d lost"):format(
	s.tx_packets, s.pcap_frames, s.loops_done, s.stamped_packets, r.received, r.lost))
assert(s.tx_packets == 1200 and r.received == 1200 and r.lost == 0)
local f = res.rx.flows[1]
print(("flow %d: latency min %d ns, p99 %d ns, RFC 3550 jitter %.0f ns; %d series samples")
      :format(f.flow, f.latency.min_ns, f.latency.p99_ns, f.latency.jitter_ns, #res.series))
assert(#res.rx.flows == 12 and #res.series >= 1)
os.execute("rm -rf " .. dir)
