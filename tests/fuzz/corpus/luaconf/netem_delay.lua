local ok, e = pcall(linerate.task, {role = "delay", port = "x",
	netem = "delay 10ms 2ms 25% distribution normal loss 1% duplicate 0.5%",
	peer = "fzlb"})
local j = linerate.json({a = 1, b = {1, 2, 3}, c = "s"})
local fs = linerate.frame_size(64)
linerate.line_rate(10e9, 64)
