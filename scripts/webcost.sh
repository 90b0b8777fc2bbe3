#!/usr/bin/env bash
# webcost.sh: what the web view costs self-play.
#
#   scripts/webcost.sh RUN [--games N] [--trials N]
#
# Plays --games (default 40) self-play games of the run's best model with
# dama selfplay worker --run into a copy of the run folder RUN (four games a
# chunk, so the run page sees a new chunk every few seconds), --trials
# (default 3) times without and with the web view: dama serve on the copy
# with the run page open in headless Chromium (Debian's chromium; it holds
# the page's event stream open until killed). The two alternate, so that
# the machine's other load falls on both. Each line gives the games per
# hour (wall clock), the CPU time of the self-play process, and with the
# web view the CPU time of dama serve and of Chromium over the trial.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
RUN=$1; shift
GAMES=40 TRIALS=3
while [ $# -gt 0 ]; do
	case $1 in
	--games) GAMES=$2; shift 2 ;;
	--trials) TRIALS=$2; shift 2 ;;
	*) usage ;;
	esac
done
command -v chromium >/dev/null || { echo "webcost: no chromium (apt-get install chromium)" >&2; exit 1; }
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/dama" ./cmd/dama
cp -r "$RUN" "$tmp/run" && rm -f "$tmp/run/lock"
port=$((20000 + RANDOM % 20000))

# tree PID...: the processes and every process below them.
tree() { local p; for p in "$@"; do echo "$p"; tree $(pgrep -P "$p" || true); done; }
# cpu PID...: CPU seconds (user + sys) of the processes and their children.
cpu() {
	for p in $(tree "$@"); do [ -r "/proc/$p/stat" ] && sed 's/^.*) //' "/proc/$p/stat"; done |
		awk -v hz="$(getconf CLK_TCK)" '{ t += $12 + $13 } END { printf "%.2f", t / hz }'
}

for trial in $(seq "$TRIALS"); do
	for mode in off on; do
		if [ $mode = on ]; then
			"$tmp/dama" serve --run "$tmp/run" --addr "127.0.0.1:$port" >"$tmp/serve.log" 2>&1 &
			sp=$!
			sleep 1
			chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
				--disable-background-networking --disable-component-update --disable-sync \
				--user-data-dir="$tmp/chromium" --remote-debugging-port=0 \
				"http://127.0.0.1:$port/#run" >"$tmp/chromium.log" 2>&1 &
			bp=$!
			# the page is open once its event stream is
			until ss -tn state established "( dport = :$port )" | grep -q "127.0.0.1:$port"; do sleep 0.5; done
			s0=$(cpu $sp) b0=$(cpu $bp)
		fi
		TIMEFORMAT='%R %U %S'
		t=$({ time "$tmp/dama" selfplay worker --run "$tmp/run" --games "$GAMES" --worker "w$trial$mode" --chunk 4 >"$tmp/selfplay.log" 2>&1; } 2>&1)
		read -r wall usr sys <<<"$t"
		line=$(awk -v g="$GAMES" -v w="$wall" -v u="$usr" -v s="$sys" -v m="$mode" -v n="$trial" \
			'BEGIN { printf "trial %d web view %-3s %d games  %.1f s  %.0f games/h  self-play CPU %.1f s", n, m, g, w, g * 3600 / w, u + s }')
		if [ $mode = on ]; then
			line="$line  serve CPU $(awk -v a="$s0" -v b="$(cpu $sp)" 'BEGIN { printf "%.2f", b - a }') s  chromium CPU $(awk -v a="$b0" -v b="$(cpu $bp)" 'BEGIN { printf "%.2f", b - a }') s"
			kill $bp $sp; wait $bp $sp 2>/dev/null || true
		fi
		echo "$line  (load $(cut -d' ' -f1 /proc/loadavg))"
	done
done
