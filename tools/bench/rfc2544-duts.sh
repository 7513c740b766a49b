#!/bin/bash
# rfc2544-duts.sh: lua/rfc2544.lua's throughput (NDR, PDR) over each device
# under test of the virtual testbed, each with what bounded it (limited_by)
# and the tester's own ceiling on the same path, which rfc2544 finds first
# (memif back to back for testpmd, a bare veth pair over net_af_packet for
# the kernel). One worker lcore for gen and rx (CPU 1), the DUT on CPU 0.
#
#   tools/bench/rfc2544-duts.sh [BUILD=build] [TRIAL=1] [SIZES=64,512,1518] [DUTS="..."]
#   DUTS from: wire testpmd-io testpmd-macswap kernel-veth kernel-forward kernel-bridge
# The kernel ones need root.
set -eu
BUILD=${1:-build}
TRIAL=${2:-1}
SIZES=${3:-64,512,1518}
DUTS=${4:-wire testpmd-io testpmd-macswap kernel-veth kernel-forward kernel-bridge}
LR=$BUILD/app/linerate
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PFX=lr_bench_$$
DIR=$(mktemp -d)
trap 'rm -rf /var/run/dpdk/${PFX}_* "$DIR"' EXIT
EAL="--no-pci --no-huge -m 2048 --lcores 0@0,1@1 --log-level=lib.eal:error"

for d in $DUTS; do
	case $d in
	wire) args="dut=wire" ;;
	testpmd-*) args="dut=testpmd dut_fwd=${d#testpmd-}" ;;
	kernel-*) args="dut=kernel dut_mode=${d#kernel-}" ;;
	*) echo "rfc2544-duts: unknown DUT $d" >&2; exit 2 ;;
	esac
	# shellcheck disable=SC2086
	rc=0
	$LR $EAL --file-prefix "${PFX}_$d" -- "$SRC/lua/rfc2544.lua" $args \
		sizes="$SIZES" tests=throughput trial="$TRIAL" warmup=0.1 \
		json="$DIR/$d.json" > "$DIR/$d.out" 2>&1 || rc=$?
	# 3: some answer is a bound (limited by the tester, max=, steps=).
	[ $rc -eq 0 ] || [ $rc -eq 3 ] ||
		{ echo "rfc2544-duts: $d failed ($rc):"; tail -3 "$DIR/$d.out"; continue; }
done
/usr/bin/python3 - "$DIR" $DUTS <<'PY'
import json, os, sys
d, duts = sys.argv[1], sys.argv[2:]
res = {}
for n in duts:
    p = os.path.join(d, n + ".json")
    if os.path.exists(p):
        res[n] = {s["size"]: s for s in json.load(open(p))["sizes"]}


def rate(s, k):
    """An answer as the table prints it: >= for a bound, - for none."""
    v, by = s.get(k + "_pps"), s.get(k + "_limited_by")
    if v is None:
        return "-"
    return ("" if by == "dut" else ">=") + "%.4f" % (v / 1e6)


# The tester's ceiling is rfc2544's own calibration on the path without
# the DUT (the same run); x ceiling: the NDR over it.
print("%-16s %6s %11s %-7s %11s %-7s %12s %8s %7s %10s" % (
    "DUT", "size", "NDR Mpps", "by", "PDR Mpps", "by", "tester Mpps", "% line",
    "trials", "x ceiling"))
for n in duts:
    for size, s in sorted(res.get(n, {}).items()):
        c, v = s.get("ceiling_pps"), s.get("ndr_pps")
        print("%-16s %6d %11s %-7s %11s %-7s %12s %8s %3d/%-3d %10s" % (
            n, size, rate(s, "ndr"), s.get("ndr_limited_by") or "none",
            rate(s, "pdr"), s.get("pdr_limited_by") or "none",
            "%.4f" % (c / 1e6) if c else "-",
            "%.2f" % (100 * v / s["line_pps"]) if v is not None else "-",
            s.get("ndr_trials", 0) + s.get("pdr_trials", 0),
            s.get("ndr_invalid", 0) + s.get("pdr_invalid", 0),
            "%.2f" % (v / c) if c and v is not None else "-"))
PY
