"""Helpers for linerate's system tests: run the real binary on virtual ports.

Every run gets --no-pci, --no-huge and a --file-prefix of its own, and the
runtime directory of that prefix is removed afterwards. A test is a function
named test_*; main() runs them all and exits non-zero if one fails.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

LINERATE = os.path.abspath(os.environ.get("LINERATE") or
                           (sys.argv[1] if len(sys.argv) > 1 else "build/app/linerate"))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_prefixes = []


def eal(name, lcores="0-1", mem=512):
    prefix = "lr_st_%s_%d" % (name, os.getpid())
    _prefixes.append(prefix)
    # "0-1" is EAL -l; a map such as "0@0,(1-3)@1" (several lcores on
    # one CPU) is EAL --lcores.
    return ["--no-pci", "--no-huge", "-m", str(mem),
            "--lcores" if "@" in lcores else "-l", lcores,
            "--file-prefix", prefix, "--log-level=lib.eal:warning"]


def run(args, timeout=60, **kw):
    """Run linerate with args; return the CompletedProcess (text)."""
    return subprocess.run([LINERATE] + args, capture_output=True, text=True,
                          timeout=timeout, **kw)


def start(args, **kw):
    return subprocess.Popen([LINERATE] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def wait_for(path, timeout=10):
    """Wait until @p path exists (a memif server's socket), at most
    @p timeout seconds; a caller then finds out by the link wait."""
    import time
    end = time.time() + timeout
    while not os.path.exists(path) and time.time() < end:
        time.sleep(0.1)


def memif(sock, role):
    """net_memif devargs on a socket file of the test's own."""
    return "net_memif0,role=%s,socket=%s,socket-abstract=no" % (role, sock)


# Spins in 5 ms windows (half the time: not a load of its own) and keeps
# the gaps over 20 us between two reads of the clock: the times the host
# did not run it. On SIGTERM prints their p50, p90 and max in ns (0 0 0
# without any).
_STALL_PROBE = r"""
import signal, sys, time
gaps = []
def done(*a):
    gaps.sort()
    q = lambda f: gaps[min(int(len(gaps) * f), len(gaps) - 1)] if gaps else 0
    print(q(0.5), q(0.9), gaps[-1] if gaps else 0, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
print("ready", flush=True)
while True:
    last = time.perf_counter_ns()
    end = last + 5000000
    while last < end:
        t = time.perf_counter_ns()
        if t - last > 20000:
            gaps.append(t - last)
        last = t
    time.sleep(0.005)
"""


def sh(*args, check=True):
    """A command's result, its output as text."""
    return subprocess.run(args, capture_output=True, text=True, check=check)


class VethNetns:
    """A network namespace with a veth pair a <-> b, both up; the
    namespace and everything in it removed on exit, whatever happened.
    @p prefix names them apart per test file."""

    def __init__(self, prefix, tag):
        pid = os.getpid() % 100000
        self.ns = "lr_%s_%s_%d" % (prefix, tag, pid)
        self.a, self.b = "lr%s%da" % (prefix, pid), "lr%s%db" % (prefix, pid)

    def __enter__(self):
        try:
            sh("ip", "netns", "add", self.ns)
            sh("ip", "-n", self.ns, "link", "add", self.a, "type", "veth", "peer",
               "name", self.b)
            for i in (self.a, self.b):
                sh("ip", "-n", self.ns, "link", "set", i, "up")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        sh("ip", "-n", self.ns, "link", "del", self.a, check=False)
        sh("ip", "netns", "del", self.ns, check=False)
        return False


class HostStalls:
    """The host's stalls while a block runs, measured by a process of the
    test's own (a bound that holds on a busy host is relative to them):
    with HostStalls() as s: ...; then s.p50, s.p90, s.max in seconds."""

    def __enter__(self):
        import signal
        self._signal = signal
        self._p = subprocess.Popen([sys.executable, "-c", _STALL_PROBE],
                                   stdout=subprocess.PIPE, text=True)
        self._p.stdout.readline()
        return self

    def __exit__(self, *exc):
        self._p.send_signal(self._signal.SIGTERM)
        try:
            out = self._p.communicate(timeout=30)[0].split()
        except subprocess.TimeoutExpired:
            self._p.kill()
            out = self._p.communicate()[0].split()
        v = [float(x) / 1e9 for x in out] if len(out) == 3 else [0, 0, 0]
        self.p50, self.p90, self.max = v
        return False


class Busy:
    """A busy loop pinned to CPU @p cpu while a block runs (the host taking
    a task's CPU, on purpose): with Busy(0): ...; ended on the way out,
    also on failure."""

    def __init__(self, cpu):
        self.cpu = cpu

    def __enter__(self):
        self._p = subprocess.Popen(["taskset", "-c", str(self.cpu), "sh", "-c",
                                    "while :; do :; done"])
        return self

    def __exit__(self, *exc):
        self._p.kill()
        self._p.wait()
        return False


def tmpdir():
    d = tempfile.mkdtemp(prefix="lr_st_")
    _cleanup_dirs.append(d)
    return d


_cleanup_dirs = []


def load_json(path):
    with open(path) as f:
        return json.load(f)


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def no_c(test):
    """Marks a test that runs none of this build's C code (tools/plot on
    documents built or kept here): the sanitizer build's run (meson's
    LR_SANITIZED=1, tests/meson.build) leaves it to the plain build's,
    where it runs as ever; ASan and UBSan have nothing in it to check."""
    test.no_c = True
    return test


def main(tests):
    import time
    failed = skipped = 0
    sanitized = os.environ.get("LR_SANITIZED") == "1"
    for t in tests:
        if sanitized and getattr(t, "no_c", False):
            print("skip %s: no C code to sanitize (the plain build runs it)" % t.__name__)
            skipped += 1
            continue
        t0 = time.monotonic()
        try:
            t()
            print("ok   %s (%.1f s)" % (t.__name__, time.monotonic() - t0))
        except Exception:
            failed += 1
            print("FAIL %s (%.1f s)" % (t.__name__, time.monotonic() - t0))
            traceback.print_exc()
    for p in _prefixes:
        shutil.rmtree("/var/run/dpdk/" + p, ignore_errors=True)
    for d in _cleanup_dirs:
        shutil.rmtree(d, ignore_errors=True)
    if skipped:
        print("%d left to the plain build" % skipped)
    print("%d passed, %d failed" % (len(tests) - skipped - failed, failed))
    sys.exit(1 if failed else 0)
