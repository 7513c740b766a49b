#!/usr/bin/env python3
"""lr_netem_parse() against the tc binary (a manual check, not a meson test).

usage: xcheck.py BUILD/tests/unit/netem_trace specs.txt   (root: unshare -n)

For each SPEC, runs "tc qdisc add dev lo root netem SPEC" in a new network
namespace with shim.so (LD_PRELOAD) dumping the netlink request, decodes
TCA_OPTIONS as netem_change() would keep it, and compares it with
"netem_trace --conf SPEC". The kernel here has no netem: tc's request is
refused after it was built, which is all this needs. Debian 12's tc 6.1
sends latency and jitter as 64 ns ticks and knows no "seed": use times in
whole multiples of 64 ns with units, as specs.txt does.
"""
import os, struct, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
TMP = tempfile.mkdtemp(prefix="lr_tc_xcheck_")
SHIM = os.path.join(TMP, "shim.so")
subprocess.run(["cc", "-shared", "-fPIC", "-o", SHIM, os.path.join(HERE, "shim.c"), "-ldl"], check=True)
TRACE = sys.argv[1]
def tc_conf(spec):
    dump = os.path.join(TMP, "d.bin")
    if os.path.exists(dump): os.unlink(dump)
    env = dict(os.environ, NLDUMP=dump, LD_PRELOAD=SHIM)
    r = subprocess.run(["unshare", "-n", "tc", "qdisc", "add", "dev", "lo", "root", "netem"] + spec.split(),
                       env=env, capture_output=True, text=True)
    if not os.path.exists(dump):
        return None, r.stderr.strip()
    b = open(dump, "rb").read()
    off = 16 + 20
    opts = None
    while off + 4 <= len(b):
        ln, ty = struct.unpack_from("<HH", b, off)
        if ty == 2: opts = b[off+4:off+ln]
        off += (ln + 3) & ~3
    lat, limit, loss, gap, dup, jit = struct.unpack_from("<6I", opts, 0)
    k = dict(latency_ns=lat << 6, jitter_ns=jit << 6, limit=limit, loss=loss, gap=gap, duplicate=dup,
             reorder=0xffffffff if gap else 0, reorder_corr=0, delay_corr=0, loss_corr=0, dup_corr=0,
             corrupt=0, corrupt_corr=0, rate_Bps=0, packet_overhead=0, cell_size=0, cell_overhead=0,
             loss_model=0, a1=0, a2=0, a3=0, a4=0, a5=0, slot=0, slot_min_ns=0, slot_max_ns=0,
             slot_dist_delay_ns=0, slot_dist_jitter_ns=0, slot_max_packets=2**31-1, slot_max_bytes=2**31-1,
             delay_dist_size=0, seed_given=0, seed=0)
    off = 24
    while off + 4 <= len(opts):
        ln, ty = struct.unpack_from("<HH", opts, off)
        ty &= 0x3fff
        p = opts[off+4:off+ln]
        if ty == 1: k["delay_corr"], k["loss_corr"], k["dup_corr"] = struct.unpack_from("<3I", p)
        elif ty == 2: k["delay_dist_size"] = len(p) // 2
        elif ty == 3: k["reorder"], k["reorder_corr"] = struct.unpack_from("<2I", p)
        elif ty == 4: k["corrupt"], k["corrupt_corr"] = struct.unpack_from("<2I", p)
        elif ty == 5:
            ln2, ty2 = struct.unpack_from("<HH", p, 0)
            q = p[4:ln2]
            if ty2 == 1:
                k["loss_model"] = 1
                k["a1"], k["a2"], k["a3"], k["a4"], k["a5"] = struct.unpack_from("<5I", q)
            else:
                k["loss_model"] = 2
                k["a1"], k["a2"], k["a3"], k["a4"] = struct.unpack_from("<4I", q)
        elif ty == 6:
            r32, k["packet_overhead"], k["cell_size"], k["cell_overhead"] = struct.unpack_from("<IiIi", p)
            k["rate_Bps"] = max(k["rate_Bps"], r32)
        elif ty == 8: k["rate_Bps"] = max(k["rate_Bps"], struct.unpack_from("<Q", p)[0])
        elif ty == 10: k["latency_ns"] = struct.unpack_from("<q", p)[0]
        elif ty == 11: k["jitter_ns"] = struct.unpack_from("<q", p)[0]
        elif ty == 12:
            mn, mx, pk, by, dd, dj = struct.unpack_from("<qqiiqq", p)
            k.update(slot=1, slot_min_ns=mn, slot_max_ns=mx, slot_max_packets=pk or 2**31-1,
                     slot_max_bytes=by or 2**31-1, slot_dist_delay_ns=dd, slot_dist_jitter_ns=min(2**31-1, abs(dj)))
        elif ty == 14: k["seed"], k["seed_given"] = struct.unpack_from("<Q", p)[0], 1
        off += (ln + 3) & ~3
    k["jitter_ns"] = min(abs(k["jitter_ns"]), 2**31-1)
    return k, None
def ours(spec):
    r = subprocess.run([TRACE, "--conf", spec], capture_output=True, text=True)
    if r.returncode: return None, r.stderr.strip()
    d = {}
    for line in r.stdout.splitlines():
        n, v = line.split(" ", 1)
        try: d[n] = int(v)
        except ValueError: d[n] = v
    return d, None
bad = 0
for spec in open(sys.argv[2]).read().splitlines():
    if not spec.strip() or spec.startswith("#"): continue
    a, ea = tc_conf(spec)
    b, eb = ours(spec)
    if a is None or b is None:
        same = (a is None) == (b is None)
        print(("ok  " if same else "BAD ") + spec + " | tc: " + str(ea)[:70] + " | ours: " + str(eb)[:90])
        bad += not same
        continue
    diffs = [(n, a[n], b.get(n)) for n in a if b.get(n) != a[n]]
    print(("ok  " if not diffs else "BAD ") + spec + ("" if not diffs else " " + str(diffs)))
    bad += bool(diffs)
print("bad", bad)
sys.exit(1 if bad else 0)
