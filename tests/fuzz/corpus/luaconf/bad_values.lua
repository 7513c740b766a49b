for _, v in ipairs{0/0, -(0/0), math.huge, -math.huge, math.maxinteger,
		   math.mininteger, 2^63, -1, 1e300, "", "x", true, false} do
	for _, r in ipairs{"gen", "rx", "reflect", "rtt", "delay", "probe", "dist"} do
		pcall(linerate.task, {role = r, count = v})
		pcall(linerate.plan, {role = r, duration = v, rate = v, size = v})
	end
end
pcall(linerate.task, {role = "rx", [1] = 2})
pcall(linerate.task, {role = "rx", nested = {a = 1}})
pcall(linerate.task, {role = "nope"})
pcall(linerate.task, "gen")
