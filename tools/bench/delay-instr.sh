#!/bin/bash
# delay-instr.sh: the delay box's instructions per frame, counted by
# callgrind: the same count on a noisy and on a quiet machine, so that two
# builds compare in one run where wall-clock rates move 30 % from one round
# to the next (doc/performance.md).
#
#   tools/bench/delay-instr.sh BUILD [BUILD...] [-- SPEC...]
#
# Each BUILD runs the box between net_null0 and net_null1 (64 B, both
# directions fed, the back one a wire) under valgrind for 4 s, counting the
# instructions of lr_delay_poll and all it calls (the null PMD's rx and tx
# too). Per SPEC (default: "" the wire, "delay 10ms"), one line per build:
# frames, instructions per frame through the box (both directions) and per
# forward frame, and per forward frame over the same build's wire.
#
# The count is the path's, not its cost: cache misses and the CPU's
# parallelism are not in it. Under valgrind the box runs ~50 times slower,
# so a SPEC with jitter is measured behind time (frames late by ms): its
# count is that of the catch-up path, and varies run to run.
# 10 ms, not 184 ms: the same code (records written around the caches from
# 1 ms on), and the ring's first pass is a small part of the 4 s.
set -eu
BUILDS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do BUILDS+=("$(realpath "$1")"); shift; done
[ $# -gt 0 ] && shift
SPECS=("$@")
[ ${#SPECS[@]} -gt 0 ] || SPECS=("" "delay 10ms")
[ ${#BUILDS[@]} -gt 0 ] || { echo "usage: $0 BUILD [BUILD...] [-- SPEC...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
PFX=lr_bench_di_$$
TMP=$(mktemp -d)
trap 'rm -rf /var/run/dpdk/${PFX}* "$TMP"' EXIT

declare -A WIRE
for spec in "${SPECS[@]}"; do
	for b in "${BUILDS[@]}"; do
		valgrind --tool=callgrind --toggle-collect=lr_delay_poll \
			--callgrind-out-file="$TMP/cg.out" \
			"$b/app/linerate" --no-pci --no-huge -m 1500 -l 0-1 \
			--file-prefix "$PFX" --log-level=lib.eal:error -- --role delay \
			--port net_null0,size=60 --peer net_null1,size=60 \
			--netem "$spec" --duration 4 --late-share 100 --no-live \
			--json "$TMP/r.json" >/dev/null 2>&1
		per=$(/usr/bin/python3 - "$TMP/r.json" "$TMP/cg.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["tasks"] if t["role"] == "delay"][0]
ir = 0
for l in open(sys.argv[2]):
    if l.startswith(("summary:", "totals:")):
        ir = int(l.split()[1])
f, b = t["forward"], t["back"]
print("%d %d %.1f %.1f" % (f["in"], b["in"], ir / (f["in"] + b["in"]), ir / f["in"]))
PY
)
		read -r fin bin both fwd <<<"$per"
		[ -n "$spec" ] || WIRE[$b]=$fwd
		ratio=""
		[ -n "$spec" ] && [ -n "${WIRE[$b]:-}" ] &&
			ratio=$(/usr/bin/python3 -c "print('  wire / this %.3f' % (${WIRE[$b]} / $fwd))")
		printf "%-28s %-24s fwd %8d back %8d  instr/frame %6.1f  per fwd frame %6.1f%s\n" \
			"${spec:-(none: a wire)}" "$(basename "$(dirname "$b")")/$(basename "$b")" \
			"$fin" "$bin" "$both" "$fwd" "$ratio"
	done
done
