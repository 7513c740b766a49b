-- The probe over a capture file (pcap = FILE): read into memory once and
-- parsed where it lies, at the capture's own times, as softflowd -r does.
--   pcap = FILE     a classic pcap (us or ns, either byte order, Ethernet);
--                   the task's port is never read (any set-up port will do)
-- The flows it finds are the capture's: here what gen wrote, 50 flows.
linerate.live(false)
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local cap, out = dir .. "/gen.pcap", dir .. "/flows.ipfix"

-- A capture to read: what gen writes to a pcap port.
local w = assert(linerate.port("net_pcap11,tx_pcap=" .. cap))
local g = assert(linerate.task{ role = "gen", port = w, count = 2000, flows = 50 })
linerate.start()
assert(g:wait(30))
linerate.stop()

local p = assert(linerate.port("net_null11"))
local probe = assert(linerate.task{ role = "probe", port = p, pcap = cap,
                                    export = "file:" .. out })
linerate.start()
assert(probe:wait(30))		-- done at the capture's end
linerate.stop()			-- flushes the flows into the file
local s, r = probe:stats(), linerate.results().probe
print(("probe: %d frames of the capture, %d flows, %d records to %s"):format(
	s.pcap_frames, r.flows_created, r.exporter.records, out))
assert(s.pcap_frames == 2000 and r.flows_created == 50 and r.exporter.records == 51)	-- and the statistics
os.execute("rm -rf " .. dir)
