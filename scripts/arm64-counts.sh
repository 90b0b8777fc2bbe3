#!/usr/bin/env bash
# arm64-counts.sh: the arm64 rows of docs/performance.md's speed tables as
# instruction counts, since times under emulation mean nothing.
#
#   scripts/arm64-counts.sh [--cpu NAME] [--positions N] [--backends LIST] [--out DIR]
#
# Cross-compiles model/infer's tests for linux/arm64 and runs
# BenchmarkForwardCounts (each backend's forward pass on the workstation
# net at batch 1, 8 and 32) under qemu-user (qemu-aarch64 -cpu NAME,
# default max: FEAT_DotProd and FEAT_BF16, so the SDOT and BFDOT kernels
# run) with an instruction-count plugin (scripts/qemu-insn-count.c, built
# here with cc). Each count is the difference between two runs of the
# same benchmark that differ only in the number of forward passes (2, and
# 2 + about N positions' worth, default 64), so start-up, building the
# backend and the benchmark's own set-up cancel. The runs have
# GOMAXPROCS=1 (an idle P's thread spins looking for work, instructions
# that grow with the emulated run's wall time: 3% of a count with two)
# and GOGC=off; what is left of the runtime's other threads varies a
# run's count by about a million instructions, in differences of 130 to
# 415 million. Prints a Markdown table of
# guest instructions per position, and each backend's count against
# fp32's (--backends, default "fp32 bf16 int8", those this CPU runs);
# keeps the counts in --out (default a new folder under $TMPDIR). About
# 20 minutes on a busy 2-core machine: qemu emulates BFDOT and SDOT
# slowly.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 2; }
CPU=max POSITIONS=64 BACKENDS_WANTED="fp32 bf16 int8" OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU=$2; shift 2 ;;
	--positions) POSITIONS=$2; shift 2 ;;
	--backends) BACKENDS_WANTED=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) usage ;;
	*) echo "arm64-counts.sh: unknown argument $1" >&2; usage ;;
	esac
done
command -v qemu-aarch64 >/dev/null || { echo "arm64-counts.sh: no qemu-aarch64 (Debian: apt-get install qemu-user)" >&2; exit 1; }
command -v cc >/dev/null || { echo "arm64-counts.sh: no C compiler for the qemu plugin (Debian: apt-get install gcc)" >&2; exit 1; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d -t arm64-counts.XXXXXX)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

cc -shared -fPIC -O2 -o "$OUT/libinsncount.so" "$ROOT/scripts/qemu-insn-count.c"
cd "$ROOT"
GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go test -c -o "$OUT/infer.test" ./model/infer/

# count BACKEND BATCH PASSES: guest instructions of one run; status 3
# when the benchmark skips (the backend is not on this CPU), 1 when the
# run fails.
count() {
	(cd model/infer && GOMAXPROCS=1 GOGC=off qemu-aarch64 -cpu "$CPU" -plugin "$OUT/libinsncount.so,out=$OUT/$1-$2-$3.count" \
		"$OUT/infer.test" -test.run XXX -test.bench "ForwardCounts/$1/batch=$2\$" -test.benchtime "$3x" >"$OUT/$1-$2-$3.txt" 2>&1) ||
		{ cat "$OUT/$1-$2-$3.txt" >&2; return 1; }
	grep -q "^BenchmarkForwardCounts/$1/batch=$2" "$OUT/$1-$2-$3.txt" || return 3
	cat "$OUT/$1-$2-$3.count"
}

declare -A per
BACKENDS=""
for b in $BACKENDS_WANTED; do
	for n in 1 8 32; do
		extra=$(( (POSITIONS + n - 1) / n ))
		c0=$(count $b $n 2) || { [ $? -eq 3 ] && continue; echo "arm64-counts.sh: $b at batch $n failed" >&2; exit 1; }
		c1=$(count $b $n $((2 + extra))) || { echo "arm64-counts.sh: $b at batch $n failed" >&2; exit 1; }
		per[$b/$n]=$(( (c1 - c0) / (extra * n) ))
		echo "$b batch $n: $(( c1 - c0 )) instructions in $extra passes" >&2
	done
	[ -n "${per[$b/1]:-}" ] && BACKENDS="$BACKENDS $b"
done
{
	echo "guest instructions per position, workstation net, qemu-aarch64 -cpu $CPU (BenchmarkForwardCounts)"
	echo
	echo "| backend | batch 1 | batch 8 | batch 32 | fp32/backend at 1 | at 8 | at 32 |"
	echo "|---|---|---|---|---|---|---|"
	for b in $BACKENDS; do
		printf '| %s |' "$b"
		for n in 1 8 32; do printf ' %s |' "$(awk -v v="${per[$b/$n]}" 'BEGIN { printf "%.0fk", v / 1000 }')"; done
		for n in 1 8 32; do printf ' %s |' "$(awk -v a="${per[fp32/$n]:-0}" -v v="${per[$b/$n]}" 'BEGIN { if (a > 0) printf "%.2fx", a / v; else printf "-" }')"; done
		echo
	done
} | tee "$OUT/table.md"
