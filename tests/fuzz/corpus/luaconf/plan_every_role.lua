for _, r in ipairs{"gen", "rx", "reflect", "rtt", "delay", "probe", "dist"} do
	local ok, e = pcall(linerate.plan, {role = r, port = 0, lcores = {1, 2},
		duration = 1, count = 10, ingress = "uh", channels = 2,
		netem = "delay 1ms", peer = 1, rate = "10%", size = "64,1518"})
	local ok2, e2 = pcall(linerate.conf, {role = r, [r] = 1}, true)
	local ok3 = pcall(linerate.conf, {role = r, queue = -1, lcore = "x",
		duration = -1})
	local ok4 = pcall(linerate.conf, {role = r, duration = 0/0})
end
