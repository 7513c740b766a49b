-- probe-flows.lua: gen sends N flows over the testbed to the probe, which
-- exports them as IPFIX; prints what was sent and what the probe saw.
--
--   linerate --no-pci --no-huge -m 1024 -l 0-1 -- lua/probe-flows.lua [key=value ...]
--
-- `help` lists the arguments (flows=16384 count=1000000 size=64
-- export=file:flows.ipfix entries=65536 active=300 inactive=30 ...).
local linerate = require("linerate")
local testbed = require("testbed")

local opt = testbed.params(arg, testbed.with{
	{ "mode", "wire", "choice", "wire (one process) or ports (tx=, rx=)",
	  choices = { "wire", "ports" } },
	{ "flows", 16384, "int", "flows gen sends", min = 1, max = 1048576 },
	{ "count", 1000000, "int", "frames gen sends (unless seconds=)", min = 1 },
	{ "seconds", nil, "num", "gen's duration instead of count=", above = 0 },
	{ "rate", nil, "any", "gen's rate: pps, 50%, 1Mpps, 5Gbps (max)", min = 0 },
	{ "size", 64, "int", "frame size", min = 64, max = 9018 },
	{ "export", "none", "str", "the probe's --export: none, file:F, udp:H:P, tcp:H:P" },
	{ "entries", 65536, "int", "the flow cache's entries", min = 1 },
	{ "active", 300, "num", "active timeout, s", above = 0 },
	{ "inactive", 30, "num", "inactive timeout, s", above = 0 },
	{ "json", nil, "out", "the result document" },
}, "N flows to the probe, exported as IPFIX")
linerate.live(false)
local tb <close> = testbed.open(opt)
local probe = assert(linerate.task{ role = "probe", port = tb.rx_port,
                                    entries = opt.entries, export = opt.export,
                                    active = opt.active, inactive = opt.inactive })
local g = { role = "gen", port = tb.tx, flows = opt.flows, size = opt.size,
            src_ip = "10.0.0.1-10.0.0.4" }
-- seconds= (and rate=) for a run of a given length: tools/bench/soak.sh.
if opt.seconds then g.duration = opt.seconds else g.count = opt.count end
if opt.rate then g.rate = tostring(opt.rate) end
local gen = assert(linerate.task(g))
linerate.start()
assert(gen:wait((opt.seconds or 0) + 600))
testbed.drain(probe, gen:stats().tx_packets)
linerate.stop()
local s, p = gen:stats(), linerate.results().probe
print(("probe-flows: sent %d frames in %d flows; probe parsed %d, made %d flows, "
       .. "exported %d records in %d messages; %d sends failed, %d records lost")
      :format(s.tx_packets, opt.flows, p.parsed.ok, p.flows_created,
              p.exporter.records, p.exporter.messages, p.exporter.send_errors,
              p.exporter.records_lost))
if opt.json then assert(linerate.write_json(opt.json)) end
-- The tasks' verdicts: a generator short of its rate or a task that
-- failed said, and the run fails.
testbed.finish()
