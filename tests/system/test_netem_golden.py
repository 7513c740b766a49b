#!/usr/bin/env python3
"""lib/netem against the golden oracle (issue 14): the C trace driver and
tests/golden/netem_ref.py (a re-implementation of sch_netem written from the
kernel's and tc's sources) are fed the same SPEC and arrival trace, and must
print the same lines: per copy of a frame its fate, time_to_send and
corruption, and every departure with its time.

    test_netem_golden.py DRIVER [--keep DIR] [--only TEXT]

DRIVER is the C driver (build/tests/unit/netem_trace...), run as
"DRIVER 'SPEC' < trace"; a path ending in .py is run with this Python (give
tests/golden/netem_ref.py to check the harness against the oracle itself).
A DRIVER that does not exist: exit 77 (meson's skip).  For each SPEC and
trace the first differing line is reported; exit 0 only if all agree.
--keep DIR writes each trace and both outputs there; --only TEXT runs the
SPECs containing TEXT.  To see where a run parts: NETEM_REF_DRAWS=1
tests/golden/netem_ref.py 'SPEC' < DIR/....trace (every PRNG draw).
"""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(os.path.dirname(HERE), "golden", "netem_ref.py")

# every feature, each replayable (seeded; slots with a table or MIN == MAX,
# since the kernel draws uniform slots from an unseeded generator), and the
# conventions for what the kernel draws unseeded (README.md)
SPECS = [
    "delay 10ms seed 1",
    "delay 100ms 10ms seed 7",
    "delay 184ms 8us distribution normal seed 3",
    "delay 1ms 500us 25% distribution pareto seed 9",
    "delay 5ms 1ms distribution paretonormal seed 2",
    "delay 20ms 2ms distribution experimental seed 21",
    "loss 1% seed 5",
    "loss 30% 50% seed 6",
    "loss state 1% 30% 1% 5% 0.1% seed 8",
    "loss state 5% seed 18",
    "loss gemodel 2% 20% 70% 0.1% seed 4",
    "loss gemodel 5% seed 19",
    "duplicate 5% seed 3",
    "duplicate 10% 40% corrupt 3% seed 11",
    "delay 10ms reorder 25% 50% seed 12",
    "delay 10ms reorder 10% gap 5 seed 13",
    "rate 1gbit 20 seed 1",
    "delay 1ms rate 100mbit 4 48 5 seed 2",
    "delay 2ms slot distribution normal 1ms 100us packets 8 seed 3",
    "delay 1ms slot 500us packets 4 bytes 3000 seed 5",
    # not the kernel's (it draws uniform slots, and corruption's byte and
    # bit, unseeded): linerate's and the oracle's shared prng2 convention
    "delay 1ms slot 200us 800us packets 4 seed 6",
    "delay 1ms corrupt 5% duplicate 5% slot 100us 300us seed 7",
    "limit 50 delay 1ms seed 1",
    "delay 10ms 5ms no-reorder seed 4",
    # combinations: every correlation reaching the kernel (a duplicate
    # correlation does only with another one), clones through the head
    # queue and rate's "last packet", all of it against a small limit
    "delay 5ms 1ms 30% loss random 2% 25% duplicate 3% 10% "
    "reorder 5% 20% corrupt 1% 5% seed 17",
    "limit 100 delay 1ms reorder 50% duplicate 50% rate 10mbit seed 23",
    "delay 3ms 1ms distribution normal loss gemodel 1% 30% duplicate 2% "
    "rate 500mbit -4 slot distribution pareto 200us 50us packets 3 seed 29",
]


def trace(n, gap_max, seed):
    """n frames from T = 1 s: lengths 60..1514, gaps 50 ns..gap_max ns from
    a fixed-seed RNG, with bursts of 2..16 frames at one time."""
    rng = random.Random(seed)
    t, lines, k = 10 ** 9, [], 0
    while k < n:
        t += rng.randint(50, gap_max)
        burst = rng.randint(2, 16) if rng.random() < 0.02 else 1
        for _ in range(min(burst, n - k)):
            lines.append("%d %d" % (t, rng.randint(60, 1514)))
            k += 1
    return "\n".join(lines) + "\n"


TRACES = [
    ("dense", trace(20000, 20000, 1)),      # ~10 us apart: limits bite
    ("sparse", trace(4000, 400000, 2)),     # ~200 us apart
]


def command(prog, spec):
    if prog.endswith(".py"):
        return [sys.executable, prog, spec]
    return [prog, spec]


def run(prog, spec, text):
    r = subprocess.run(command(prog, spec), input=text, capture_output=True,
                       text=True, timeout=600)
    return r.returncode, r.stdout.splitlines(), r.stderr.strip()


def compare(driver, spec, name, text, keep):
    """(None when both agree, else what differs; the oracle's lines)."""
    rc_o, want, err_o = run(ORACLE, spec, text)
    if rc_o != 0:
        return "the oracle failed (rc %d): %s" % (rc_o, err_o), want
    return diff(driver, spec, name, text, keep, want), want


def diff(driver, spec, name, text, keep, want):
    rc_d, got, err_d = run(driver, spec, text)
    if keep:
        base = os.path.join(keep, "%s.%s" % (
            "_".join(spec.split()).replace("%", "pc").replace("/", "_"), name))
        for suffix, data in ((".trace", text.splitlines()), (".oracle", want),
                             (".driver", got)):
            with open(base + suffix, "w") as f:
                f.write("\n".join(data) + "\n")
    if rc_d != 0:
        return "the driver failed (rc %d): %s" % (rc_d, err_d[-500:])
    for k, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return ("line %d differs:\n    oracle: %s\n    driver: %s"
                    % (k + 1, a, b))
    if len(want) != len(got):
        k = min(len(want), len(got))
        return ("line %d: the %s ends (%d lines), the other goes on: %s"
                % (k + 1, "oracle" if len(want) < len(got) else "driver",
                   k, (got if len(got) > k else want)[k]))
    return None


def summary(lines):
    n = {}
    for l in lines:
        f = l.split()
        key = f[0] if f[0] == "D" else f[3]
        n[key] = n.get(key, 0) + 1
        if f[0] == "E" and f[5] == "1":
            n["corrupt"] = n.get("corrupt", 0) + 1
        if f[0] == "E" and f[2] == "d":
            n["dup"] = n.get("dup", 0) + 1
    return " ".join("%s %d" % kv for kv in sorted(n.items()))


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    driver = argv[1]
    keep = only = None
    rest = argv[2:]
    while len(rest) >= 2 and rest[0] in ("--keep", "--only"):
        if rest[0] == "--keep":
            keep = rest[1]
            os.makedirs(keep, exist_ok=True)
        else:
            only = rest[1]
        rest = rest[2:]
    if rest:
        sys.stderr.write(__doc__)
        return 2
    if not os.path.exists(driver):
        print("SKIP: no driver at %s" % driver)
        print("0 passed, 0 failed")
        return 77
    passed = failed = 0
    for spec in SPECS:
        if only and only not in spec:
            continue
        for name, text in TRACES:
            why, want = compare(driver, spec, name, text, keep)
            if why is None:
                passed += 1
                print("ok   %s [%s]: %s" % (spec, name, summary(want)))
            else:
                failed += 1
                print("FAIL %s [%s]: %s" % (spec, name, why))
            sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
