#!/bin/bash
# rate-accuracy.sh: requested against achieved rate of gen on net_null at
# 10, 50 and 100 % of 10 GbE for 64, 1518 and 9018 B frames (lua/rate-accuracy.lua).
#
#   tools/bench/rate-accuracy.sh [BUILD=build] [SECONDS=2]
set -eu
BUILD=${1:-build}
SECS=${2:-2}
PFX=lr_bench_$$
trap 'rm -rf /var/run/dpdk/$PFX' EXIT
"$BUILD/app/linerate" --no-pci --no-huge -m 1024 -l 0-1 --file-prefix $PFX \
	--log-level=lib.eal:error -- "$(dirname "$0")/../../lua/rate-accuracy.lua" \
	seconds="$SECS"
