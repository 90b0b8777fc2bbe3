#!/usr/bin/env bash
# ab.sh: A/B comparisons of training configurations at equal CPU time.
#
#   scripts/ab.sh BASE.yaml ARM.yaml [ARM2.yaml ...] [--cpu 25m] [--runs N] [--visits N]
#                 [--games N] [--match N] [--out DIR] [--init CKPT] [--set key=value]...
#
# Every configuration (the base and each arm) trains, for each run
# r = 1..N (default 1), from the same seed (run.seed = r) until the trainer
# has used --cpu of CPU time (dama train --max-cpu), so all get the same
# compute whatever else the machine runs. Each final best model is rated on
# the ladder (dama ladder: the fixed scale of reference players) at --visits,
# and each arm's final model plays the base's in a direct match of --match
# games with paired colours. The table at the end gives every rating, each
# arm's difference to the base with its 95% interval (ladder games only),
# and the direct matches. With --init every run starts from that checkpoint
# (dama train --init), e.g. to compare settings at workstation size from the
# shipped model. When a run stops, its best model is copied to
# DIR/final.ckpt and its generations, games and CPU to DIR/final.txt; the
# ratings, the matches and the table use those, so a run folder may go on
# training afterwards (an arm continued as the next piece of a model).
# Runs go to --out (default ab-<base>); run the same command again to
# resume: finished parts are kept.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 2; }
CPU=25m RUNS=1 VISITS=800 GAMES=200 MATCH=100 OUT="" SETS=() CFGS=() INIT=()
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--visits) VISITS=$2; shift 2 ;;
	--games) GAMES=$2; shift 2 ;;
	--match) MATCH=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--set) SETS+=(--set "$2"); shift 2 ;;
	--init) INIT=(--init "$2"); shift 2 ;;
	-h|--help) usage ;;
	-*) echo "ab.sh: unknown option $1" >&2; usage ;;
	*) CFGS+=("$1"); shift ;;
	esac
done
[ ${#CFGS[@]} -ge 2 ] || usage
for f in "${CFGS[@]}"; do
	[ -f "$f" ] || { echo "ab.sh: no configuration file $f" >&2; exit 2; }
done
name() { basename "$1" .yaml; }
[ -n "$OUT" ] || OUT="ab-$(name "${CFGS[0]}")"
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
DAMA="$(cd "$OUT" && pwd)/dama"
[ -x "$DAMA" ] || (cd "$root" && go build -o "$DAMA" ./cmd/dama)

best() { echo "$1/$(cat "$1/best")"; }
# freeze records what a run ends with, once: its best model (final.ckpt)
# and "generations games cpu-seconds" (final.txt).
freeze() {
	local dir=$1
	[ -s "$dir/final.txt" ] && return
	cp "$(best "$dir")" "$dir/final.ckpt.tmp" && mv "$dir/final.ckpt.tmp" "$dir/final.ckpt"
	local gens games cpu
	gens=$(ls "$dir/generations" | grep -c '^[0-9]*\.json$' || true)
	games=$("$DAMA" report "$dir" --no-plots 2>/dev/null | sed -n 's/^total: \([0-9]*\) games.*/\1/p')
	cpu=$(cat "$dir"/generations/[0-9]*[0-9].json 2>/dev/null | sed -n 's/.*"cpu_s": \([0-9.]*\).*/\1/p' | awk '{ s += $1 } END { printf "%.0f", s }')
	echo "${gens:-0} ${games:-?} ${cpu:-?}" > "$dir/final.txt.tmp" && mv "$dir/final.txt.tmp" "$dir/final.txt"
}
# keep runs the command and keeps its output in file, once: a rerun of the
# script reuses it.
keep() {
	local file=$1; shift
	if [ ! -s "$file" ]; then
		"$@" > "$file.tmp"
		mv "$file.tmp" "$file"
	fi
}

for r in $(seq 1 "$RUNS"); do
	for cfg in "${CFGS[@]}"; do
		dir="$OUT/$(name "$cfg")-$r"
		echo "== run $r, $(name "$cfg"): training for $CPU of CPU time into $dir ($(date -u +%H:%M:%S))"
		if [ ! -s "$dir/final.txt" ]; then
			"$DAMA" train --config "$cfg" --run "$dir" --max-cpu "$CPU" --quiet --set "run.seed=$r" --set run.generations=0 "${INIT[@]}" "${SETS[@]}" | tail -n 2
			freeze "$dir"
		fi
		keep "$dir/ladder.txt" "$DAMA" ladder --model "$dir/final.ckpt" --visits "$VISITS" --games "$GAMES" --quiet
		tail -n 1 "$dir/ladder.txt"
	done
	base="$OUT/$(name "${CFGS[0]}")-$r"
	for cfg in "${CFGS[@]:1}"; do
		dir="$OUT/$(name "$cfg")-$r"
		keep "$dir/match.txt" "$DAMA" arena --a "$dir/final.ckpt@$VISITS" --b "$base/final.ckpt@$VISITS" --games "$MATCH" --quiet
	done
done

# The summary. Ladder lines read "NAME on the ladder: +812 [+780, +845] from 200 games".
echo
echo "base $(name "${CFGS[0]}"); $RUNS run(s) each, $CPU of trainer CPU per run, ladder at $VISITS visits and $GAMES games"
printf '%-24s %4s %5s %7s %7s %6s %18s\n' config run gens games cpu-s Elo "95% interval"
sum="$OUT/summary.tsv"
: > "$sum"
for cfg in "${CFGS[@]}"; do
	for r in $(seq 1 "$RUNS"); do
		dir="$OUT/$(name "$cfg")-$r"
		read -r gens games cpu < "$dir/final.txt"
		read -r elo lo hi < <(tail -n 1 "$dir/ladder.txt" | sed -E 's/.*ladder: ([-+0-9.]+) \[([-+0-9.]+), ([-+0-9.]+)\].*/\1 \2 \3/')
		printf '%-24s %4s %5s %7s %7s %+6.0f    [%+.0f, %+.0f]\n' "$(name "$cfg")" "$r" "$gens" "$games" "$cpu" "$elo" "$lo" "$hi"
		printf '%s\t%s\t%s\t%s\n' "$(name "$cfg")" "$elo" "$lo" "$hi" >> "$sum"
	done
done
echo
awk -F'\t' -v base="$(name "${CFGS[0]}")" '
	{ se = ($4 - $3) / (2 * 1.96); if (!($1 in n)) order[++k] = $1; n[$1]++; s[$1] += $2; v[$1] += se * se }
	END {
		mb = s[base] / n[base]; vb = v[base] / (n[base] * n[base])
		for (i = 2; i <= k; i++) {
			a = order[i]; m = s[a] / n[a]; se = sqrt(v[a] / (n[a] * n[a]) + vb)
			printf "%-24s mean %+.0f, minus %s: %+.0f [%+.0f, %+.0f]\n", a, m, base, m - mb, m - mb - 1.96 * se, m - mb + 1.96 * se
		}
	}' "$sum"
for cfg in "${CFGS[@]:1}"; do
	for r in $(seq 1 "$RUNS"); do
		echo "direct match, run $r: $(tail -n 1 "$OUT/$(name "$cfg")-$r/match.txt")"
	done
done
