-- linerate.plan{role=, port=, lcores={...}, duration=, ...} lays a role
-- over a port as the command line's --role does: a task per queue, each
-- with its slice of the flows, count, bytes and rate (gen), or for the
-- probe with channels = N, a distributor on the port's queue and one probe
-- per channel. It returns the tasks it made, to wait on and read.
linerate.live(false)
local a, b = assert(linerate.wire("ex9", { queues = 2 }))
local rxs = assert(linerate.plan{ role = "rx", port = b })
local gens = assert(linerate.plan{ role = "gen", port = a, count = 100000,
                                   flows = 64, size = "64-256" })
assert(#gens == 2 and #rxs == 2, "a task per queue")
linerate.start()
for _, g in ipairs(gens) do assert(g:wait(30)) end
for _, r in ipairs(rxs) do r:wait{ idle = 0.2, timeout = 30 } end
linerate.stop()
local sent = gens[1]:stats().tx_packets + gens[2]:stats().tx_packets
local rx = linerate.results().rx
print(("plan: %d gen tasks sent %d, %d rx tasks received %d of %d flows, lost %d")
      :format(#gens, sent, #rxs, rx.received, rx.flows_seen, rx.lost))
assert(sent == 100000 and rx.received == 100000 and rx.flows_seen == 64)

-- The probe's plan: a distributor and a probe per channel on a one-queue port.
local c, d = assert(linerate.wire("ex9b"))
-- (a channel per worker lcore: EAL --lcores '0@0,(1-3)@1' gives three)
local nch = #linerate.workers()
local probes = assert(linerate.plan{ role = "probe", port = d, channels = nch,
                                     ingress = "uh", count = 20000,
                                     lcores = linerate.workers() })
local gen = assert(linerate.task{ role = "gen", port = c, count = 20000, flows = 100 })
linerate.start()
assert(gen:wait(30))
for _, p in ipairs(probes) do assert(p:wait(30)) end
linerate.stop()
print(("plan: %d probe-side tasks (%s first), %d flows made"):format(#probes,
      probes[1].role, linerate.results().probe.flows_created))
assert(#probes == nch + 1 and probes[1].role == "dist" and probes[2].role == "probe")
assert(linerate.results().probe.flows_created == 100)
