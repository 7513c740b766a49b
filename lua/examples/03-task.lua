-- linerate.task{role=, port=, queue=0, lcore=first worker, duration=, ...}
-- makes a task: one role on one port queue, run by one worker lcore.
-- The role's own options follow (see linerate --help and doc/usage.md;
-- 06-gen-rx.lua and 07-probe.lua use the rest):
--   gen: size, data_size, count, bytes, rate, flows, flow_base, src_ip,
--        dst_ip, src_port, dst_port, order, seed, slice, burst, pattern,
--        udp_cksum, fixed, src_mac, dst_mac
--   rx:  count, flows, flow_base, latency
--   probe: entries, active, inactive, export, biflow, ns, domain, ipfix_mtu,
--        template_every, template_period, ring, count, trim, ingress, channel
--   dist: channels, ingress, hash, hash_key, backend, channel_ring, count
--        (08-dist.lua)
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
