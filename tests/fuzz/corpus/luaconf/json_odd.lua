local t = {1, 2, {a = {b = {c = {}}}}}
t.self = t
print = nil
for _, v in ipairs{t, {0/0}, {math.huge}, {[1.5] = 1}, {[true] = 1},
		   setmetatable({}, {__index = function() error("x") end}),
		   string.rep("a", 1000), {coroutine.create(function() end)}} do
	pcall(linerate.json, v)
end
local deep = {}
for i = 1, 300 do deep = {deep} end
pcall(linerate.json, deep)
pcall(linerate.frame_size, -1)
pcall(linerate.line_rate, 0/0, 64)
pcall(linerate.overhead, "x")
pcall(linerate.data_size, 1e300)
