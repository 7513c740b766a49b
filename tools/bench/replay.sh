#!/bin/bash
# replay.sh: gen --pcap's packet rate on net_null, one worker lcore, against
# gen's own built frames of the same sizes and flows, in one run, each
# measured ROUNDS times in turn; prints medians and the ratio. The capture
# is one gen wrote (net_pcap), so both send the same frames.
#
#   tools/bench/replay.sh [BUILD=build] [COUNT=30000000] [ROUNDS=3] [SIZE=64] [FLOWS=100]
set -eu
BUILD=${1:-build}
COUNT=${2:-30000000}
ROUNDS=${3:-3}
SIZE=${4:-64}
FLOWS=${5:-100}
LR=$BUILD/app/linerate
EAL="--no-pci --no-huge -m 1024 -l 0-1 --log-level=lib.eal:error"
PFX=lr_bench_$$
DIR=$(mktemp -d)
trap 'rm -rf /var/run/dpdk/${PFX}_* "$DIR"' EXIT

# 1000 frames a flow-cycle: the capture loops COUNT / 1000 times.
$LR $EAL --file-prefix ${PFX}_w -- --role gen --no-live \
	--port "net_pcap0,tx_pcap=$DIR/c.pcap" --count 1000 --flows "$FLOWS" \
	--size "$SIZE" >/dev/null 2>&1
mpps() { /usr/bin/python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["tasks"][0]["tx_mpps"])' "$1"; }
run() {	# NAME OPTIONS...
	local n=$1; shift
	$LR $EAL --file-prefix ${PFX}_$n -- --role gen --port net_null0 --no-live \
		--json "$DIR/$n.json" "$@" >/dev/null 2>&1
	mpps "$DIR/$n.json"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$DIR/gen"; : > "$DIR/rp"; : > "$DIR/rps"
for r in $(seq "$ROUNDS"); do
	run gen --count "$COUNT" --flows "$FLOWS" --size "$SIZE" >> "$DIR/gen"
	run rp --pcap "$DIR/c.pcap" --loops $((COUNT / 1000)) --rate max >> "$DIR/rp"
	run rps --pcap "$DIR/c.pcap" --loops $((COUNT / 1000)) --rate max --stamp 1 \
		--loop-ip-step 1 >> "$DIR/rps"
done
g=$(median < "$DIR/gen"); p=$(median < "$DIR/rp"); s=$(median < "$DIR/rps")
printf "%-34s %8s %7s\n" "net_null, $SIZE B, $FLOWS flows" Mpps "x gen"
printf "%-34s %8s %7s\n" "gen (built frames)" "$g" 1.00
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf "%-34s %8s %7s\n" "gen --pcap (copy)" "$p" "$(ratio "$p" "$g")"
printf "%-34s %8s %7s\n" "gen --pcap --stamp --loop-ip-step" "$s" "$(ratio "$s" "$g")"
