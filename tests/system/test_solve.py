"""linerate solve: each device's latency from RTT samples between pairs
(lib/latency). The CLI on CSV files (table, --json, exit codes 0/1/2), and
the sockperf and irtt importers on files the real tools write on loopback
during the test. No EAL: no --no-huge, no file prefix.
"""
import gzip
import json
import os
import random
import re
import shutil
import socket
import subprocess
import time

from lrtest import LINERATE, expect, load_json, main, run, tmpdir


def solve(*args, timeout=60):
    return run(["solve"] + list(args), timeout=timeout)


def write_samples(path, devs, pairs, n, hw=0.0, seed=1):
    """Samples as the model says: four independent draws per round trip;
    a device's latency is base + exponential(scale)."""
    rnd = random.Random(seed)

    def draw(d):
        base, scale = devs[d]
        return base + rnd.expovariate(1.0 / scale)

    with open(path, "w") as f:
        f.write("# synthetic: %s\na,b,rtt_ns\n" % devs)
        for _ in range(n):
            for a, b in pairs:
                rtt = draw(a) + draw(a) + draw(b) + draw(b) + 2 * hw
                f.write("%s,%s,%.1f\n" % (a, b, rtt))


def free_port(kind=socket.SOCK_DGRAM):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_csv_table_and_json():
    d = tmpdir()
    csv = os.path.join(d, "lab.csv")
    devs = {"a": (5000, 1000), "b": (20000, 1500), "c": (2000000, 1200),
            "d": (7000, 800)}
    pairs = [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")]
    write_samples(csv, devs, pairs, 50000, hw=300)
    out = os.path.join(d, "r.json")
    r = solve(csv, "--hw", "300", "--json", out)
    expect(r.returncode == 0, (r.returncode, r.stderr))
    expect("rank 4 of 4 unknowns" in r.stdout, r.stdout)
    for name in devs:
        expect(re.search(r"^%s\s+\d" % name, r.stdout, re.M), r.stdout)
    doc = load_json(out)
    expect(doc["rank"] == 4 and doc["unknowns"] == 4, doc)
    expect(set(doc["devices"]) == set(devs), doc["devices"].keys())
    for name, (base, scale) in devs.items():
        o = doc["devices"][name]
        for k in ("mean_ns", "sd_ns", "skew", "min_ns", "ci95_mean_ns"):
            expect(k in o, (name, k, o))
        lo, hi = o["ci95_mean_ns"]
        true = base + scale
        expect(lo < o["mean_ns"] < hi, o)
        # Within the interval, give or take its width.
        expect(lo - (hi - lo) <= true <= hi + (hi - lo), (name, true, o))
        expect(abs(o["sd_ns"] - scale) < 0.1 * scale, (name, o))
        lo, hi = o["ci95_sd_ns"]
        expect(lo <= o["sd_ns"] <= hi and
               lo - (hi - lo) <= scale <= hi + (hi - lo), (name, o))
        lo, hi = o["ci95_skew"]
        expect(lo <= o["skew"] <= hi and
               lo - (hi - lo) <= 2 <= hi + (hi - lo), (name, o))
        expect(abs(o["skew"] - 2) < 0.5, (name, o))   # exponential: 2
        expect(base - 50 < o["min_ns"] < base + 0.2 * scale, (name, o))
    expect(len(doc["pairs"]) == 5, doc["pairs"])
    for p in doc["pairs"]:
        for k in ("a", "b", "samples", "mean_ns", "residual_ns"):
            expect(k in p, p)
        expect(p["samples"] == 50000, p)
        # a,c is in both triangles' equations the same way: it fits
        # whatever it measured (its residual is 0 by construction, none).
        if {p["a"], p["b"]} == {"a", "c"}:
            expect(not p["checked"] and p["residual_ns"] is None, p)
        else:
            expect(p["checked"] and abs(p["residual_ns"]) < 100, p)
    expect(doc["model_checked"] and doc["verdict"] == "ok", doc)
    # The seed's case: c holds +2 ms over its peers, found to < 1 us.
    expect(abs(doc["devices"]["c"]["mean_ns"] - 2001200) < 1000,
           doc["devices"]["c"])

    # --json - writes the document on stdout, --quiet drops the table.
    r = solve(csv, "--hw", "300", "--json", "-", "--quiet")
    expect(r.returncode == 0 and json.loads(r.stdout)["rank"] == 4, r.stdout)
    # gzip input, and the samples of one pair split over two files.
    gz = os.path.join(d, "lab.csv.gz")
    with open(csv, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    r = solve(gz, "--hw", "300", "--json", "-", "--quiet")
    expect(r.returncode == 0, r.stderr)
    expect(json.loads(r.stdout)["pairs"] == doc["pairs"], "gzip differs")
    # Standard input.
    with open(csv) as f:
        r = run(["solve", "-", "--hw", "300", "--json", "-", "--quiet"],
                stdin=f)
    expect(r.returncode == 0, r.stderr)
    expect(json.loads(r.stdout)["pairs"] == doc["pairs"], "stdin differs")


def test_reference_and_hw():
    d = tmpdir()
    csv = os.path.join(d, "ref.csv")
    # ref is constant (a hardware loop): a - ref - b is a chain, fixed by ref.
    devs = {"a": (5000, 1000), "ref": (3000, 1e-9), "b": (9000, 800)}
    write_samples(csv, devs, [("a", "ref"), ("ref", "b")], 20000, hw=250)
    r = solve(csv, "--hw", "250", "--reference", "ref=3000", "--json", "-",
              "--quiet")
    expect(r.returncode == 0, r.stderr)
    doc = json.loads(r.stdout)
    expect(doc["unknowns"] == 2, doc)
    expect(abs(doc["devices"]["a"]["mean_ns"] - 6000) < 60, doc)
    expect(abs(doc["devices"]["b"]["mean_ns"] - 9800) < 60, doc)
    # Without --hw, h is an unknown too: the chain is not enough...
    r = solve(csv, "--reference", "ref=3000")
    expect(r.returncode == 1 and "rank 2 of 3" in r.stderr, r.stderr)
    # ...a triangle is, and h comes out.
    write_samples(os.path.join(d, "ab.csv"), devs, [("a", "b")], 20000,
                  hw=250, seed=2)
    r = solve(csv, os.path.join(d, "ab.csv"), "--reference", "ref=3000",
              "--json", "-", "--quiet")
    expect(r.returncode == 0, r.stderr)
    doc = json.loads(r.stdout)
    expect(doc["hw_solved"] and abs(doc["hw_ns"] - 250) < 60, doc)
    # A pair's own hardware latency.
    r = solve(csv, "--hw", "a,ref=250", "--hw", "ref,b=250", "--reference",
              "ref=3000", "--json", "-", "--quiet")
    expect(r.returncode == 0, r.stderr)
    expect(abs(json.loads(r.stdout)["devices"]["a"]["mean_ns"] - 6000) < 60,
           r.stdout)


def test_undetermined_exit_1():
    d = tmpdir()
    csv = os.path.join(d, "ring.csv")
    devs = {x: (1000, 100) for x in "abcd"}
    # A 4-cycle: bipartite, one degree of freedom left.
    write_samples(csv, devs, [("a", "b"), ("b", "c"), ("c", "d"),
                              ("d", "a")], 100)
    out = os.path.join(d, "u.json")
    r = solve(csv, "--json", out)
    expect(r.returncode == 1, (r.returncode, r.stderr))
    m = re.search(r"measure the pair (\w+),(\w+)", r.stderr)
    expect(m and {m.group(1), m.group(2)} in ({"a", "c"}, {"b", "d"}),
           r.stderr)
    expect("rank 3 of 4 unknowns" in r.stderr, r.stderr)
    expect(r.stdout == "", "numbers printed: " + r.stdout)
    doc = load_json(out)
    expect("devices" not in doc and doc["rank"] == 3 and
           doc["unknowns"] == 4, doc)
    # Measuring the pair named determines the system.
    fix = os.path.join(d, "fix.csv")
    write_samples(fix, devs, [(m.group(1), m.group(2))], 100, seed=3)
    r = solve(csv, fix)
    expect(r.returncode == 0, r.stderr)
    # Two devices: a loop through one of them is what is missing.
    two = os.path.join(d, "two.csv")
    write_samples(two, devs, [("a", "b")], 10)
    r = solve(two)
    expect(r.returncode == 1 and re.search(r"pair (a,a|b,b)", r.stderr),
           r.stderr)
    # Disconnected: a triangle and a lone pair, linked by the pair named.
    tri = os.path.join(d, "tri.csv")
    devs.update({"e": (1000, 100)})
    write_samples(tri, devs, [("a", "b"), ("b", "c"), ("c", "a"),
                              ("d", "e")], 10)
    r = solve(tri)
    m = re.search(r"measure the pair (\w+),(\w+)", r.stderr)
    expect(r.returncode == 1 and m and m.group(1) in "de" and
           m.group(2) in "abc", r.stderr)


def test_bad_input_exit_2():
    d = tmpdir()
    bad = os.path.join(d, "bad.csv")
    with open(bad, "w") as f:
        f.write("# ok\na,b,1000\nb,c,x12\n")
    r = solve(bad)
    expect(r.returncode == 2 and "%s:3:" % bad in r.stderr, r.stderr)
    with open(bad, "w") as f:
        f.write("a,b,1000\na;c;1000\n")
    r = solve(bad)
    expect(r.returncode == 2 and "%s:2:" % bad in r.stderr, r.stderr)
    r = solve(os.path.join(d, "missing.csv"))
    expect(r.returncode == 2 and "missing.csv" in r.stderr, r.stderr)
    for args in (["--hw", "-3"], ["--hw", "a,b"], ["--reference", "x"],
                 ["--reference", "x=ms"], ["--boot", "1"], ["--nope"],
                 ["--sockperf", "a=f"], ["--json"], []):
        r = solve(*args)
        expect(r.returncode == 2, (args, r.returncode, r.stderr))
    # The wrong importer for a file says so.
    with open(bad, "w") as f:
        f.write('{"round_trips": []}\n')
    r = solve("--sockperf", "a,b=" + bad)
    expect(r.returncode == 2 and "sockperf" in r.stderr, r.stderr)
    r = solve("--help")
    expect(r.returncode == 0 and "--reference DEV=NS" in r.stdout, r.stdout)
    # The options are a table (lr_opt), as the roles': a typo is named
    # with the option it is nearest to, --key=value is --key value.
    r = solve("--bot", "100")
    expect(r.returncode == 2 and "did you mean '--boot'?" in r.stderr, r.stderr)
    r = solve("--quiet=1")
    expect(r.returncode == 2 and "takes no value" in r.stderr, r.stderr)
    # Said once: "linerate solve: --json ''", not the prefix twice.
    for args, needle in ((["--json", ""], "linerate solve: --json '': want 1.."),
                         (["--boot", "x"], "linerate solve: --boot 'x': want a number")):
        r = solve(*args)
        lines = r.stderr.strip().splitlines()
        expect(r.returncode == 2 and len(lines) == 1 and lines[0].startswith(needle),
               (args, r.stderr))


def sockperf_log(d, name):
    """A real sockperf ping-pong --full-log on loopback."""
    port = free_port()
    srv = subprocess.Popen(["sockperf", "server", "-i", "127.0.0.1", "-p",
                            str(port)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        log = os.path.join(d, name)
        r = subprocess.run(["sockperf", "ping-pong", "-i", "127.0.0.1", "-p",
                            str(port), "-t", "1", "--mps", "20000",
                            "--full-log", log], capture_output=True,
                           text=True, timeout=60)
        expect(r.returncode == 0, r.stdout + r.stderr)
    finally:
        srv.terminate()
        srv.wait()
    rtts = []
    with open(log) as f:
        lines = f.read().split("\n")
    i = lines.index("packet, txTime(sec), rxTime(sec), latency(usec)")
    for line in lines[i + 1:]:
        if not line or line.startswith("-"):
            break
        _, tx, rx, _ = [x.strip() for x in line.split(",")]

        def ns(s):
            sec, frac = s.split(".")
            return int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])
        if ns(rx):
            rtts.append(ns(rx) - ns(tx))
    expect(len(rtts) > 1000, len(rtts))
    return log, rtts


def irtt_json(d, name):
    """A real irtt client -o on loopback (.json or .json.gz)."""
    port = free_port()
    srv = subprocess.Popen(["irtt", "server", "-b", "127.0.0.1:%d" % port],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        out = os.path.join(d, name)
        r = subprocess.run(["irtt", "client", "-q", "-d", "1s", "-i", "10ms",
                            "-o", out, "127.0.0.1:%d" % port],
                           capture_output=True, text=True, timeout=60)
        expect(r.returncode == 0, r.stdout + r.stderr)
    finally:
        srv.terminate()
        srv.wait()
    op = gzip.open if out.endswith(".gz") else open
    with op(out, "rt") as f:
        doc = json.load(f)
    rtts = []
    for rt in doc["round_trips"]:
        if rt["lost"] != "false":
            continue
        c = rt["timestamps"]["client"]
        rtts.append(c["receive"]["monotonic"] - c["send"]["monotonic"])
    expect(len(rtts) > 50, len(rtts))
    return out, rtts


def pair_of(doc, a, b):
    for p in doc["pairs"]:
        if {p["a"], p["b"]} == {a, b}:
            return p
    raise AssertionError("no pair %s,%s in %s" % (a, b, doc["pairs"]))


def test_sockperf_and_irtt_importers():
    d = tmpdir()
    splog, sp = sockperf_log(d, "sp.csv")
    ilog, ir = irtt_json(d, "irtt.json")
    igz, irgz = irtt_json(d, "irtt.json.gz")
    with open(igz, "rb") as f:
        expect(f.read(2) == b"\x1f\x8b", "irtt did not gzip")
    # The kernel pairs join a triangle of synthetic devices.
    csv = os.path.join(d, "lab.csv")
    devs = {"x": (5000, 500), "y": (6000, 500), "z": (7000, 500)}
    write_samples(csv, devs, [("x", "y"), ("y", "z"), ("z", "x")], 2000)
    r = solve(csv, "--sockperf", "x,kern1=" + splog, "--irtt",
              "kern1,kern2=" + ilog, "--irtt", "x,kern3=" + igz,
              "--json", "-", "--quiet")
    # The loopback's kernels beside synthetic devices need not fit the
    # model (a variance below 0 over its interval): exit 3 says so, and
    # the importers' numbers are checked the same.
    expect(r.returncode in (0, 3), (r.returncode, r.stderr))
    doc = json.loads(r.stdout)
    expect((r.returncode == 3) == (doc["verdict"] == "implausible") and
           (r.returncode == 0 or "implausible: " in r.stderr), r.stderr)
    expect(doc["unknowns"] == 6 and doc["rank"] == 6, doc)
    # Six pairs for six unknowns: said unchecked, with a pair to add.
    expect(not doc["model_checked"] and "model unchecked" in r.stderr,
           r.stderr)
    for (a, b), rtts in ((("x", "kern1"), sp), (("kern1", "kern2"), ir),
                         (("x", "kern3"), irgz)):
        p = pair_of(doc, a, b)
        mean = sum(rtts) / len(rtts)
        expect(p["samples"] == len(rtts), (a, b, p, len(rtts)))
        expect(abs(p["mean_ns"] - mean) < 1e-6 * mean, (p, mean))
        expect(abs(p["min_ns"] - min(rtts)) < 1e-3, (p, min(rtts)))
    for k in ("kern1", "kern2", "kern3"):
        expect(k in doc["devices"], doc["devices"].keys())
    # A sockperf log given to --irtt is refused with the file named.
    r = solve("--irtt", "a,b=" + splog)
    expect(r.returncode == 2 and splog in r.stderr, r.stderr)


def write_rows(path, rows, n, seed=5):
    """n samples of each (a, b, draw) in rows, draw(rnd) -> rtt_ns."""
    rnd = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(n):
            for a, b, draw in rows:
                f.write("%s,%s,%.1f\n" % (a, b, draw(rnd)))


def test_implausible_exit_3():
    d = tmpdir()
    # b,c much slower than a,b and a,c together: t_a = (ab + ac - bc) / 4
    # < 0, its whole interval, and its minimum likewise.
    neg = os.path.join(d, "neg.csv")
    write_rows(neg, [("a", "b", lambda r: 10000 + r.expovariate(1 / 500)),
                     ("a", "c", lambda r: 10000 + r.expovariate(1 / 500)),
                     ("b", "c", lambda r: 60000 + r.expovariate(1 / 500)),
                     ("b", "b", lambda r: 30000 + r.expovariate(1 / 500))],
               2000)
    out = os.path.join(d, "neg.json")
    r = solve(neg, "--json", out)
    expect(r.returncode == 3, (r.returncode, r.stdout, r.stderr))
    expect(re.search(r"^a .*IMPLAUSIBLE: mean_ns -\d", r.stdout, re.M),
           r.stdout)
    expect("implausible" in r.stdout.splitlines()[-1], r.stdout)
    doc = load_json(out)
    expect(doc["verdict"] == "implausible" and doc["implausible"] >= 1, doc)
    a = doc["devices"]["a"]
    expect(a["implausible"] and "mean_ns" in a["implausible_why"] and
           "min_ns" in a["implausible_why"], a)
    expect(a["ci95_mean_ns"][1] < 0 and a["min_range_ns"][1] < 0, a)
    # --quiet: the reasons on stderr.
    r = solve(neg, "--quiet")
    expect(r.returncode == 3 and "implausible: a: mean_ns" in r.stderr,
           r.stderr)

    # A minimum above the mean: a,b and a,c constant, b,c spread from a
    # low minimum: t_a's minimum (ab + ac - bc_min) / 4 = 12.5 us over
    # its mean (ab + ac - bc_mean) / 4 = 7.5 us.
    hi = os.path.join(d, "hi.csv")
    write_rows(hi, [("a", "b", lambda r: 30000 + r.uniform(0, 10)),
                    ("a", "c", lambda r: 30000 + r.uniform(0, 10)),
                    ("b", "c", lambda r: 10000 + r.expovariate(1 / 20000)),
                    ("c", "c", lambda r: 40000 + r.expovariate(1 / 500))],
               2000)
    r = solve(hi, "--json", "-", "--quiet")
    expect(r.returncode == 3, (r.returncode, r.stderr))
    a = json.loads(r.stdout)["devices"]["a"]
    expect(a["implausible"] and "min_ns" in a["implausible_why"] and
           "> mean_ns" in a["implausible_why"], a)
    expect(a["min_range_ns"][0] > a["ci95_mean_ns"][1], a)

    # A hardware latency solved below 0 (a reference declared slower than
    # the RTTs allow: h = -1 us): flagged the same, exit 3.
    hn = os.path.join(d, "hneg.csv")
    write_rows(hn, [("a", "ref", lambda r: 14000 + r.expovariate(1 / 200)),
                    ("ref", "b", lambda r: 20000 + r.expovariate(1 / 200)),
                    ("a", "b", lambda r: 24000 + r.expovariate(1 / 200))],
               2000)
    r = solve(hn, "--reference", "ref=3000", "--json", "-", "--quiet")
    expect(r.returncode == 3 and "implausible: hw_ns -" in r.stderr,
           (r.returncode, r.stderr))
    doc = json.loads(r.stdout)
    expect(doc["verdict"] == "implausible" and doc["hw_solved"] and
           doc["ci95_hw_ns"][1] < 0 and "hw_ns" in doc["hw_implausible_why"],
           doc)

    # The same model with honest devices: nothing flagged, exit 0 (and
    # the doc's example is plausible too).
    ok = os.path.join(d, "ok.csv")
    write_samples(ok, {"a": (5000, 1000), "b": (9000, 800),
                       "c": (3000, 300)},
                  [("a", "b"), ("a", "c"), ("b", "c"), ("b", "b")], 2000)
    r = solve(ok, "--json", "-", "--quiet")
    expect(r.returncode == 0, (r.returncode, r.stderr))
    doc = json.loads(r.stdout)
    expect(doc["verdict"] == "ok" and doc["implausible"] == 0 and
           doc["hw_implausible_why"] is None, doc)
    for name, o in doc["devices"].items():
        expect(not o["implausible"] and o["implausible_why"] is None, o)
        lo, hi = o["min_range_ns"]
        expect(lo <= o["min_ns"] <= hi, o)


def test_model_unchecked():
    d = tmpdir()
    tri = os.path.join(d, "tri.csv")
    devs = {"a": (5000, 1000), "b": (9000, 800), "c": (3000, 300)}
    write_samples(tri, devs, [("a", "b"), ("a", "c"), ("b", "c")], 500)
    # Three pairs, three unknowns: every residual is 0 whatever the
    # devices do; the table and the JSON say so and name a pair to add
    # (every pair of devices is measured: a loop through one).
    r = solve(tri, "--json", os.path.join(d, "t.json"))
    expect(r.returncode == 0, (r.returncode, r.stderr))
    expect("model unchecked" in r.stderr and "exactly determined" in
           r.stderr, r.stderr)
    m = re.search(r"measure the pair (\w+),(\w+) to check it", r.stderr)
    expect(m and m.group(1) == m.group(2), r.stderr)
    expect(re.search(r"^a\s+b\s+500\s+[\d.]+\s+unchecked$", r.stdout, re.M),
           r.stdout)
    doc = load_json(os.path.join(d, "t.json"))
    expect(doc["model_checked"] is False and doc["redundancy"] == 0, doc)
    expect(doc["check_pair"] == [m.group(1), m.group(2)], doc)
    for p in doc["pairs"]:
        expect(p["residual_ns"] is None and not p["checked"], p)
    for o in doc["devices"].values():
        expect(not o["checked"], o)
    # Measuring the pair named checks the model: residuals come back.
    write_samples(os.path.join(d, "fix.csv"), devs,
                  [(m.group(1), m.group(2))], 500, seed=4)
    r = solve(tri, os.path.join(d, "fix.csv"), "--json", "-", "--quiet")
    expect(r.returncode == 0 and "unchecked" not in r.stderr, r.stderr)
    doc = json.loads(r.stdout)
    expect(doc["model_checked"] and doc["redundancy"] == 1, doc)
    expect(all(p["checked"] and p["residual_ns"] is not None
               for p in doc["pairs"]), doc["pairs"])
    # A device tied in by one pair only: the rest is checked, it is not.
    write_samples(os.path.join(d, "tail.csv"), {"a": (5000, 1000),
                  "z": (2000, 100)}, [("a", "z")], 500, seed=6)
    r = solve(tri, os.path.join(d, "fix.csv"), os.path.join(d, "tail.csv"),
              "--json", "-", "--quiet")
    doc = json.loads(r.stdout)
    expect(not doc["model_checked"] and doc["check_pair"][0] == "z", doc)
    expect(not doc["devices"]["z"]["checked"] and
           doc["devices"]["b"]["checked"], doc["devices"])


def small_lab(d):
    csv = os.path.join(d, "lab.csv")
    devs = {"a": (5000, 1000), "b": (9000, 800), "c": (3000, 300)}
    write_samples(csv, devs, [("a", "b"), ("a", "c"), ("b", "c"),
                              ("a", "a")], 200)
    return csv


def test_json_stdout_alone():
    d = tmpdir()
    csv = small_lab(d)
    # --json - with the table: stdout (a file here) is the JSON alone.
    js = os.path.join(d, "out.json")
    with open(js, "w") as f:
        r = subprocess.run([LINERATE, "solve", csv, "--json", "-"],
                           stdout=f, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    expect(r.returncode == 0, r.stderr)
    expect(load_json(js)["rank"] == 3, "stdout not the JSON alone")
    expect("rank 3 of 3 unknowns" in r.stderr, r.stderr)



def test_truncated_gz():
    d = tmpdir()
    csv = small_lab(d)
    # A truncated .gz: refused, not read up to the cut.
    with open(csv, "rb") as f:
        data = gzip.compress(f.read())
    gz = os.path.join(d, "cut.csv.gz")
    with open(gz, "wb") as f:
        f.write(data[:len(data) // 2])
    r = solve(gz)
    expect(r.returncode == 2 and "cut.csv.gz: truncated or corrupt gzip"
           in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr)
    # ...and one cut in its trailer (every line there, the check sum not).
    with open(gz, "wb") as f:
        f.write(data[:-4])
    r = solve(gz)
    expect(r.returncode == 2 and "truncated" in r.stderr, r.stderr)



def test_non_finite_and_names():
    d = tmpdir()
    # Values past what a double can square: null with the reason, the
    # devices flagged (exit 3), none missing from the JSON.
    inf = os.path.join(d, "inf.csv")
    with open(inf, "w") as f:
        f.write("a,b,1e300\na,b,1\na,c,100\nb,c,100\na,c,100\nb,c,100\n"
                "a,a,50\na,a,50\n")
    r = solve(inf, "--json", "-", "--quiet")
    expect(r.returncode == 3, (r.returncode, r.stderr))
    doc = json.loads(r.stdout)
    expect(set(doc["devices"]) == {"a", "b", "c"}, doc)
    expect(len(doc["pairs"]) == 4, doc["pairs"])
    expect(doc["devices"]["a"]["var_ns2"] is None and "not finite" in
           doc["devices"]["a"]["implausible_why"], doc["devices"]["a"])

    # Names must be UTF-8 (they are JSON keys), refused by file:line.
    bad = os.path.join(d, "bad.csv")
    with open(bad, "wb") as f:
        f.write(b"a,b,100\n\xff\xfe,c,100\n")
    r = solve(bad)
    expect(r.returncode == 2 and "bad.csv:2:" in r.stderr and
           "not UTF-8" in r.stderr, r.stderr)


def test_error_messages():
    d = tmpdir()
    bad = os.path.join(d, "bad.csv")
    # The message is not formatted into itself.
    with open(bad, "w") as f:
        f.write(",b,100\n")
    r = solve(bad)
    expect(r.returncode == 2 and r.stderr.count("bad.csv:1:") == 1 and
           "device name ''" in r.stderr, r.stderr)
    # A NUL byte is named as such.
    with open(bad, "wb") as f:
        f.write(b"a,b,100\nb,c\x00,100\n")
    r = solve(bad)
    expect(r.returncode == 2 and "bad.csv:2: a NUL byte" in r.stderr,
           r.stderr)
    # A directory says so, not "No such file".
    r = solve(d)
    expect(r.returncode == 2 and "Is a directory" in r.stderr, r.stderr)
    r = solve("--irtt", "a,b=" + d)
    expect(r.returncode == 2 and "Is a directory" in r.stderr, r.stderr)



def test_irtt_overflow():
    d = tmpdir()
    # irtt: stamps whose difference overflows int64, a receive before the
    # send: refused with file:line of the round trip.
    ij = os.path.join(d, "i.json")
    def rt(tx, rx):
        return {"lost": "false", "timestamps": {"client": {
            "send": {"monotonic": tx}, "receive": {"monotonic": rx}}}}
    for tx, rx in ((-9 * 10**18, 9 * 10**18), (5000, 4000)):
        with open(ij, "w") as f:
            json.dump({"round_trips": [rt(1000, 2000), rt(tx, rx)]}, f,
                      indent=2)
        with open(ij) as f:
            want = [i + 1 for i, line in enumerate(f)
                    if line == "    {\n"][1]
        r = solve("--irtt", "a,b=" + ij)
        expect(r.returncode == 2 and "i.json:%d: round trip 1" % want in
               r.stderr and "not a time >= 0" in r.stderr, r.stderr)



def asan():
    """The binary is built with AddressSanitizer: it reserves terabytes of
    shadow address space, so no RLIMIT_AS lets it start."""
    r = subprocess.run(["ldd", LINERATE], capture_output=True, text=True)
    return "libasan" in r.stdout


def test_no_memory():
    if asan():
        print("  skip: an AddressSanitizer build cannot run under RLIMIT_AS")
        return
    d = tmpdir()
    # No memory says so (an irtt file is read whole: 200 MB of blanks
    # under a 150 MB address space).
    big = os.path.join(d, "big.json.gz")
    with gzip.open(big, "wb", compresslevel=1) as f:
        for _ in range(200):
            f.write(b" " * (1 << 20))

    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (150 << 20, 150 << 20))
    r = subprocess.run([LINERATE, "solve", "--irtt", "a,b=" + big],
                       capture_output=True, text=True, timeout=60,
                       preexec_fn=limit)
    expect(r.returncode == 2 and "Cannot allocate memory" in r.stderr,
           r.stderr)


def test_json_checked_first_and_whole():
    # --json to a missing directory is found before the solve (nothing
    # solved, nothing printed: it was found after, the table printed);
    # a document that does not fit leaves the file it would replace as it
    # was (a full tmpfs made for the test: it was truncated).
    d = tmpdir()
    csv = small_lab(d)
    missing = os.path.join(d, "no", "out.json")
    r = solve(csv, "--json", missing)
    expect(r.returncode == 2 and r.stdout == "" and
           r.stderr.strip() == "linerate solve: --json '%s': cannot write "
           "(No such file or directory)" % missing, (r.returncode, r.stdout[-200:], r.stderr))
    if os.geteuid() != 0:
        print("  skip: needs root (mount)")
        return
    full = os.path.join(d, "full")
    os.mkdir(full)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "lr_st_full", full],
                   check=True)
    try:
        out = os.path.join(full, "out.json")
        with open(out, "w") as f:
            f.write('{"old": true}\n')
        try:
            with open(os.path.join(full, "filler"), "wb") as f:
                while True:
                    f.write(b"x" * 4096)
                    f.flush()
        except OSError:
            pass
        r = solve(csv, "--json", out)
        lines = r.stderr.strip().splitlines()
        expect(r.returncode == 2 and "No space left on device" in lines[-1],
               (r.returncode, r.stderr))
        expect(load_json(out) == {"old": True}, open(out).read()[:100])
        expect(sorted(os.listdir(full)) == ["filler", "out.json"], os.listdir(full))
    finally:
        subprocess.run(["umount", full])


def test_stdout_full_and_bom():
    """The table on stdout is the result: > /dev/full fails in one line,
    not exit 0 (issue 35 L11); a UTF-8 byte order mark before the first
    line is skipped, not part of the first device's name."""
    d = tmpdir()
    csv = small_lab(d)
    with open("/dev/full", "w") as full:
        r = subprocess.run([LINERATE, "solve", csv], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    lines = r.stderr.strip().splitlines()
    expect(r.returncode == 2 and len(lines) == 1 and
           "cannot write stdout (No space left on device)" in lines[0],
           (r.returncode, r.stderr))
    # Without the comment and the header: the BOM before device a.
    body = [l for l in open(csv) if not l.startswith(("#", "a,b,rtt_ns"))]
    bom = os.path.join(d, "bom.csv")
    with open(bom, "wb") as f:
        f.write(b"\xef\xbb\xbf" + "".join(body).encode())
    out = os.path.join(d, "bom.json")
    r = solve(bom, "--json", out, "--quiet")
    expect(r.returncode in (0, 3), (r.returncode, r.stderr))
    names = sorted(load_json(out)["devices"])
    expect(names == ["a", "b", "c"], names)


if __name__ == "__main__":
    main([test_stdout_full_and_bom, test_csv_table_and_json, test_reference_and_hw,
          test_undetermined_exit_1, test_bad_input_exit_2,
          test_sockperf_and_irtt_importers, test_implausible_exit_3,
          test_model_unchecked, test_json_stdout_alone, test_truncated_gz,
          test_non_finite_and_names, test_error_messages, test_irtt_overflow,
          test_no_memory, test_json_checked_first_and_whole])
