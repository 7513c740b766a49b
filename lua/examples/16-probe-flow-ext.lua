-- The probe's flow extensions (flow_ext = LIST): what a flow's first
-- packets say, exported with its record as ipfixprobe's plugins do.
--   flow_ext = "dns,basicplus,pstats"
--     dns        the question and the first answer of a query on port 53
--     basicplus  TTL, IP flags, TCP window and options of the first packets
--     pstats     the first 30 payload packets' lengths, times, directions
-- Here a capture written below (a DNS query for example.org and its
-- answer) is read with pcap = FILE; the task's flow_ext counts what the
-- extensions exported (doc/usage.md, "Flow extensions").
linerate.live(false)
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local cap, out = dir .. "/dns.pcap", dir .. "/flows.ipfix"

-- An IPv4 header with its checksum.
local function ipv4(src, dst, len)
	local h = string.pack(">BBI2I2I2BBI2", 0x45, 0, 20 + len, 1, 0x4000, 64, 17, 0)
		.. src .. dst
	local sum = 0
	for i = 1, #h, 2 do sum = sum + string.unpack(">I2", h, i) end
	while sum > 0xffff do sum = (sum & 0xffff) + (sum >> 16) end
	return h:sub(1, 10) .. string.pack(">I2", ~sum & 0xffff) .. h:sub(13)
end

-- A UDP datagram in an Ethernet frame, from a to b.
local function frame(a, b, sport, dport, payload)
	local udp = string.pack(">I2I2I2I2", sport, dport, 8 + #payload, 0) .. payload
	return string.rep("\2", 6) .. string.rep("\4", 6) .. "\8\0"
		.. ipv4(a, b, #udp) .. udp
end

local client, server = "\10\0\0\1", "\10\0\0\53"
local question = "\7example\3org\0" .. string.pack(">I2I2", 1, 1)	-- A, IN
local query = string.pack(">I2I2I2I2I2I2", 0x1234, 0x0100, 1, 0, 0, 0) .. question
local answer = string.pack(">I2I2I2I2I2I2", 0x1234, 0x8180, 1, 1, 0, 0) .. question
	.. string.pack(">I2I2I2I4I2", 0xc00c, 1, 1, 300, 4) .. "\192\0\2\7"
local f = assert(io.open(cap, "wb"))
f:write(string.pack("<I4I2I2i4I4I4I4", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i, fr in ipairs({ frame(client, server, 40000, 53, query),
		      frame(server, client, 53, 40000, answer) }) do
	f:write(string.pack("<I4I4I4I4", 1700000000, i * 1500, #fr, #fr), fr)
end
f:close()

local p = assert(linerate.port("net_null16"))
local probe = assert(linerate.task{ role = "probe", port = p, pcap = cap, biflow = 1,
                                    flow_ext = "dns,basicplus,pstats",
                                    export = "file:" .. out })
linerate.start()
assert(probe:wait(30))
linerate.stop()
local x = probe:stats().flow_ext
print(("flow_ext: %d DNS record, %d with basicplus, %d with a packet sequence; "
       .. "%d B a flow; ipfixDump --rfc5610 --in %s shows them"):format(
	x.records.dns, x.records.basicplus, x.records.pstats, x.bytes_per_flow, out))
assert(x.records.dns == 1 and x.records.basicplus == 1 and x.records.pstats == 1)
os.execute("rm -rf " .. dir)
