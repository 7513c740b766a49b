#!/bin/bash
# probe-pcap.sh: one pcap of 1,000,000 64 B frames over 16384 flows (written
# by gen), read through net_pcap by the probe process, by the probe's own
# loader (--pcap: the file in memory, no net_pcap) and by softflowd -r, in
# the same run: packets per CPU-second of each whole process (user + sys,
# start-up included), ROUNDS times, medians. The two probe runs must give
# the same flow records (ipfixDump's last line of each).
#
# Each tool is configured as its own documentation advises for the job: a
# flow table that holds every flow of the capture (softflowd -m, "maximum
# number of flows to concurrently track", default 8192, which on 16384
# round-robin flows evicts one flow per packet; the probe's --entries).
#
#   tools/bench/probe-pcap.sh [BUILD=build] [ROUNDS=3]
set -eu
BUILD=${1:-build}
ROUNDS=${2:-3}
LR=$BUILD/app/linerate
PFX=lr_bench_$$
DIR=$(mktemp -d)
EAL="--no-pci --no-huge -m 1024 -l 0-1 --log-level=lib.eal:error"
trap 'rm -rf /var/run/dpdk/${PFX}_* "$DIR"' EXIT
N=1000000

$LR $EAL --file-prefix ${PFX}_g -- --role gen --port "net_pcap0,tx_pcap=$DIR/f.pcap" \
	--count $N --flows 16384 --src-ip 10.0.0.1-10.0.0.4 --order shuffle --no-live >/dev/null 2>&1
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{ print $1 + $2 }'; }
lr=() ld=() sf=()
for r in $(seq "$ROUNDS"); do
	lr+=("$(cpu $LR $EAL --file-prefix ${PFX}_p -- --role probe \
		--port "net_pcap0,rx_pcap=$DIR/f.pcap" --count $N --entries 65536 \
		--export "file:$DIR/o.ipfix" --no-live)")
	ld+=("$(cpu $LR $EAL --file-prefix ${PFX}_m -- --role probe \
		--port net_null0 --pcap "$DIR/f.pcap" --count $N --entries 65536 \
		--export "file:$DIR/m.ipfix" --no-live)")
	sf+=("$(cpu softflowd -r "$DIR/f.pcap" -m 65536 -n 127.0.0.1:9 -v 10 -d)")
done
med() { printf "%s\n" "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
l=$(med "${lr[@]}")
s=$(med "${sf[@]}")
m=$(med "${ld[@]}")
awk -v l="$l" -v s="$s" -v m="$m" -v n=$N -v lr="${lr[*]}" -v sf="${sf[*]}" \
    -v ld="${ld[*]}" 'BEGIN {
	printf "linerate probe   %.2f CPU-s  %.2f Mpps per CPU-s   (runs: %s)\n", l, n / l / 1e6, lr
	printf "softflowd -r     %.2f CPU-s  %.2f Mpps per CPU-s   (runs: %s)\n", s, n / s / 1e6, sf
	printf "probe / softflowd  %.1f  (target >= 3)\n", s / l
	printf "linerate probe (loader)  %.2f CPU-s  %.2f Mpps per CPU-s   (runs: %s)\n", m, n / m / 1e6, ld
	printf "probe (loader) / softflowd  %.1f  (target >= 3)\n", s / m
}'
ipfixDump --in "$DIR/o.ipfix" 2>/dev/null | tail -1
ipfixDump --in "$DIR/m.ipfix" 2>/dev/null | tail -1
