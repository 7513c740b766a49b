#!/usr/bin/env python3
"""What the roles report, held still while their counters move into tables
(issue 36): the keys of a run's result document and the families of its
/metrics, against tests/data/counters-keys.json, which was written by the
binary before the move.

- One run of every role (test_schema's script: gen -> rx with per-flow
  latency, gen -> dist -> probes, gen -> probe, gen -> delay -> rx, rtt <->
  reflect) with --metrics and --metrics-linger: the document's every key
  path with its value's JSON type (a task's keys under its role, an
  array's items as one), and the last scrape's families with their TYPE,
  HELP and the label names of their samples.
- A path or family the reference has and the run lacks, or the other way,
  fails; so does a changed type, HELP or label set. Values a run decides
  (numbers, a null where nothing came) are not compared, types are: an
  integer stays an integer.

LR_SAVE_REF=1 writes the reference from the binary given instead (once,
before a change that must not move a key).
"""
import json
import os
import re
import socket
import subprocess
import time
import urllib.request

from lrtest import LINERATE, SRC, eal, expect, main, tmpdir
from test_metrics import free_port, parse_exposition
from test_schema import ALL_ROLES

REF = os.path.join(SRC, "tests", "data", "counters-keys.json")
# Keys whose presence a run decides, not the code: a verdict's sentence
# when a loaded host made a task short or late, a change's reason.
SOMETIMES = re.compile(r"(^|\.)(verdict_why|why_not|latency_none|lateness_why|"
                       r"per_none|invalid|end_of_capture)$")


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def shape(o, path, out):
    """Every key path of @p o with the types its values took."""
    out.setdefault(path, set()).add(kind(o))
    if isinstance(o, dict):
        for k, v in o.items():
            shape(v, (path + "." if path else "") + k, out)
    elif isinstance(o, list):
        for v in o:
            shape(v, path + "[]", out)


def doc_shape(doc):
    out = {}
    for k, v in doc.items():
        if k == "tasks":
            for t in v:
                shape(t, "tasks[%s]" % t["role"], out)
        elif k != "series":
            shape(v, k, out)
    # null beside a number is a value (none measured), not a type.
    return {p: sorted(t - {"null"} if len(t) > 1 else t) for p, t in out.items()
            if not SOMETIMES.search(p)}


def metrics_shape(text):
    helps = dict(re.findall(r"^# HELP (\S+) (.*)$", text, re.M))
    out = {}
    for fam, (t, samples) in parse_exposition(text).items():
        labels = sorted({",".join(sorted(k for k in lab if k != "le"))
                         for _, lab, _ in samples})
        out[fam] = {"type": t, "help": helps[fam], "labels": labels}
    return out


def run_all():
    d = tmpdir()
    script, out = os.path.join(d, "all.lua"), os.path.join(d, "all.json")
    with open(script, "w") as f:
        f.write(ALL_ROLES)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    sock.bind(("127.0.0.1", 0))
    port = free_port()
    url = "http://127.0.0.1:%d/metrics" % port
    p = subprocess.Popen([LINERATE] + eal("ctrkeys", mem=1024) +
                         ["--", "--metrics", "127.0.0.1:%d" % port,
                          "--metrics-linger", "30", script, out,
                          "udp:127.0.0.1:%d" % sock.getsockname()[1]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    text = None
    try:
        end = time.time() + 120
        # The last scrape is the lingering one, after the document.
        while p.poll() is None and time.time() < end:
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    text = r.read().decode()
            except OSError:
                pass
            time.sleep(0.3)
        _, err = p.communicate(timeout=60)
    finally:
        sock.close()
        if p.poll() is None:
            p.kill()
            p.communicate()
    expect(p.returncode == 0 and os.path.exists(out), (p.returncode, err[-2000:]))
    expect(text is not None, "no scrape")
    with open(out) as f:
        return json.load(f), text


def diff(what, ref, got):
    gone = sorted(set(ref) - set(got))
    new = sorted(set(got) - set(ref))
    changed = sorted(k for k in set(ref) & set(got) if ref[k] != got[k])
    return ["%s: gone %s" % (what, k) for k in gone] + \
           ["%s: new %s %s" % (what, k, got[k]) for k in new] + \
           ["%s: %s was %s, now %s" % (what, k, ref[k], got[k]) for k in changed]


def test_keys_and_families_unchanged():
    doc, text = run_all()
    got = {"document": doc_shape(doc), "metrics": metrics_shape(text)}
    if os.environ.get("LR_SAVE_REF") == "1":
        with open(REF, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
        return
    with open(REF) as f:
        ref = json.load(f)
    errs = diff("document", ref["document"], got["document"]) + \
        diff("metrics", ref["metrics"], got["metrics"])
    expect(not errs, "what the run reports moved:\n" + "\n".join(errs[:60]))


if __name__ == "__main__":
    main([test_keys_and_families_unchanged])
