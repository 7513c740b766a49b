-- The probe role: flows out as IPFIX.
--   entries, active, inactive       the cache and its timeouts
--   export = "udp:HOST:PORT" | "tcp:HOST:PORT" | "file:PATH" | "none"
--   biflow, ns, domain, ipfix_mtu, template_every, template_period
--   ring (records per queue to the exporter), count, trim (bytes parsed),
--   export_rate (UDP/TCP messages a second), export_wait (s to deliver at the end)
linerate.live(false)
local a, b = assert(linerate.wire("ex7"))
local path = os.tmpname()
local probe = assert(linerate.task{ role = "probe", port = b, entries = 4096,
                                    active = 60, inactive = 5, biflow = 1, ns = 1,
                                    domain = 7, ipfix_mtu = 1400, template_every = 0,
                                    template_period = 0, ring = 4096, trim = 64,
                                    export_rate = 4000, export_wait = 5,
                                    count = 5000, export = "file:" .. path })
local gen = assert(linerate.task{ role = "gen", port = a, count = 5000, flows = 50,
                                  size = 1000 })
linerate.start()
assert(gen:wait(30))
assert(probe:wait(30))		-- done at its count
linerate.stop()			-- flushes the flows into the file
local p = linerate.results().probe
print(("probe: %d packets parsed, %d flows, %d records in %d messages to %s"):format(
	p.parsed.ok, p.flows_created, p.exporter.records, p.exporter.messages, path))
assert(p.flows_created == 50 and p.exporter.records == 51)	-- and the statistics
os.remove(path)
