#!/usr/bin/env bash
# Build and run every test (unit and system) in BUILD_DIR (default build),
# then print "N passed, N failed" and exit non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -d "$build" ] || tools/setup.sh "$build" >/dev/null || exit 1
ninja -C "$build" >/dev/null || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
meson test -C "$build" --print-errorlogs --num-processes 2
rc=$?
/usr/bin/python3 - "$build/meson-logs/testlog.json" "$rc" <<'PY'
import json, sys
ok = bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] in ("OK", "EXPECTEDFAIL", "SKIP"):
        ok += 1
    else:
        bad += 1
if int(sys.argv[2]) != 0 and bad == 0:
    bad = 1
print("%d passed, %d failed" % (ok, bad))
PY
exit $rc
