#!/usr/bin/env bash
# analysiscost.sh: what the analysis board's continuous analysis costs the
# server, and how it stops.
#
#   scripts/analysiscost.sh RUN [--seconds N]
#
# Serves the run folder RUN (only read) with dama serve, and opens the
# analysis stream of the start position as the page does (curl), with the
# shipped model:
#   1. for --seconds (default 20), then closes it (the page's Stop, or a
#      move: the page closes the stream of the old position): the events,
#      the visits reached, the server's CPU seconds over the analysis and
#      over the 5 s after it was closed;
#   2. until the server ends it at its cap (60 s): why it ended, the CPU
#      seconds over the 5 s after, and the status of the browser's own
#      reconnect with the last event's id (204: no more, so an abandoned
#      tab costs nothing); and the server's peak memory.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
RUN=$1; shift
SECONDS_ON=20
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) SECONDS_ON=$2; shift 2 ;;
	*) usage ;;
	esac
done
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/dama" ./cmd/dama
port=$((20000 + RANDOM % 20000))
"$tmp/dama" serve --run "$RUN" --http "127.0.0.1:$port" >"$tmp/serve.log" 2>&1 &
srv=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/models" >/dev/null && break; sleep 0.2; done
tck=$(getconf CLK_TCK)
# cpu: the server's CPU seconds (user + sys).
cpu() { awk -v t="$tck" '{ sub(/^.*\) /, ""); print ($12 + $13) / t }' "/proc/$srv/stat"; }
url="http://127.0.0.1:$port/api/analysis?model=shipped&lines=3&client=costcheck0001"
# lastdata FILE: the last event's data line.
lastdata() { grep '^data: ' "$1" | tail -1 | cut -c7-; }
# field NAME: the first value of NAME in a JSON line (the root's, not a line's).
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2; }

# 1. Analysis for a while, then the client goes away.
c0=$(cpu); t0=$(date +%s.%N)
curl -sN --max-time "$SECONDS_ON" "$url" >"$tmp/a.txt" || true
c1=$(cpu); t1=$(date +%s.%N)
sleep 5
c2=$(cpu)
events=$(grep -c '^event: analysis' "$tmp/a.txt" || true)
visits=$(lastdata "$tmp/a.txt" | field visits)
awk -v e="$events" -v v="$visits" -v c0="$c0" -v c1="$c1" -v c2="$c2" -v t0="$t0" -v t1="$t1" 'BEGIN {
	w = t1 - t0
	printf "analysis for %.1f s: %d events, %d visits; server CPU %.2f s (%.2f CPU-s per second), %.0f visits per CPU-second\n", w, e, v, c1 - c0, (c1 - c0) / w, v / (c1 - c0)
	printf "after the client closed the stream: server CPU %.2f s in 5 s\n", c2 - c1
}'

# 2. Analysis to its cap; the browser's reconnect after the end.
c0=$(cpu); t0=$(date +%s.%N)
curl -sN --max-time 200 "$url" >"$tmp/b.txt" || true
c1=$(cpu); t1=$(date +%s.%N)
sleep 5
c2=$(cpu)
last=$(lastdata "$tmp/b.txt")
why=$(echo "$last" | sed -n 's/.*"why":"\([^"]*\)".*/\1/p')
id=$(grep '^id: ' "$tmp/b.txt" | tail -1 | cut -c5-)
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Last-Event-ID: $id" --max-time 10 "$url")
awk -v c0="$c0" -v c1="$c1" -v c2="$c2" -v t0="$t0" -v t1="$t1" -v why="$why" -v v="$(echo "$last" | field visits)" -v code="$code" -v id="$id" 'BEGIN {
	printf "analysis left open: ended by the server after %.1f s (%s, %d visits); server CPU %.2f s\n", t1 - t0, why, v, c1 - c0
	printf "after its end: server CPU %.2f s in 5 s; the reconnect with Last-Event-ID %s got %s\n", c2 - c1, id, code
}'
grep VmHWM "/proc/$srv/status" | awk '{ printf "the server'"'"'s peak memory (VmHWM): %d MB\n", $2 / 1024 }'
