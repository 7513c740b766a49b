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


def main(tests):
    failed = 0
    for t in tests:
        try:
            t()
            print("ok   %s" % t.__name__)
        except Exception:
            failed += 1
            print("FAIL %s" % t.__name__)
            traceback.print_exc()
    for p in _prefixes:
        shutil.rmtree("/var/run/dpdk/" + p, ignore_errors=True)
    for d in _cleanup_dirs:
        shutil.rmtree(d, ignore_errors=True)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    sys.exit(1 if failed else 0)
