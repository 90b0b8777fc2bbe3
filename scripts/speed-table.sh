#!/usr/bin/env bash
# speed-table.sh: the inference speed tables of docs/performance.md in one run.
#
#   scripts/speed-table.sh [--model CKPT] [--games N] [--visits N] [--benchtime T] [--out DIR]
#
# 1. positions per CPU-second of every backend this CPU runs (fp32, bf16,
#    int8) and of ONNX Runtime (one thread, on the same exported file, via
#    model/export/ortcheck and node; set DAMA_ORTCHECK_DIR to an ortcheck
#    folder with node_modules, else npm installs one) for the tiny, small
#    and workstation presets at batch 1, 8, 32 and 128, all measured inside
#    one benchmark run (BenchmarkONNXRuntime, GOMAXPROCS=1), so the ratios
#    hold on a shared machine;
# 2. self-play games per CPU-hour of `dama selfplay --model CKPT` (default
#    the shipped model) for each backend, runs alternating between backends
#    (twice each), CPU time (user + sys) of the whole process.
# The tables are printed as Markdown and kept in --out (default
# a new folder under $TMPDIR).
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 2; }
MODEL=checkpoints/shipped/dama.ckpt GAMES=48 VISITS=64 BENCHTIME=1s OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--model) MODEL=$2; shift 2 ;;
	--games) GAMES=$2; shift 2 ;;
	--visits) VISITS=$2; shift 2 ;;
	--benchtime) BENCHTIME=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) usage ;;
	*) echo "speed-table.sh: unknown argument $1" >&2; usage ;;
	esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d -t speed-table.XXXXXX)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -f "$MODEL" ] || { echo "speed-table.sh: no model file $MODEL" >&2; exit 1; }
MODEL=$(cd "$(dirname "$MODEL")" && pwd)/$(basename "$MODEL")

cd "$ROOT"
go build -o "$OUT/dama" ./cmd/dama
# The backends this CPU runs, in this order: fp32 bf16 int8.
AVAIL=$("$OUT/dama" model info "$MODEL" | sed -n 's/^backend .*available: \(.*\))$/\1/p')
BACKENDS=""
for b in fp32 bf16 int8; do case ", $AVAIL," in *", $b,"*) BACKENDS="$BACKENDS $b" ;; esac; done
BACKENDS=${BACKENDS# }
echo "backends on this CPU: $BACKENDS" >&2

# 1. Inference, one benchmark run.
GOMAXPROCS=1 go test ./model/export -run XXX -bench ONNXRuntime -benchtime "$BENCHTIME" | tee "$OUT/bench.txt" >&2
{
	echo "positions per CPU-second, one thread (BenchmarkONNXRuntime, one run)"
	echo
	printf '| net | batch |'
	for b in $BACKENDS ort; do printf ' %s |' "$b"; done
	for b in $BACKENDS; do [ "$b" != fp32 ] && printf ' %s/fp32 |' "$b"; done
	echo
	printf '|---|---|'
	for b in $BACKENDS ort; do printf -- '---|'; done
	for b in $BACKENDS; do [ "$b" != fp32 ] && printf -- '---|'; done
	echo
	awk -v list="$BACKENDS ort" '
		/^BenchmarkONNXRuntime\// {
			split($1, parts, "/"); net = parts[2]; batch = parts[3]; sub(/^batch=/, "", batch); sub(/-[0-9]+$/, "", batch)
			delete v
			for (i = 3; i < NF; i++) if ($(i+1) ~ /-positions\/cpu-s$/) { u = $(i+1); sub(/-positions\/cpu-s$/, "", u); v[u] = $i }
			n = split(list, names, " ")
			line = "| " net " | " batch " |"
			for (k = 1; k <= n; k++) line = line sprintf(" %.0f |", v[names[k]])
			for (k = 1; k <= n; k++) if (names[k] != "fp32" && names[k] != "ort") line = line sprintf(" %.2fx |", v[names[k]] / v["fp32"])
			print line
		}' "$OUT/bench.txt"
} > "$OUT/inference.md"

# 2. Self-play, alternating backends.
for rep in 1 2; do
	for b in $BACKENDS; do
		rm -rf "$OUT/games-$b"
		TIMEFORMAT="%R %U %S"
		{ time "$OUT/dama" selfplay --model "$MODEL" --games "$GAMES" --parallel 16 --visits "$VISITS" --seed 3 \
			--backend "$b" --quiet --out "$OUT/games-$b" >"$OUT/selfplay-$b-$rep.log" 2>&1 ; } 2>"$OUT/time-$b-$rep.txt"
		echo "selfplay $b run $rep: $(cat "$OUT/time-$b-$rep.txt") (wall user sys)" >&2
	done
done
{
	echo "self-play, $GAMES games at $VISITS visits, --parallel 16, twice per backend ($(basename "$MODEL")); the backends' games differ, so their lengths do too: positions per CPU-second is the fairer ratio"
	echo
	echo "| backend | games | positions | CPU seconds | games per CPU-hour | positions per CPU-second | vs fp32 (games, positions) |"
	echo "|---|---|---|---|---|---|---|"
	for b in $BACKENDS; do
		pos=$(cat "$OUT"/selfplay-"$b"-*.log | sed -n 's/.*; \([0-9]*\) positions,.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
		cat "$OUT"/time-"$b"-*.txt | awk -v b="$b" -v g="$GAMES" -v pos="$pos" '{ cpu += $2 + $3; n++ } END { printf "%s %d %d %.1f %.0f %.0f\n", b, g*n, pos, cpu, 3600*g*n/cpu, pos/cpu }'
	done | awk '{ r[NR] = $0; if ($1 == "fp32") { bg = $5; bp = $6 } }
		END { for (i = 1; i <= NR; i++) { split(r[i], f, " "); printf "| %s | %d | %d | %.1f | %.0f | %.0f | %.2fx, %.2fx |\n", f[1], f[2], f[3], f[4], f[5], f[6], f[5]/bg, f[6]/bp } }'
} > "$OUT/selfplay.md"
cat "$OUT/inference.md"
echo
cat "$OUT/selfplay.md"
