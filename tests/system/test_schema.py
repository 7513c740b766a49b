#!/usr/bin/env python3
"""doc/schema/: every result document checked against its JSON Schema.

Each schema is a valid JSON Schema (draft 2020-12, python3-jsonschema from
Debian), and each is checked against a real output of the binary made
here: one run of every role together (gen -> rx on a wire with per-flow
latency and a series, gen -> dist -> two probes, gen -> probe to a file,
gen -> delay -> rx, rtt <-> reflect), a gen replaying a capture, `linerate
solve` (determined and not), lua/per-sweep.lua's rows, lua/rfc2544.lua's
document and `linerate doctor`'s findings. Broken copies of those documents (a required field removed, a
field of the wrong type, an unknown field) must be rejected, so that the
schemas catch drift; every key of the roles' counter tables (`linerate
--counters-json`) is in its role's schema with the type the table gives
it; the last test checks that every schema file was validated against a
real output. doc/usage.md's command line
(tools/schema-check.py) runs as written, with Debian's jsonschema and, when
at hand, jsonschema 4.18 or later.
"""
import copy
import json
import os
import pathlib
import shutil
import socket
import subprocess

from jsonschema import Draft202012Validator, RefResolver

from lrtest import LINERATE, SRC, eal, expect, load_json, main, run, tmpdir

SCHEMA_DIR = pathlib.Path(SRC) / "doc" / "schema"
# Every schema file, and the document each checks (common.json holds the
# definitions the others share: it is checked through them).
SCHEMAS = ["common.json", "run.json", "gen.json", "rx.json", "probe.json", "dist.json",
           "delay.json", "reflect.json", "rtt.json", "solve.json", "per-sweep.json",
           "rfc2544.json", "doctor.json"]
VALIDATED = set()
DOCS = {}		# schema name -> a real document it passed

STORE = {}


def load_schemas():
    if not STORE:
        for p in SCHEMA_DIR.glob("*.json"):
            STORE[p.as_uri()] = json.load(open(p))
    return STORE


def validator(name):
    store = load_schemas()
    uri = (SCHEMA_DIR / name).as_uri()
    # The $refs resolve against each schema's absolute $id.
    by_id = {s["$id"]: s for s in store.values()}
    return Draft202012Validator(store[uri],
                                resolver=RefResolver.from_schema(store[uri], store=by_id))


def errors(name, doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message[:300])
            for e in validator(name).iter_errors(doc)]


def valid(name, doc, what):
    errs = errors(name, doc)
    expect(not errs, "%s against %s:\n%s" % (what, name, "\n".join(errs[:20])))
    VALIDATED.add(name)
    DOCS.setdefault(name, doc)
    if name != "run.json" and name in ("gen.json", "rx.json", "probe.json", "dist.json",
                                       "delay.json", "reflect.json", "rtt.json"):
        VALIDATED.add("common.json")


ALL_ROLES = r"""
local linerate = require("linerate")
linerate.live(false)
local out, export = arg[1], arg[2]
linerate.series(0.05)
-- gen -> rx, paced, per-flow latency and jitter
local a1, b1 = assert(linerate.wire("sc1"))
assert(linerate.task{ role = "rx", port = b1, flows = 8, flow_latency = 1 })
local g1 = assert(linerate.task{ role = "gen", port = a1, count = 20000, rate = "1Mpps", flows = 8 })
-- gen -> a distributor -> two probes on its channels (UH records)
local a2, b2 = assert(linerate.wire("sc2"))
local dist = assert(linerate.task{ role = "dist", port = b2, channels = 2, ingress = "uh", count = 2000 })
for i = 0, 1 do
	assert(linerate.task{ role = "probe", port = b2, dist = dist, channel = i,
	                      entries = 4096, export = export, export_rate = 1000 })
end
local g2 = assert(linerate.task{ role = "gen", port = a2, count = 2000, flows = 20 })
-- gen -> a probe on the port's queue; every probe's records go paced
-- over UDP to the test's socket
local a3, b3 = assert(linerate.wire("sc3"))
assert(linerate.task{ role = "probe", port = b3, entries = 4096, count = 2000, export = export,
                      export_rate = 1000 })
local g3 = assert(linerate.task{ role = "gen", port = a3, count = 2000, flows = 20, size = "64,128" })
-- gen -> delay -> rx
local a4, b4 = assert(linerate.wire("sc4"))
local a5, b5 = assert(linerate.wire("sc5"))
assert(linerate.task{ role = "rx", port = b5, flows = 4, flow_base = 100 })
assert(linerate.task{ role = "delay", port = b4, peer = a5, netem = "delay 1ms loss 1%",
                      netem_back = "delay 1ms" })
local g4 = assert(linerate.task{ role = "gen", port = a4, count = 5000, rate = "1Mpps", flows = 4, flow_base = 100 })
-- rtt <-> reflect, stamping its residence, holding frames 100 us
local a6, b6 = assert(linerate.wire("sc6"))
assert(linerate.task{ role = "reflect", port = b6, stamp = 1, add_delay = "delay 100us",
                      rate = "100000" })
local rtt = assert(linerate.plan{ role = "rtt", port = a6, count = 2000, rate = "100000",
                                  flows = 4, size = 128, pair = "a,b" })
linerate.start()
for _, g in ipairs{ g1, g2, g3, g4 } do assert(g:wait(60)) end
for _, t in ipairs(rtt) do t:wait(10) end
linerate.sleep(0.2)
linerate.stop()
assert(linerate.write_json(out))
"""


def roles_run():
    if "run.json" not in DOCS:
        d = tmpdir()
        script, out = os.path.join(d, "all.lua"), os.path.join(d, "all.json")
        with open(script, "w") as f:
            f.write(ALL_ROLES)
        # The collector: a socket of the test's own that the records
        # reach (read by no one: the kernel's buffer holds them).
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        sock.bind(("127.0.0.1", 0))
        try:
            r = run(eal("schema", mem=1024) +
                    ["--", script, out, "udp:127.0.0.1:%d" % sock.getsockname()[1]],
                    timeout=120)
        finally:
            sock.close()
        expect(os.path.exists(out), (r.returncode, r.stdout[-1000:], r.stderr[-2000:]))
        DOCS["run.json"] = load_json(out)
    return DOCS["run.json"]


def test_schemas_are_valid():
    """Each file is a valid draft 2020-12 schema; the list above is the
    directory's."""
    names = sorted(p.name for p in SCHEMA_DIR.glob("*.json"))
    expect(names == sorted(SCHEMAS), (names, SCHEMAS))
    for n in SCHEMAS:
        Draft202012Validator.check_schema(json.load(open(SCHEMA_DIR / n)))


def test_every_role_in_one_run():
    doc = roles_run()
    roles = {t["role"] for t in doc["tasks"]}
    expect(roles == {"gen", "rx", "probe", "dist", "delay", "reflect"}, roles)
    for k in ("rx", "probe", "delay", "reflect", "rtt", "series"):
        expect(k in doc, (k, list(doc)))
    expect(any("jitter" in t for t in doc["tasks"]) and doc["rtt"]["pairs"],
           "per-flow latency and a pair in the run")
    expect("export_rate" in doc["probe"]["exporter"] and "back" in doc["tasks"][first(doc, "delay")]
           and "hold" in doc["tasks"][first(doc, "reflect")], "the optional parts asked for")
    for n in ("run.json", "gen.json", "rx.json", "probe.json", "dist.json", "delay.json",
              "reflect.json", "rtt.json"):
        valid(n, doc, "the run of every role")


def test_captures():
    """gen --pcap: the replay's fields (a capture gen wrote, replayed
    with linerate's header stamped); the probe reading that capture."""
    d = tmpdir()
    pcap, out = os.path.join(d, "g.pcap"), os.path.join(d, "r.json")
    r = run(eal("schemapc") + ["--vdev", "net_pcap0,tx_pcap=" + pcap, "--", "--role", "gen",
                               "--port", "0", "--count", "100", "--no-live"])
    expect(r.returncode == 0 and os.path.exists(pcap), r.stderr[-1500:])
    r = run(eal("schemarp") + ["--vdev", "net_null0", "--", "--role", "gen", "--port", "0",
                               "--pcap", pcap, "--count", "300", "--rate", "1Mpps",
                               "--stamp", "1", "--json", out, "--no-live"])
    doc = load_json(out)
    g = doc["tasks"][0]
    expect(g["pcap_frames"] == 100 and "stamped_packets" in g and "offered" in g, g)
    valid("gen.json", doc, "gen --pcap")
    # The probe on the capture, read whole (--pcap), and through net_pcap
    # (the engine's end_of_capture).
    for k, port in enumerate(["net_null0", "net_pcap0,rx_pcap=" + pcap]):
        out = os.path.join(d, "p%d.json" % k)
        args = ["--role", "probe", "--port", port, "--export", "none", "--json", out,
                "--no-live", "--duration", "10"]
        r = run(eal("schemapr%d" % k) + ["--"] + args + (["--pcap", pcap] if k == 0 else []))
        doc = load_json(out)
        p = doc["tasks"][0]
        expect(r.returncode == 0 and p["end_of_capture"] == 100 and
               (k == 1 or p["pcap_frames"] == 100), (r.returncode, p, r.stderr[-1000:]))
        valid("probe.json", doc, "a probe on a capture")


def test_solve():
    """Determined (the example's lab), and undetermined (one pair, two
    unknowns): the second has only its verdict and what to measure."""
    d = tmpdir()
    out = os.path.join(d, "s.json")
    r = run(["solve", os.path.join(SRC, "doc", "examples", "solve", "lab.csv"), "--json", out])
    expect(r.returncode == 0, r.stderr[-1000:])
    doc = load_json(out)
    expect(doc["determined"] and doc["devices"], doc)
    valid("solve.json", doc, "solve lab.csv")
    csv = os.path.join(d, "one.csv")
    with open(csv, "w") as f:
        f.write("".join("a,b,%d\n" % (1000 + i) for i in range(20)))
    out2 = os.path.join(d, "u.json")
    r = run(["solve", csv, "--json", out2])
    doc = load_json(out2)
    expect(r.returncode != 0 and not doc["determined"] and doc["verdict"] == "undetermined",
           (r.returncode, doc))
    valid("solve.json", doc, "an undetermined solve")


def test_doctor():
    """linerate doctor's findings on this machine, sysfs and procfs only
    (tests/system/test_doctor.py checks them on faked trees)."""
    out = os.path.join(tmpdir(), "doctor.json")
    r = run(["doctor", "--no-pci", "-l", "0-1", "--", "--no-eal", "--json", out])
    expect(r.returncode in (0, 1) and os.path.exists(out), (r.returncode, r.stderr[-500:]))
    doc = load_json(out)
    expect(doc["checks"] and doc["exit"] == r.returncode, doc)
    valid("doctor.json", doc, "doctor on this machine")


def test_per_sweep():
    rows = os.path.join(tmpdir(), "per.jsonl")
    r = run(eal("schemaper", mem=1024) +
            ["--", os.path.join(SRC, "lua", "per-sweep.lua"), "mode=wire", "seconds=0.1",
             "sizes=64,1472", "rate=50%", "catch_up=20000", "json=" + rows], timeout=120)
    got = [json.loads(l) for l in open(rows)]
    expect(len(got) == 2, (r.returncode, r.stdout[-1000:], r.stderr[-1000:]))
    for row in got:
        valid("per-sweep.json", row, "a per-sweep row")


def test_rfc2544():
    """Every test over an emulated device; a loaded host may leave answers
    bounded or none: each shape the document then takes is the schema's."""
    out = os.path.join(tmpdir(), "r.json")
    r = run(eal("schemarfc", lcores="0@0,1@1,2@0", mem=2048) +
            ["--", os.path.join(SRC, "lua", "rfc2544.lua"), "dut=delay",
             "dut_netem=rate 100mbit limit 50", "sizes=64", "tests=throughput,latency,loss,b2b",
             "max=2", "steps=4", "trial=0.1", "warmup=0.02", "latency_trials=1",
             "b2b_trials=1", "b2b_max=2000", "quiet=1", "json=" + out], timeout=300)
    expect(r.returncode in (0, 3), (r.returncode, r.stderr[-1500:]))
    doc = load_json(out)
    expect(doc["history"] and doc["sizes"], doc)
    valid("rfc2544.json", doc, "rfc2544")
    # A device that forwards nothing: trials that received nothing, their
    # latency histograms empty (buckets a list, not an object: issue 35 M6).
    r = run(eal("schemarfc0", lcores="0@0,1@1,2@0", mem=2048) +
            ["--", os.path.join(SRC, "lua", "rfc2544.lua"), "dut=delay",
             "dut_netem=loss 100%", "sizes=64", "tests=throughput,latency", "max=0.01",
             "steps=2", "trial=0.05", "warmup=0", "calibrate=0", "quiet=1",
             "json=" + out], timeout=300)
    expect(r.returncode == 3, (r.returncode, r.stderr[-1500:]))
    doc = load_json(out)
    expect(all(t["received"] == 0 and t["latency"]["buckets"] == []
               for t in doc["history"]), doc["history"])
    valid("rfc2544.json", doc, "rfc2544, a device that forwards nothing")


SERIES_IDLE_RX = r"""
local linerate = require("linerate")
linerate.live(false)
linerate.series(0.05)
-- rx waits on a wire nobody sends on; gen sends to net_null meanwhile:
-- the series' intervals move frames, none of them rx's.
local a, b = assert(linerate.wire("scs"))
assert(linerate.task{ role = "rx", port = b, flows = 4 })
local null = assert(linerate.port("net_null0"))
local g = assert(linerate.task{ role = "gen", port = null, duration = 0.4, rate = "100000" })
linerate.start()
assert(g:wait(30))
linerate.stop()
assert(linerate.write_json(arg[1]))
"""


def test_series_interval_without_frames():
    """A series interval in which no rx frame arrived and none went
    missing has no PER (null, per_none says why), as the document's own
    per says it: it was "per": 0, a PER of frames that never came."""
    d = tmpdir()
    script, out = os.path.join(d, "s.lua"), os.path.join(d, "s.json")
    with open(script, "w") as f:
        f.write(SERIES_IDLE_RX)
    r = run(eal("schemaser") + ["--", script, out], timeout=60)
    expect(os.path.exists(out), (r.returncode, r.stderr[-1500:]))
    doc = load_json(out)
    idle = [s for s in doc["series"] if s.get("received") == 0 and s.get("lost") == 0]
    expect(idle and doc["rx"]["per"] is None, (doc["series"], doc["rx"]))
    for s in idle:
        expect(s["per"] is None and s["per_none"], s)
    valid("run.json", doc, "a series without rx frames")


def broken(doc, path, how):
    """A copy of @p doc with the object at @p path (keys and indexes)
    changed: how = ("drop", key), ("type", key) or ("add", key)."""
    d = copy.deepcopy(doc)
    o = d
    for k in path:
        o = o[k]
    op, key = how
    if op == "drop":
        del o[key]
    elif op == "type":
        o[key] = "a string" if not isinstance(o[key], str) else 12
    else:
        o[key] = 1
    return d


def trimmed(doc):
    """@p doc with its long lists (histogram buckets, flows, series,
    history) cut to their first two entries: the same shapes, checked
    fast."""
    if isinstance(doc, dict):
        return {k: trimmed(v[:2] if isinstance(v, list) and
                           k in ("buckets", "flows", "series", "history") else v)
                for k, v in doc.items()}
    if isinstance(doc, list):
        return [trimmed(v) for v in doc]
    return doc


def first(doc, role):
    return next(i for i, t in enumerate(doc["tasks"]) if t["role"] == role)


def test_broken_documents_are_rejected():
    """The schemas catch drift: a field removed, a wrong type, a field
    they do not know, in each kind of document."""
    doc = trimmed(roles_run())
    cases = [("run.json", doc, [], ("drop", "totals")),
             ("run.json", doc, [], ("add", "totally_new")),
             ("gen.json", doc, ["tasks", first(doc, "gen")], ("drop", "tx_packets")),
             ("gen.json", doc, ["tasks", first(doc, "gen")], ("type", "rate_pps")),
             ("gen.json", doc, ["tasks", first(doc, "gen")], ("add", "tx_mbps")),
             ("rx.json", doc, ["tasks", first(doc, "rx")], ("type", "lost")),
             ("rx.json", doc, ["rx"], ("drop", "per")),
             ("rx.json", doc, ["rx", "flows", 0], ("add", "jiter_ns")),
             ("rx.json", doc, ["rx", "latency"], ("type", "p99_ns")),
             ("probe.json", doc, ["probe", "exporter"], ("drop", "records_lost")),
             ("probe.json", doc, ["tasks", first(doc, "probe"), "parsed"], ("add", "new_reason")),
             ("dist.json", doc, ["tasks", first(doc, "dist")], ("type", "ingress")),
             ("delay.json", doc, ["delay", "forward"], ("drop", "held_at_stop")),
             ("delay.json", doc, ["tasks", first(doc, "delay"), "forward"], ("type", "netem")),
             ("reflect.json", doc, ["reflect"], ("drop", "conserved")),
             ("rtt.json", doc, ["rtt"], ("type", "lost")),
             ("rtt.json", doc, ["rtt", "pairs", 0], ("drop", "a"))]
    for name in ("solve.json", "per-sweep.json", "rfc2544.json", "doctor.json"):
        expect(name in DOCS, "%s: no real document (its test failed?)" % name)
    solve, per, rfc = (trimmed(DOCS[n]) for n in ("solve.json", "per-sweep.json", "rfc2544.json"))
    doctor = DOCS["doctor.json"]
    cases += [("doctor.json", doctor, [], ("drop", "blocked")),
              ("doctor.json", doctor, ["checks", 0], ("type", "level")),
              ("doctor.json", doctor, ["checks", 0], ("add", "hint")),
              ("solve.json", solve, [], ("type", "rank")),
              ("solve.json", solve, ["devices", next(iter(solve["devices"]))],
               ("drop", "ci95_mean_ns")),
              ("per-sweep.json", per, [], ("drop", "sent")),
              ("per-sweep.json", per, [], ("add", "pre")),
              ("rfc2544.json", rfc, ["history", 0], ("type", "verdict")),
              ("rfc2544.json", rfc, ["sizes", 0], ("add", "ndr_mpps")),
              ("rfc2544.json", rfc, [], ("drop", "incomplete"))]
    # a verdict outside the set, and an undetermined value without its reason
    d = copy.deepcopy(doc)
    d["verdict"] = "fine"
    expect(errors("run.json", d), "a verdict outside the set accepted")
    d = copy.deepcopy(doc)
    d["rx"]["per"] = None
    for k in ("per_none", "invalid"):
        d["rx"].pop(k, None)
    expect(errors("rx.json", d), "rx per null without its reason accepted")
    passed = set()
    for name, real, path, how in cases:
        if (name, id(real)) not in passed:
            expect(not errors(name, real), "%s: the real document fails" % name)
            passed.add((name, id(real)))
        expect(errors(name, broken(real, path, how)),
               "%s accepted a document with %s %s at /%s" % (name, how[0], how[1],
                                                              "/".join(map(str, path))))


def pythons():
    """Debian's python3 (python3-jsonschema 4.10, RefResolver) and, when
    the PATH has another python3 with jsonschema 4.18 or later (the
    referencing library, issue 35's note), that one too."""
    found = ["/usr/bin/python3"]
    other = shutil.which("python3")
    if other and os.path.realpath(other) != os.path.realpath(found[0]):
        r = subprocess.run([other, "-c", "import jsonschema, referencing"],
                           capture_output=True, timeout=60)
        if r.returncode == 0:
            found.append(other)
    return found


def test_usage_example():
    """doc/usage.md's command line, as written, on a real document, by
    each jsonschema at hand: every schema has an absolute $id, so that
    both resolve the $refs between them."""
    for n in SCHEMAS:
        sid = json.load(open(SCHEMA_DIR / n)).get("$id")
        expect(sid == "https://linerate.invalid/schema/" + n, (n, sid))
    lines = [l.strip() for l in open(os.path.join(SRC, "doc", "usage.md"))
             if l.strip().startswith("python3 tools/schema-check.py")]
    expect(lines, "no schema-check example in doc/usage.md")
    d = tmpdir()
    inst = os.path.join(d, "result.json")
    with open(inst, "w") as f:
        json.dump(roles_run(), f)
    bad_inst = os.path.join(d, "bad.json")
    bad = broken(roles_run(), ["tasks", 0], ("type", "tx_packets"))
    with open(bad_inst, "w") as f:
        json.dump(bad, f)
    for py in pythons():
        for l in lines:
            cmd = l.replace("python3", py, 1)
            r = subprocess.run(["bash", "-c", cmd.replace(" result.json", " " + inst)],
                               cwd=SRC, capture_output=True, text=True, timeout=60)
            expect(r.returncode == 0, (cmd, r.stdout[-1000:], r.stderr[-1000:]))
            r = subprocess.run(["bash", "-c", cmd.replace(" result.json", " " + bad_inst)],
                               cwd=SRC, capture_output=True, text=True, timeout=60)
            expect(r.returncode == 1 and "tx_packets" in r.stdout,
                   ("the example accepted a broken document", py, r.stdout[-500:],
                    r.stderr[-500:]))


def test_interrupted_role_run():
    """A --role run stopped by SIGINT says so in its document (issue 35
    L12), as rfc2544's does; one that ran to its end says false."""
    import signal
    import time
    from lrtest import LINERATE
    d = tmpdir()
    out = os.path.join(d, "int.json")
    args = eal("schint") + ["--", "--role", "gen", "--port", "net_null0", "--no-live",
                            "--rate", "10000", "--json", out]
    p = subprocess.Popen([LINERATE] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    expect(p.returncode == 130, (p.returncode, err[-400:]))
    doc = load_json(out)
    expect(doc["interrupted"] is True, {k: doc[k] for k in doc if k != "tasks"})
    valid("gen.json", doc, "an interrupted gen run")
    r = run(eal("schint") + ["--", "--role", "gen", "--port", "net_null0", "--no-live",
                             "--count", "10", "--json", out])
    expect(r.returncode == 0 and load_json(out)["interrupted"] is False, r.stderr[-300:])


EMPTY_RX = """
linerate.live(false)
local a, b = assert(linerate.wire("schm6"))
local rx = assert(linerate.task{ role = "rx", port = b })
linerate.start()
linerate.sleep(0.1)
rx:stop()
linerate.stop()
assert(linerate.json(rx:stats().latency, arg[1]))
"""


def test_empty_array_back_from_lua():
    """An rx that received nothing has a latency histogram with "buckets":
    []; a script that writes it (as rfc2544.lua writes a trial's) writes
    [] too, not {} (an empty Lua table), and the histogram stays valid
    (issue 35 M6)."""
    d = tmpdir()
    script, out = os.path.join(d, "m6.lua"), os.path.join(d, "lat.json")
    with open(script, "w") as f:
        f.write(EMPTY_RX)
    r = run(eal("schm6") + ["--", script, out], timeout=60)
    expect(r.returncode == 0, r.stderr[-500:])
    lat = load_json(out)
    expect(lat["count"] == 0 and lat["buckets"] == [], lat)
    store = load_schemas()
    by_id = {sch["$id"]: sch for sch in store.values()}
    root = {"$ref": "https://linerate.invalid/schema/common.json#/$defs/histogram"}
    v = Draft202012Validator(root, resolver=RefResolver.from_schema(root, store=by_id))
    errs = [e.message for e in v.iter_errors(lat)]
    expect(not errs, errs)


def schema_at(name, ref):
    """The schema @p ref ("file.json#/$defs/x", "#/$defs/x") points at from
    schema file @p name, and the file it is in."""
    f, _, frag = ref.partition("#")
    f = f or name
    node = json.load(open(SCHEMA_DIR / f))
    for part in [p for p in frag.split("/") if p]:
        node = node[part]
    return node, f


def prop_of(name, node, key):
    """The schema of property @p key of object schema @p node (its own
    properties, then those of its allOf and $ref), with its file; or
    None."""
    if "$ref" in node:
        node, name = schema_at(name, node["$ref"])
    if key in node.get("properties", {}):
        p = node["properties"][key]
        if "$ref" in p and "type" not in p:
            return schema_at(name, p["$ref"])
        return p, name
    for sub in node.get("allOf", []):
        got = prop_of(name, sub, key)
        if got is not None:
            return got
    return None


def types_of(name, p):
    """The JSON types schema @p p of file @p name allows."""
    if "$ref" in p and "type" not in p:
        p, name = schema_at(name, p["$ref"])
    t = p.get("type", [])
    t = [t] if isinstance(t, str) else list(t)
    for alt in p.get("oneOf", []) + p.get("anyOf", []):
        t += types_of(name, alt)
    return set(t)


# What the schema must say of a row's value, by the row's type.
WANT = {"u64": {"integer"}, "i64": {"integer"}, "real": {"number"},
        "put": {"integer", "number"}}


def test_counter_tables_in_schemas():
    """Every key of a role's counter tables (`linerate --counters-json`)
    is a property of the role's schema, an integer where the table has an
    integer, a number where it has a real, an object (a histogram) where
    its metric is one: a counter added to a table without the schema
    fails here."""
    r = subprocess.run([LINERATE, "--counters-json"], capture_output=True, text=True,
                       check=True)
    tables = json.loads(r.stdout)
    todo = [("common.json", "#/$defs/task", t) for t in tables["task"]]
    for role, both in tables["roles"].items():
        todo += [("%s.json" % role, "#/$defs/task", t) for t in both["task"]]
        todo += [("%s.json" % role, "#/$defs/section", t) for t in both["section"]]
    bad, seen = [], 0
    for name, where, table in todo:
        obj, oname = schema_at(name, where)
        if table["dirs"]:
            # The rows are in each of these objects (the delay box's).
            objs = [(d + ".", prop_of(oname, obj, d)) for d in table["dirs"]]
        else:
            objs = [("", (obj, oname))]
        for row in table["rows"]:
            for within, o in objs:
                node, file = o if o else (None, None)
                for part in row["key"].split("."):
                    got = prop_of(file, node, part) if node is not None else None
                    node, file = got if got else (None, None)
                seen += 1
                what = "%s%s %s%s" % (name, where, within, row["key"])
                if node is None:
                    bad.append("%s: not in the schema" % what)
                    continue
                have = types_of(file, node)
                want = WANT.get(row["type"])
                if row["kind"] == "histogram":
                    want = {"object"}
                elif want is None and row["kind"] in ("counter", "gauge"):
                    # metrics.c takes true and false as 1 and 0
                    want = {"integer", "number", "boolean"}
                if want and not (have & want):
                    bad.append("%s: the schema says %s, the table %s" %
                               (what, sorted(have) or node, row["type"]))
    expect(seen > 100, "only %d keys in the tables" % seen)
    expect(not bad, "doc/schema and the counter tables differ:\n" + "\n".join(bad))


def test_every_schema_validated_a_real_output():
    missing = [n for n in SCHEMAS if n not in VALIDATED]
    expect(not missing, "schemas no real output was checked against: %s" % missing)


if __name__ == "__main__":
    main([test_schemas_are_valid, test_every_role_in_one_run, test_captures, test_solve,
          test_doctor, test_per_sweep, test_rfc2544, test_series_interval_without_frames,
          test_broken_documents_are_rejected, test_usage_example,
          test_interrupted_role_run, test_empty_array_back_from_lua,
          test_counter_tables_in_schemas, test_every_schema_validated_a_real_output])
