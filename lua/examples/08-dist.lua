-- The distributor (role "dist") and probes on its channels: the firmware
-- model as a pipeline stage for a port without RSS. The dist task receives
-- from one queue, stamps, parses and hashes every packet, and hands it to
-- one of `channels` rings; a probe task with channel=I reads ring I.
--   dist: channels (1..64), ingress = "full" | "trim=B" | "uh",
--         hash = "l4" | "l3", hash_key = "symmetric" | "ms" | hex,
--         backend = "fast" | "model", channel_ring, count
--   probe: channel = I, dist = the dist task (without dist: the port's
--         dist task made last, which must exist first); its ingress is the
--         distributor's
-- The CLI does the same with: --role probe --channels N --ingress MODE.
linerate.live(false)
local a, b = assert(linerate.wire("ex8"))
local dist = assert(linerate.task{ role = "dist", port = b, channels = 2,
                                   ingress = "uh", hash = "l4",
                                   hash_key = "symmetric", backend = "fast",
                                   channel_ring = 1024, count = 6000 })
local probes = {}
for i = 0, 1 do
	probes[#probes + 1] = assert(linerate.task{ role = "probe", port = b,
	                                            dist = dist, channel = i,
	                                            entries = 4096,
	                                            export = "none" })
end
local gen = assert(linerate.task{ role = "gen", port = a, count = 6000, flows = 60 })
linerate.start()
assert(gen:wait(30))
assert(dist:wait(30))			-- done at its count
for _, p in ipairs(probes) do assert(p:wait(30)) end	-- their channel empty
linerate.stop()
local r = linerate.results()
local d
for _, t in ipairs(r.tasks) do
	if t.role == "dist" then d = t end
end
print(("dist: %d packets, per channel %d + %d, %.0f B each to the probes"):format(
	d.rx_packets, d.per_channel[1], d.per_channel[2], d.bytes_per_packet))
print(("probe: %d flows from %d records"):format(r.probe.flows_created,
                                                 r.probe.parsed.ok))
assert(r.probe.flows_created == 60 and r.probe.parsed.ok == 6000)
