#!/usr/bin/env python3
"""netem_trace's bookkeeping under mixed SPECs (a manual check, not a meson test).

usage: trace_check.py BUILD/tests/unit/netem_trace

Every queued or head copy leaves exactly once, never before its arrival nor
before its time_to_send (unless that wrapped below 0 as u64), departures in
time order. It says nothing about the kernel: the golden test does.
"""
import random, subprocess, sys
TRACE = sys.argv[1]
specs = ["delay 100us 50us reorder 30% duplicate 40% loss 10% corrupt 20% slot 200us 400us packets 3 seed 7",
         "delay 1ms 2ms rate 100mbit duplicate 20% reorder 10% gap 3 seed 3 limit 50",
         "delay 10ms 3ms 50% distribution normal loss state 2% 20% seed 1",
         "delay 5ms 1ms distribution pareto loss gemodel 1% 10% 70% 0.1% rate 1gbit 20 64 4 seed 9",
         "slot distribution normal 1ms 300us packets 5 bytes 3000 delay 500us 100us seed 4",
         "delay 2ms 1ms no-reorder duplicate 5% seed 5",
         "delay 2ms 1ms 90% jitter-ar1 distribution paretonormal seed 6 limit 20",
         "rate 10mbit 0 53 5 delay 1ms reorder 50% 50% seed 8"]
random.seed(5)
for spec in specs:
    t = 10**12; lines = []
    for i in range(5000):
        t += random.choice([0, 0, 100, 5000, 100000, 2000000])
        lines.append("%d %d" % (t, random.choice([64, 512, 1500])))
    r = subprocess.run([TRACE, spec], input="\n".join(lines) + "\n", capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    held = {}; ndep = 0; last_t = 0; arr = [int(l.split()[0]) for l in lines]
    fates = {}
    for ln in r.stdout.splitlines():
        f = ln.split()
        if f[0] == "E":
            i, c, fate, tts = int(f[1]), f[2], f[3], int(f[4])
            fates[fate] = fates.get(fate, 0) + 1
            if fate in ("queued", "head"):
                assert (i, c) not in held; held[(i, c)] = tts
        else:
            i, c, tt = int(f[1]), f[2], int(f[3])
            tts = held.pop((i, c))
            assert tt >= tts or tts > 2**63, (ln, tts)
            assert tt >= last_t, ln
            assert tt >= arr[i]
            last_t = tt; ndep += 1
    assert not held, held
    print("ok", ndep, fates, spec[:50])
