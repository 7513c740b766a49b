-- kernel-devices.lua: kernel devices in seed 001's model, beside linerate.
-- tools/kernel-devices.sh makes the devices (network namespaces k1, k2,
-- k3 with a UDP echo each, reached over veth pairs) and measures their own
-- pairs with sockperf; this script measures linerate's pairs with them
-- (rtt over net_af_packet, the echo sending the frames back), solves every
-- device's latency from all the pairs, and predicts one pair's mean RTT
-- from the others (RTT_ab = 2 t_a + 2 t_b, h = 0: each device's latency
-- holds its half of the links).
--
-- `help` lists the arguments (key=value), which kernel-devices.sh gives.
local testbed = require("testbed")
local opt = testbed.params(arg, {
	{ "ifaces", nil, "str", "linerate's veth ends, I1,I2,..., one a kernel device" },
	{ "macs", nil, "str", "the kernel devices' MAC addresses, M1,M2,..." },
	{ "ips", nil, "str", "their IPv4 addresses (linerate's is .1 of each /24)" },
	{ "names", nil, "str", "their names (k1, k2, ...)" },
	{ "sockperf", nil, "str", "the kernels' pairs: A,B=FILE;... (sockperf --full-log)" },
	{ "holdout", nil, "str", "the pair A,B predicted from the others" },
	{ "count", 5000, "int", "rtt's frames a pair", min = 1 },
	{ "rate", 10000, "num", "rtt's rate, pps", above = 0 },
	{ "size", 128, "int", "rtt's frame size", min = 64, max = 1518 },
	{ "port", 7007, "int", "the echo's UDP port", min = 1, max = 65535 },
	{ "dir", "/tmp", "dir", "where the samples files go" },
	{ "json", nil, "out", "the result" },
}, "kernel devices in seed 001's model, beside linerate (tools/kernel-devices.sh)")
linerate.live(false)

local function list(s)
	local t = {}
	for v in tostring(s or ""):gmatch("[^,]+") do t[#t + 1] = v end
	return t
end

local ifaces, macs, ips = list(opt.ifaces), list(opt.macs), list(opt.ips)
if not (#ifaces > 0 and #ifaces == #macs and #ifaces == #ips) then
	testbed.usage_error("give ifaces=, macs= and ips=, one each a device")
end
local names = list(opt.names)
for i = #names + 1, #ifaces do names[i] = "k" .. i end

local files = {}	-- every pair's input of linerate.solve
local function key(a, b) return a < b and a .. "," .. b or b .. "," .. a end
local inputs = {}	-- key -> the solve input

for spec in tostring(opt.sockperf or ""):gmatch("[^;]+") do
	local a, b, path = spec:match("^([^,=]+),([^,=]+)=(.+)$")
	assert(a, ("kernel-devices: sockperf=%s: want A,B=FILE"):format(spec))
	inputs[key(a, b)] = { sockperf = path, a = a, b = b }
end

local w = linerate.workers()
local lost = 0
for i, iface in ipairs(ifaces) do
	local port = assert(linerate.port(("net_af_packet%d,iface=%s"):format(
		i - 1, iface), { link_timeout = 10 }))
	local a4 = ips[i]:match("^(%d+%.%d+%.%d+)%.%d+$")
	assert(a4, ("kernel-devices: ips: '%s' is not IPv4"):format(ips[i]))
	local path = ("%s/lr_kdev_lr_%s.csv"):format(opt.dir, names[i])
	local got = testbed.run_rtt{ role = "rtt", port = port,
		lcores = { w[1] }, count = opt.count, rate = tostring(opt.rate),
		size = opt.size, flows = 1, dst_mac = macs[i],
		src_ip = a4 .. ".1", dst_ip = ips[i],
		dst_port = tostring(opt.port), src_port = "40000",
		pair = "lr," .. names[i], samples = path }
	lost = lost + opt.count - got
	print(("kernel-devices: lr <-> %s over %s: %d of %d frames came back")
	      :format(names[i], iface, got, opt.count))
	inputs[key("lr", names[i])] = path
	files[#files + 1] = path
end

local function solve(skip)
	local f = {}
	for k, v in pairs(inputs) do
		if k ~= skip then f[#f + 1] = v end
	end
	table.sort(f, function(x, y)
		return tostring(type(x) == "table" and x.sockperf or x) <
		       tostring(type(y) == "table" and y.sockperf or y)
	end)
	return linerate.solve{ files = f, hw = 0 }
end

local all, why = solve(nil)
if not all then error("kernel-devices: " .. why, 0) end
local devs = {}
for d in pairs(all.devices) do devs[#devs + 1] = d end
table.sort(devs)
print(("%-6s %12s %12s %12s %10s %23s"):format("device", "mean us", "sd us",
	"min us", "skew", "ci95 mean us"))
for _, d in ipairs(devs) do
	local v = all.devices[d]
	-- An estimate solve cannot vouch for is none, here and in the JSON,
	-- with its reason on the line (testbed.undetermined()); sd and skew
	-- are null where the variance came out negative (the pairs disagree
	-- with the model more than the samples vary).
	local mean_bad, min_bad = testbed.undetermined(v)
	if mean_bad then
		v.mean_ns, v.ci95_mean_ns = linerate.null, { linerate.null, linerate.null }
	end
	if min_bad then v.min_ns = linerate.null end
	local function f(x, scale, fmt)
		return testbed.num(type(x) == "number" and x / scale, fmt)
	end
	print(("%-6s %12s %12s %12s %10s %11s..%-11s%s"):format(d,
		f(v.mean_ns, 1e3, "%.3f"), f(v.sd_ns, 1e3, "%.3f"),
		f(v.min_ns, 1e3, "%.3f"), f(v.skew, 1, "%.2f"),
		f(v.ci95_mean_ns[1], 1e3, "%.3f"),
		f(v.ci95_mean_ns[2], 1e3, "%.3f"),
		v.implausible and (" IMPLAUSIBLE: " .. v.implausible_why) or ""))
end
print("pair        samples    mean RTT us  residual us")
for _, p in ipairs(all.pairs) do
	-- a pair that fits whatever it measured has no residual (nil)
	print(("%-10s %8d %14.3f %12s"):format(p.a .. "," .. p.b, p.samples,
		p.mean_ns / 1e3, p.residual_ns and
		("%.3f"):format(p.residual_ns / 1e3) or "unchecked"))
end
if not all.model_checked then
	print("kernel-devices: model unchecked: " .. all.unchecked_why)
end

local result = { devices = all.devices, pairs = all.pairs, lost = lost,
                 count = opt.count, rate = opt.rate, verdict = all.verdict,
                 model_checked = all.model_checked }
if opt.holdout then
	local a, b = opt.holdout:match("^([^,]+),([^,]+)$")
	assert(a and inputs[key(a, b)],
	       ("kernel-devices: holdout=%s: not a measured pair"):format(opt.holdout))
	local part, why2 = solve(key(a, b))
	local bad_a = part and testbed.undetermined(part.devices[a])
	local bad_b = part and testbed.undetermined(part.devices[b])
	local measured
	for _, p in ipairs(all.pairs) do
		if key(p.a, p.b) == key(a, b) then measured = p.mean_ns end
	end
	if not part then
		print(("kernel-devices: without %s,%s: %s"):format(a, b, why2))
	elseif bad_a or bad_b then
		print(("kernel-devices: held out %s,%s: predicted mean RTT none "
		       .. "(solve cannot vouch for the mean of %s without it)"):format(
			a, b, bad_a and a or b))
		result.holdout = { a = a, b = b, predicted_ns = linerate.null,
		                   measured_ns = measured }
	else
		local pred = 2 * part.devices[a].mean_ns + 2 * part.devices[b].mean_ns
		result.holdout = { a = a, b = b, predicted_ns = pred,
		                   measured_ns = measured,
		                   error = (pred - measured) / measured }
		print(("kernel-devices: held out %s,%s: predicted mean RTT %.3f us "
		       .. "from the other pairs, measured %.3f us (%+.1f %%)"):format(
			a, b, pred / 1e3, measured / 1e3,
			100 * (pred - measured) / measured))
	end
end
if lost > 0 then
	print(("kernel-devices: %d frames did not come back (the echo's socket "
	       .. "buffer, or a busy CPU)"):format(lost))
end
if opt.json then assert(linerate.json(result, opt.json)) end
for _, f in ipairs(files) do os.remove(f) end
-- Estimates that cannot be true (a mean below 0 over its whole interval):
-- said above per device, and the run does not pass as a result (solve's
-- exit 3).
if all.verdict ~= "ok" then
	print(("kernel-devices: verdict %s: %d devices' estimates cannot be "
	       .. "true"):format(all.verdict, all.implausible))
	os.exit(3)
end
