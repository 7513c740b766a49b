local ok, err = pcall(linerate.plan, {role = "probe", port = 0, channels = 4,
	ingress = "trim=128", entries = 4096, hash = "l3", lcores = {1}})
local ok2, err2 = pcall(linerate.task, {role = "probe", port = 0, hash = "l3"})
assert(ok and not ok2 and err2:find("hash"))
