-- linerate.wire([name] [, conf]): two ports back to back inside this
-- process. Queue q of one end feeds queue q of the other. conf as for
-- linerate.port; "queues" sets how many rings each direction has.
local a, b = assert(linerate.wire("demo", { queues = 2 }))
print(a.name, "->", b.name, "queues", a.txq)

-- Without a name, the wires are wire0, wire1, ...
local c, d = assert(linerate.wire())
print(c.name, d.name)
