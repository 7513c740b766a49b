-- Tagged traffic: gen puts an 802.1ad outer tag (VID 10, TPID 0x88a8) and
-- an 802.1Q inner tag over 100 VIDs (100-199, one a flow) on its frames,
-- with DSCP 46 (EF) and ECN 0; rx finds its header behind the two tags and
-- accounts every flow. --size is the size on the wire, tags included: two
-- tags need 72 B or more (doc/usage.md, "VLAN, QinQ, DSCP").
linerate.live(false)
local a, b = assert(linerate.wire("ex14"))
local rx = assert(linerate.task{ role = "rx", port = b, flows = 100 })
local gen = assert(linerate.task{ role = "gen", port = a, count = 10000,
                                  rate = "100000", size = 128, flows = 100,
                                  vlan = "100-199", vlan_pcp = 5,
                                  outer_vlan = 10, dscp = 46 })
linerate.start()
assert(gen:wait(10))
rx:wait{ idle = 0.2, timeout = 10 }
linerate.stop()
local s, r = gen:stats(), rx:stats()
print(("sent %d in %d flows, %d tags a frame; received %d, lost %d")
      :format(s.tx_packets, 100, s.vlan_tags, r.received, r.lost))
assert(r.received == s.tx_packets and r.lost == 0)
