#!/bin/bash
# rfc2544-duts.sh: lua/rfc2544.lua's throughput (NDR, PDR) over each device
# under test of the virtual testbed, next to the generator's own ceiling on
# the same path: the virtual wire for testpmd (gen and rx on one lcore, as
# with testpmd), a bare veth pair over net_af_packet for the kernel. One
# worker lcore for gen and rx (CPU 1), the DUT on CPU 0.
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
	$LR $EAL --file-prefix "${PFX}_$d" -- "$SRC/lua/rfc2544.lua" $args \
		sizes="$SIZES" tests=throughput trial="$TRIAL" warmup=0.1 \
		json="$DIR/$d.json" > "$DIR/$d.out" 2>&1 ||
		{ echo "rfc2544-duts: $d failed:"; tail -3 "$DIR/$d.out"; continue; }
done
/usr/bin/python3 - "$DIR" $DUTS <<'PY'
import json, os, sys
d, duts = sys.argv[1], sys.argv[2:]
res = {}
for n in duts:
    p = os.path.join(d, n + ".json")
    if os.path.exists(p):
        res[n] = {s["size"]: s for s in json.load(open(p))["sizes"]}
base = lambda n: "kernel-veth" if n.startswith("kernel") else "wire"
print("%-16s %6s %10s %10s %8s %7s %12s" % ("DUT", "size", "NDR Mpps", "PDR Mpps",
                                             "% line", "trials", "x ceiling"))
for n in duts:
    for size, s in sorted(res.get(n, {}).items()):
        c = res.get(base(n), {}).get(size)
        ratio = "%.2f" % (s["ndr_pps"] / c["ndr_pps"]) if c and c["ndr_pps"] else "-"
        print("%-16s %6d %10.4f %10.4f %8.2f %3d/%-3d %12s" % (
            n, size, s["ndr_pps"] / 1e6, s["pdr_pps"] / 1e6,
            100 * s["ndr_pps"] / s["line_pps"], s["ndr_trials"] + s["pdr_trials"],
            s["ndr_invalid"] + s["pdr_invalid"], ratio))
PY
