-- dut.lua: devices under test for the virtual testbed, set up and torn
-- down by the scenario (lua/rfc2544.lua). Each gives a port to send into
-- and a port to receive from, and what gen must write for the device to
-- pass its frames on.
--
--   local dut = require("dut")
--   local d <close> = dut.open("testpmd", { fwd = "io", cpu = 0 })
--   -- d.tx, d.rx: linerate ports; d.gen: extra gen options (MACs, IPs)
--   ...
--   d:close()       -- also on an error, through <close>
--
-- Kinds:
--   testpmd   Debian's dpdk-testpmd, a process of its own, forwarding
--             between two memif ports (its servers, our clients) with
--             fwd=io (as received) or fwd=macswap (MACs swapped), its
--             forwarding lcore on CPU cpu= (0: give it a CPU that no
--             linerate worker uses); frames up to 1518 B (memif's
--             default buffers)
--   kernel    the Linux kernel in a network namespace of its own, reached
--             over two veth pairs with net_af_packet: mode=forward (IPv4
--             routing between two subnets, a static neighbour for the far
--             side) or mode=bridge (a Linux bridge); its receive work is
--             steered to CPU cpu= by RPS; mode=veth: no namespace, one
--             veth pair from port to port (the generator's own ceiling
--             over net_af_packet, to compare with); frames up to 1518 B (DPDK
--             22.11's net_af_packet). Needs root. Everything made
--             (namespace, links) carries a tag of this run and is removed.
local linerate = require("linerate")

local dut = {}
local Dut = {}
Dut.__index = Dut

local function sh(cmd)
	local ok, _, code = os.execute(cmd)
	return ok == true or code == 0
end

local function must(cmd)
	if not sh(cmd) then error(("dut: '%s' failed"):format(cmd), 0) end
end

local function read_all(path)
	local f = io.open(path)
	if not f then return nil end
	local s = f:read("a")
	f:close()
	return s
end

local function tag()
	local t = os.tmpname()
	os.remove(t)
	return "lrd" .. t:match("[%w]+$"):sub(-5)
end

-- testpmd over two memif ports.
local function open_testpmd(d, opt)
	local fwd = opt.fwd or "io"
	assert(fwd == "io" or fwd == "macswap", "dut: testpmd fwd=io or fwd=macswap")
	local bin = opt.testpmd or "dpdk-testpmd"
	assert(sh("command -v " .. bin .. " >/dev/null"),
	       "dut: " .. bin .. " not found (Debian's dpdk package has it)")
	d.dir = os.tmpname()
	os.remove(d.dir)
	must("mkdir -p " .. d.dir)
	d.prefix = tag()
	-- Its EAL runtime directory goes at our exit, a forced one too (its
	-- own d.dir is an os.tmpname name: removed then anyway); testpmd
	-- itself ends when our end of its stdin closes.
	linerate.cleanup_on_exit("/var/run/dpdk/" .. d.prefix)
	d.log = d.dir .. "/testpmd.log"
	local cpu = tonumber(opt.cpu) or 0
	-- Its main lcore waits on stdin; the forwarding one polls on cpu.
	-- Closing stdin (close()) ends it, and it prints its port stats.
	-- Interactive (-i) so that its port and forwarding counters can be
	-- asked between trials (counters()); line-buffered so that they reach
	-- the log when asked. Its pid first, to know it is alive (alive()).
	d.pidfile = d.dir .. "/pid"
	local cmd = ("echo $$ > %s; exec stdbuf -oL %s --no-pci %s --lcores '0@%d,1@%d' --file-prefix %s " ..
	             "--log-level=lib.eal:error " ..
	             "--vdev net_memif0,role=server,socket=%s/a.sock,socket-abstract=no " ..
	             "--vdev net_memif1,role=server,socket=%s/b.sock,socket-abstract=no " ..
	             "-- -i --forward-mode=%s --auto-start --stats-period 0 --nb-cores=1 " ..
	             "--total-num-mbufs=%d --rxd=1024 --txd=1024 --burst=32 " ..
	             "> %s 2>&1"):format(
		d.pidfile, bin, opt.eal or "--no-huge -m 1024", cpu, cpu, d.prefix, d.dir, d.dir,
		fwd, opt.mbufs or 16384, d.log)
	d.pipe = assert(io.popen(cmd, "w"))
	d.pipe:setvbuf("line")
	-- Its servers listen once it has started its ports: then it checks
	-- their links ("Checking link statuses"), which our clients bring up.
	local t0 = linerate.now()
	while true do
		local log = read_all(d.log) or ""
		if log:find("Checking link statuses") and
		   sh(("test -S %s/a.sock -a -S %s/b.sock"):format(d.dir, d.dir)) then
			break
		end
		if linerate.now() - t0 > 30 or log:find("Error %- exiting") then
			error("dut: testpmd did not start: " .. log, 0)
		end
		linerate.sleep(0.05)
	end
	local conf = { mtu = 1500, speed = opt.speed or "10G", ["link-timeout"] = 10 }
	d.tx = assert(linerate.port(("net_memif%d,role=client,socket=%s/a.sock," ..
	                             "socket-abstract=no"):format(opt.id or 10, d.dir), conf))
	d.rx = assert(linerate.port(("net_memif%d,role=client,socket=%s/b.sock," ..
	                             "socket-abstract=no"):format((opt.id or 10) + 1, d.dir), conf))
	-- A link still down after the wait is set up all the same: no device.
	if not (d.tx.link_up and d.rx.link_up) then
		error("dut: testpmd's memif link is down after 10 s", 0)
	end
	d.gen = {}
	d.what = "dpdk-testpmd " .. fwd
	return d
end

-- The kernel in a namespace, over veth pairs and net_af_packet.
local function open_kernel(d, opt)
	local mode = opt.mode or "forward"
	assert(mode == "forward" or mode == "bridge" or mode == "veth",
	       "dut: kernel mode=forward, bridge or veth")
	assert(sh("[ \"$(id -u)\" = 0 ]"), "dut: the kernel DUT needs root (network namespaces)")
	d.tag = tag()
	local ns, a, b = d.tag, d.tag .. "a", d.tag .. "b"
	-- net_af_packet in DPDK 22.11 takes frames up to 1518 B.
	local conf = { mtu = 1500, speed = opt.speed or "10G" }
	-- TPACKET rings of 4096 frames (the default 512 overflow in a burst).
	local pa = "qpairs=1,blocksz=65536,framesz=2048,framecnt=4096"
	local function ports()
		d.tx = assert(linerate.port(("net_af_packet%d,iface=%s,%s"):format(
			opt.id or 10, a, pa), conf))
		d.rx = assert(linerate.port(("net_af_packet%d,iface=%s,%s"):format(
			(opt.id or 10) + 1, b, pa), conf))
	end
	if mode == "veth" then
		d.links = { a }
		must(("ip link add %s type veth peer name %s"):format(a, b))
		for _, l in ipairs{ a, b } do
			sh(("sysctl -qw net.ipv6.conf.%s.disable_ipv6=1"):format(l))
			must(("ip link set %s up"):format(l))
		end
		d.gen, d.what = {}, "a veth pair"
		ports()
		return d
	end
	d.ns, d.links = ns, { a, b }
	local x = "ip netns exec " .. ns .. " "
	must("ip netns add " .. ns)
	-- Removed at our exit, a forced one too: the namespace goes with its
	-- links (a veth pair goes with either end).
	linerate.cleanup_on_exit("/run/netns/" .. ns)
	must(x .. "ip link set lo up")
	for _, l in ipairs{ a, b } do
		must(("ip link add %s type veth peer name %si netns %s"):format(l, l, ns))
		-- Our side: no address, no IPv6 chatter; af_packet takes it all.
		sh(("sysctl -qw net.ipv6.conf.%s.disable_ipv6=1"):format(l))
		must(("ip link set %s up mtu 9000"):format(l))
		sh(x .. ("sysctl -qw net.ipv6.conf.%si.disable_ipv6=1"):format(l))
		must(x .. ("ip link set %si up mtu 9000"):format(l))
	end
	local function mac(cmd)
		local p = io.popen(cmd)
		local m = p:read("a"):match("link/ether (%x%x:%x%x:%x%x:%x%x:%x%x:%x%x)")
		p:close()
		return assert(m, "dut: no MAC from " .. cmd)
	end
	local mac_a, mac_b = mac("ip link show " .. a), mac("ip link show " .. b)
	local mac_ai = mac(x .. "ip link show " .. a .. "i")
	local cpu = tonumber(opt.cpu) or 0
	-- The namespace's receive work on cpu (RPS), not on the sender's.
	for _, l in ipairs{ a, b } do
		sh(x .. ("sh -c 'echo %x > /sys/class/net/%si/queues/rx-0/rps_cpus'")
		   :format(1 << cpu, l))
	end
	d.gen = { src_mac = mac_a }
	if mode == "forward" then
		must(x .. "sysctl -qw net.ipv4.ip_forward=1")
		must(x .. "sysctl -qw net.ipv4.conf.all.rp_filter=0")
		must(x .. ("ip addr add 10.201.1.1/24 dev %si"):format(a))
		must(x .. ("ip addr add 10.201.2.1/24 dev %si"):format(b))
		must(x .. ("ip neigh replace 10.201.2.2 lladdr %s dev %si nud permanent")
		     :format(mac_b, b))
		d.gen.dst_mac, d.gen.src_ip, d.gen.dst_ip = mac_ai, "10.201.1.2", "10.201.2.2"
	else
		must(x .. "ip link add br0 type bridge")
		must(x .. ("ip link set %si master br0"):format(a))
		must(x .. ("ip link set %si master br0"):format(b))
		must(x .. "ip link set br0 up")
		-- The far side's MAC, learnt: no flooding to decide for it.
		must(x .. ("bridge fdb add %s dev %si master static"):format(mac_b, b))
		d.gen.dst_mac = mac_b
	end
	ports()
	d.what = "Linux kernel " .. mode
	return d
end

function dut.open(kind, opt)
	local d = setmetatable({ kind = kind }, Dut)
	local ok, err = pcall(function()
		if kind == "testpmd" then
			open_testpmd(d, opt or {})
		elseif kind == "kernel" then
			open_kernel(d, opt or {})
		else
			error(("dut: '%s': want testpmd or kernel"):format(tostring(kind)), 0)
		end
	end)
	if not ok then
		d:close()
		error(err, 0)
	end
	return d
end

-- Is the device still there: testpmd's process, the kernel's namespace.
-- Returns true, or false and what is gone.
function Dut:alive()
	if self.pidfile then
		local pid = tonumber(read_all(self.pidfile) or "")
		local stat = pid and read_all("/proc/" .. pid .. "/stat")
		-- A zombie (state Z) has exited too.
		if not stat or stat:match("^%d+ %b() (%a)") == "Z" then
			return false, ("dpdk-testpmd (pid %s) is gone"):format(tostring(pid))
		end
	end
	if self.ns and not sh(("ip netns list | grep -qw %s"):format(self.ns)) then
		return false, ("the network namespace %s is gone"):format(self.ns)
	end
	return true
end

local marks = 0

-- testpmd's counters now, asked on its prompt: per port (0: where our
-- frames enter it, 1: where they leave) rx, rx_missed (its rx ring was
-- full: it did not keep up), rx_errors, tx, tx_dropped (its tx queue did
-- not take them: the receiver behind it was full), tx_errors.
local function testpmd_counters(d)
	marks = marks + 1
	local mark = ("lrmark_%d"):format(marks)
	local ok = pcall(d.pipe.write, d.pipe, "show port stats all\nshow fwd stats all\n",
	                 mark, "\n")
	if not ok then return nil end
	local t0 = linerate.now()
	local log, at
	repeat
		log = read_all(d.log) or ""
		at = log:find(mark .. "%s*\n[^\n]*Command not found")
		if not at then linerate.sleep(0.005) end
	until at or linerate.now() - t0 > 2
	if not at then return nil end
	local from = 1
	for i in log:gmatch("()show port stats all") do if i < at then from = i end end
	local part = log:sub(from, at)
	local c = {}
	for port, body in part:gmatch("NIC statistics for port (%d+)%s*#+(.-)#####") do
		local p = { }
		p.rx = tonumber(body:match("RX%-packets:%s*(%d+)"))
		p.rx_missed = tonumber(body:match("RX%-missed:%s*(%d+)"))
		p.rx_errors = tonumber(body:match("RX%-errors:%s*(%d+)"))
		p.tx = tonumber(body:match("TX%-packets:%s*(%d+)"))
		p.tx_errors = tonumber(body:match("TX%-errors:%s*(%d+)"))
		c[tonumber(port)] = p
	end
	for port, body in part:gmatch("Forward statistics for port (%d+)%s*%-+(.-)%-%-%-%-") do
		local p = c[tonumber(port)] or {}
		p.rx_dropped = tonumber(body:match("RX%-dropped:%s*(%d+)"))
		p.tx_dropped = tonumber(body:match("TX%-dropped:%s*(%d+)"))
		c[tonumber(port)] = p
	end
	return (c[0] and c[1]) and { ["in"] = c[0], out = c[1] } or nil
end

-- The kernel's counters of the namespace's two ends (/proc/net/dev):
-- rx, rx_drop, tx, tx_drop of each ("in": where our frames enter), and
-- the out end's qdisc drops (qdisc_drop).
local function kernel_counters(d)
	local p = io.popen("ip netns exec " .. d.ns .. " cat /proc/net/dev 2>/dev/null")
	if not p then return nil end
	local text = p:read("a")
	p:close()
	local c = {}
	for name, rest in text:gmatch("%s*([%w_]+):([^\n]*)") do
		local f = {}
		for n in rest:gmatch("%d+") do f[#f + 1] = tonumber(n) end
		if #f >= 12 then
			c[name] = { rx = f[2], rx_drop = f[4], tx = f[10], tx_drop = f[12] }
		end
	end
	local a, b = c[d.links[1] .. "i"], c[d.links[2] .. "i"]
	if not (a and b) then return nil end
	-- What its egress qdisc dropped (tc -s: "dropped N"; 0 with noqueue).
	local q = io.popen(("ip netns exec %s tc -s qdisc show dev %si 2>/dev/null")
	                   :format(d.ns, d.links[2]))
	if q then
		local drop = 0
		for n in q:read("a"):gmatch("dropped (%d+)") do drop = drop + tonumber(n) end
		q:close()
		b.qdisc_drop = drop
	end
	return { ["in"] = a, out = b }
end

-- The device's own counters where it has them: testpmd's ports, the
-- namespace's interfaces; nil where it has none (or they could not be
-- read). Cumulative: a caller takes differences.
function Dut:counters()
	if self.pipe then return testpmd_counters(self) end
	if self.ns then return kernel_counters(self) end
	return nil
end

-- End the device and remove what was made for it.
function Dut:close()
	if self.pipe then
		-- A stopped testpmd (SIGSTOP) is let go on, told to quit, and
		-- killed when it has not ended 5 s later: a close never waits
		-- for a device without bound (pclose waits for its end).
		local pid = tonumber(read_all(self.pidfile) or "")
		if pid then sh(("kill -CONT %d 2>/dev/null"):format(pid)) end
		pcall(self.pipe.write, self.pipe, "quit\n")
		if pid then
			local t0 = linerate.now()
			while self:alive() and linerate.now() - t0 < 5 do linerate.sleep(0.05) end
			if self:alive() then sh(("kill -KILL %d 2>/dev/null"):format(pid)) end
		end
		pcall(self.pipe.close, self.pipe)	-- EOF on its stdin: it ends
		self.pipe = nil
		local log = read_all(self.log) or ""
		-- Its final statistics, after the asked ones.
		log = log:match(".*Telling cores to stop(.*)$") or log
		local rx, drop = 0, 0
		for n in log:gmatch("RX%-packets:%s*(%d+)") do rx = rx + tonumber(n) end
		for n in log:gmatch("RX%-dropped:%s*(%d+)") do drop = drop + tonumber(n) end
		self.stats = { rx_packets = rx, rx_dropped = drop }
		sh("rm -rf " .. self.dir .. " /var/run/dpdk/" .. self.prefix)
	end
	if self.links then
		if self.ns then sh("ip netns del " .. self.ns .. " 2>/dev/null") end
		for _, l in ipairs(self.links) do sh("ip link del " .. l .. " 2>/dev/null") end
		self.ns, self.links = nil, nil
	end
end
Dut.__close = Dut.close

return dut
