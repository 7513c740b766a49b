-- linerate.task{role=, port=, queue=0, lcore=first worker, duration=, ...}
-- makes a task: one role on one port queue, run by one worker lcore.
-- The role's own options follow (see linerate --help):
--   gen: size, count, rate, flows, flow_base, burst, src_ip, dst_ip,
--        src_port, dst_port, src_mac, dst_mac
--   rx:  count
-- linerate.start() launches every lcore that has new tasks;
-- task:wait(timeout) or task:wait{timeout=, idle=} waits for one.
local a, b = assert(linerate.wire())
local rx = assert(linerate.task{ role = "rx", port = b })
local gen = assert(linerate.task{ role = "gen", port = a, size = 256,
                                  count = 100000, flows = 8,
                                  src_ip = "192.168.0.1", dst_ip = "192.168.0.2" })
print(gen, gen.id, gen.role, gen.lcore, gen.queue, gen:state())
print("started", linerate.start())
assert(gen:wait(30))
print("rx:", rx:wait{ idle = 0.1, timeout = 30 })	-- "idle": nothing came for 0.1 s
linerate.stop()

local s = rx:stats()
print(("rx %d packets, %d ours, %.3f Gb/s L1"):format(s.rx_packets, s.own_packets,
                                                    s.rx_gbps_l1))
assert(s.own_packets == 100000)
