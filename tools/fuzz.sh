#!/bin/bash
# fuzz.sh: the libFuzzer harnesses of tests/fuzz (doc/fuzzing.md).
#
#   tools/fuzz.sh --build              build them in build-fuzz (clang,
#                                      -Dfuzz=true: ASan, UBSan, coverage)
#   tools/fuzz.sh --smoke              each harness over its fixed corpus
#                                      (tests/fuzz/corpus/NAME) and 2000
#                                      mutations of it with a fixed seed:
#                                      what CI and the fuzz_smoke test run
#   tools/fuzz.sh SECONDS [NAME...]    fuzz each (all by default) for
#                                      SECONDS on one core, a working corpus
#                                      in build-fuzz/corpus/NAME seeded from
#                                      the fixed one; prints executions and
#                                      coverage; a crash is left as
#                                      build-fuzz/crash-NAME-* and fails
#   tools/fuzz.sh --runs N [NAME...]   the same, N executions each
#   tools/fuzz.sh --coverage [NAME...] the source lines each harness's
#                                      corpus (working and fixed) covers,
#                                      in the files it is for: a build with
#                                      clang's source coverage in
#                                      build-fuzz-cov, llvm-cov's counts
#
# BUILD_FUZZ=DIR picks another build directory. Exit 0 when no harness
# crashed, 1 otherwise, 77 for --smoke without a fuzz build.
set -u
cd "$(dirname "$0")/.."
B=${BUILD_FUZZ:-build-fuzz}
ALL="parse seq rx ipfix opts netem solve dist replay luaconf tls quic dns http tcpopt"

# The sources each harness is for (its coverage is counted in these).
files_of() {
	case $1 in
	parse) echo lib/pkt/lr_pkt.h lib/pkt/parse.c lib/pkt/lr_parse.h \
		lib/reflect/lr_reflect.h ;;
	seq) echo lib/rx/lr_seq.h ;;
	rx) echo lib/rx/rx.c lib/rx/lr_seq.h lib/common/lr_wire.h ;;
	ipfix) echo lib/ipfix/ipfix.c ;;
	opts) echo lib/common/opt.c lib/engine/engine.c lib/gen/gen_conf.c ;;
	netem) echo lib/netem/spec.c lib/netem/netem.c lib/netem/dist.c ;;
	solve) echo lib/latency/read.c lib/latency/latency.c ;;
	dist) echo lib/distributor/distributor.c lib/distributor/fw_fast.c lib/distributor/thash.c \
		lib/pkt/lr_parse_mbuf.h firmware-model/*.c ;;
	replay) echo lib/gen/replay.c ;;
	luaconf) echo lib/lua/lua.c lib/lua/task.c ;;
	tls) echo lib/flowext/tls.c ;;
	quic) echo lib/flowext/quic.c lib/flowext/tls.c ;;
	dns) echo lib/flowext/dns.c ;;
	http) echo lib/flowext/http.c ;;
	esac
}

case "${1:-}" in
--build)
	command -v clang >/dev/null || { echo "fuzz: needs clang (apt-get install clang)" >&2; exit 1; }
	[ -d "$B" ] || CC=clang meson setup "$B" -Dfuzz=true -Dtests=false \
		-Dbuildtype=debugoptimized >/dev/null || exit 1
	ninja -C "$B" >/dev/null || exit 1
	echo "fuzz: harnesses built in $B"
	exit 0
	;;
--coverage)
	shift
	C=$B-cov
	for t in clang llvm-profdata llvm-cov; do
		command -v $t >/dev/null || { echo "fuzz: needs $t (apt-get install clang llvm)" >&2; exit 1; }
	done
	[ -d "$C" ] || CC=clang meson setup "$C" -Dfuzz=true -Dtests=false \
		-Dbuildtype=debugoptimized \
		-Dc_args="-fprofile-instr-generate -fcoverage-mapping" \
		-Dc_link_args=-fprofile-instr-generate >/dev/null || exit 1
	ninja -C "$C" >/dev/null || exit 1
	printf "%-8s %7s %16s %14s %14s  %s\n" harness inputs lines functions branches files
	for h in ${*:-$ALL}; do
		[ -d "tests/fuzz/corpus/$h" ] || { echo "fuzz: no harness '$h'" >&2; exit 2; }
		rm -f "$C/$h"-*.profraw
		dirs="tests/fuzz/corpus/$h"
		[ -d "$B/corpus/$h" ] && dirs="$B/corpus/$h $dirs"
		n=$(find $dirs -type f | wc -l)
		# -runs=0: the corpus is run once, nothing mutated.
		LLVM_PROFILE_FILE="$C/$h-%p.profraw" "$C/tests/fuzz/fuzz_$h" \
			-runs=0 -max_len=4096 $dirs >"$C/cov_$h.log" 2>&1 ||
			{ echo "fuzz: fuzz_$h failed on its corpus (see $C/cov_$h.log)" >&2; exit 1; }
		llvm-profdata merge -sparse "$C/$h"-*.profraw -o "$C/$h.profdata" || exit 1
		llvm-cov report "$C/tests/fuzz/fuzz_$h" -instr-profile="$C/$h.profdata" \
			>"$C/cov_$h.txt" || exit 1
		# A row: file, regions, missed, cover, functions, missed,
		# executed, lines, missed, cover, branches, missed, cover. The
		# harness's files summed (a header once, though compiled in twice).
		awk -v h="$h" -v n="$n" -v f="$(files_of $h)" '
		BEGIN { nf = split(f, want, " ") }
		NF >= 13 { for (i = 1; i <= nf; i++)
			if (substr($1, length($1) - length(want[i]) + 1) == want[i] &&
			    !seen[want[i]]++) {
				fn += $5; fm += $6; ln += $8; lm += $9; bn += $11; bm += $12
			} }
		END { printf "%-8s %7d %5d/%-5d %3d%% %4d/%-4d %3d%% %4d/%-4d %3d%%  %s\n",
			h, n, ln - lm, ln, ln ? (ln - lm) * 100 / ln : 0,
			fn - fm, fn, fn ? (fn - fm) * 100 / fn : 0,
			bn - bm, bn, bn ? (bn - bm) * 100 / bn : 0, f }' "$C/cov_$h.txt"
	done
	echo "(per file: $C/cov_NAME.txt; llvm-cov show for the lines)"
	exit 0
	;;
--smoke)
	[ -x "$B/tests/fuzz/fuzz_parse" ] || { echo "fuzz: no fuzz build in $B (tools/fuzz.sh --build)"; exit 77; }
	fail=0
	for h in $ALL; do
		work=$(mktemp -d)
		out=$("$B/tests/fuzz/fuzz_$h" -runs=2000 -seed=1 -max_len=4096 \
			-artifact_prefix="$work/" "$work" "tests/fuzz/corpus/$h" 2>&1)
		if [ $? -ne 0 ]; then
			echo "FAIL fuzz_$h"
			echo "$out" | grep -E "ERROR|SUMMARY|#[0-9]+ 0x" | head -20
			fail=1
		else
			echo "ok   fuzz_$h: $(echo "$out" | grep -Eo 'cov: [0-9]+' | tail -1)"
		fi
		rm -rf "$work"
	done
	exit $fail
	;;
'' | -[!-]* | --[!r]*)
	sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac

if [ "$1" = --runs ]; then
	limit="-runs=${2:?fuzz: --runs N}"
	shift 2
else
	limit="-max_total_time=$1"
	shift
fi
case "$limit" in
*=[0-9]*) ;;
*) echo "fuzz: '${limit#*=}' is not a count of seconds or runs" >&2; exit 2 ;;
esac
names=${*:-$ALL}
for h in $names; do
	[ -d "tests/fuzz/corpus/$h" ] || { echo "fuzz: no harness '$h' (one of: $ALL)" >&2; exit 2; }
done
[ -x "$B/tests/fuzz/fuzz_parse" ] || "$0" --build || exit 1
fail=0
printf "%-8s %12s %10s %8s %8s %s\n" harness executions exec/s seconds cov result
for h in $names; do
	mkdir -p "$B/corpus/$h"
	log=$B/fuzz_$h.log
	t0=$(date +%s)
	"$B/tests/fuzz/fuzz_$h" "$limit" -max_len=4096 \
		-artifact_prefix="$B/crash-$h-" -print_final_stats=1 \
		"$B/corpus/$h" "tests/fuzz/corpus/$h" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
	execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$')
	rate=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$')
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+')
	res=ok
	[ $rc -eq 0 ] || { res="CRASH (see $log)"; fail=1; }
	printf "%-8s %12s %10s %8s %8s %s\n" "$h" "${execs:-?}" "${rate:-?}" "$took" "${cov:-?}" "$res"
done
exit $fail
