#!/usr/bin/env bash
# ab.sh: an A/B of two training configurations at equal CPU time.
#
#   scripts/ab.sh A.yaml B.yaml [--cpu 25m] [--runs N] [--visits N] [--games N] [--match N] [--out DIR] [--set key=value]...
#
# For each run r = 1..N (default 1) both arms train from the same seed
# (run.seed = r) until the trainer has used --cpu of CPU time (dama train
# --max-cpu), so they get the same compute whatever else the machine runs.
# Each arm's final best model is then rated on the ladder (dama ladder, the
# fixed scale of reference players) at --visits, and the two final models of
# a run play a direct match of --match games with paired colours. The table
# at the end gives each arm's ladder rating, the difference B - A with its
# 95% interval, and the direct matches. Runs go to --out (default
# ab-<A>-<B>); run the same command again to resume an interrupted A/B.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
A=$1 B=$2; shift 2
CPU=25m RUNS=1 VISITS=800 GAMES=200 MATCH=100 OUT="" SETS=()
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--visits) VISITS=$2; shift 2 ;;
	--games) GAMES=$2; shift 2 ;;
	--match) MATCH=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--set) SETS+=(--set "$2"); shift 2 ;;
	*) echo "ab.sh: unknown argument $1" >&2; usage ;;
	esac
done
for f in "$A" "$B"; do
	[ -f "$f" ] || { echo "ab.sh: no configuration file $f" >&2; exit 2; }
done
name() { basename "$1" .yaml; }
[ -n "$OUT" ] || OUT="ab-$(name "$A")-$(name "$B")"
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
DAMA="$(cd "$OUT" && pwd)/dama"
(cd "$root" && go build -o "$DAMA" ./cmd/dama)

best() { echo "$1/$(cat "$1/best")"; }

for r in $(seq 1 "$RUNS"); do
	for arm in A B; do
		cfg=$A; [ $arm = B ] && cfg=$B
		dir="$OUT/$arm-$r"
		echo "== run $r, arm $arm ($cfg): training for $CPU of CPU time into $dir"
		"$DAMA" train --config "$cfg" --run "$dir" --max-cpu "$CPU" --quiet --set "run.seed=$r" --set run.generations=0 "${SETS[@]}" | tail -n 3
		if [ ! -s "$dir/ladder.txt" ]; then
			"$DAMA" ladder --model "$(best "$dir")" --visits "$VISITS" --games "$GAMES" --quiet > "$dir/ladder.tmp"
			mv "$dir/ladder.tmp" "$dir/ladder.txt"
		fi
		tail -n 1 "$dir/ladder.txt"
	done
	if [ ! -s "$OUT/match-$r.txt" ]; then
		"$DAMA" arena --a "$(best "$OUT/B-$r")@$VISITS" --b "$(best "$OUT/A-$r")@$VISITS" --games "$MATCH" --quiet > "$OUT/match-$r.tmp"
		mv "$OUT/match-$r.tmp" "$OUT/match-$r.txt"
	fi
done

# The summary: ladder lines read "NAME on the ladder: +812 [+780, +845] from 200 games".
echo
echo "A = $A, B = $B; $RUNS run(s) per arm, $CPU of trainer CPU each, ladder at $VISITS visits, $GAMES games"
printf '%-4s %-4s %6s %8s %18s %s\n' arm run gens games "ladder Elo" "95% interval"
for arm in A B; do
	for r in $(seq 1 "$RUNS"); do
		dir="$OUT/$arm-$r"
		gens=$(ls "$dir/generations" | grep -c '^[0-9]*\.json$' || true)
		games=$("$DAMA" report "$dir" --no-plots 2>/dev/null | sed -n 's/^total: \([0-9]*\) games.*/\1/p')
		read -r elo lo hi < <(tail -n 1 "$dir/ladder.txt" | sed -E 's/.*ladder: ([-+0-9.]+) \[([-+0-9.]+), ([-+0-9.]+)\].*/\1 \2 \3/')
		printf '%-4s %-4s %6s %8s %18s [%s, %s]\n' $arm $r "$gens" "${games:-?}" "$elo" "$lo" "$hi"
		echo "$arm $elo $lo $hi" >> "$OUT/.summary"
	done
done
awk '
	{ se = ($4 - $3) / (2 * 1.96); n[$1]++; sum[$1] += $2; var[$1] += se * se }
	END {
		ma = sum["A"] / n["A"]; mb = sum["B"] / n["B"]
		se = sqrt(var["A"] / (n["A"] * n["A"]) + var["B"] / (n["B"] * n["B"]))
		printf "mean ladder Elo: A %+.0f, B %+.0f; B - A = %+.0f [%+.0f, %+.0f] (95%%, ladder games only)\n", ma, mb, mb - ma, mb - ma - 1.96 * se, mb - ma + 1.96 * se
	}' "$OUT/.summary"
rm -f "$OUT/.summary"
for r in $(seq 1 "$RUNS"); do
	echo "direct match, run $r (B vs A): $(tail -n 1 "$OUT/match-$r.txt")"
done
