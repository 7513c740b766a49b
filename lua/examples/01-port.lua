-- linerate.port(spec [, conf]): find or create a port and set it up.
-- spec: a port id (0), an ethdev name, or vdev devargs that create it.
-- conf keys: queues, rxq, txq, rxd, txd, mtu, mbufs, rss, rss_key, promisc,
--            link_timeout (seconds). Failure returns nil and the cause;
--            a link still down after link_timeout is not one: p.link_up
--            says it.
local p = assert(linerate.port("net_null0", { queues = 2, mtu = 9000 }))
print(p, p.id, p.name, p.driver, p.socket, p.mtu, p.rxq, p.txq, p.link_up)

-- Called again without conf: the same port, as it is.
assert(linerate.port("net_null0").id == p.id)

-- A failure is a value, not an exception: nil and a sentence naming it.
local none, err = linerate.port("net_nosuch0")
assert(none == nil)
print("expected failure:", err)
