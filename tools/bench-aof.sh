#!/usr/bin/env bash
# The CPU time per write request of chapter 33's server with its
# append-only file under each -appendfsync policy, against no log: a
# report, not a test. Run from the repository root:
#
#   tools/bench-aof.sh                 # five rounds, 50 connections
#   N=20000 REPEAT=3 tools/bench-aof.sh
#
# Each round starts one server per setting in turn, on a fresh log in a
# temporary directory, and drives it with tools/loadgen over RESP (SET of
# 3-byte values on 100,000 keys, one request in flight per connection);
# loadgen reads the server's user plus system CPU time from /proc/PID/stat
# before and after. The settings are interleaved, so a change in the
# machine's load spreads over all of them. Prints a markdown table: the
# median and min..max of each figure, and the log's size per write.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-40000}
REPEAT=${REPEAT:-5}
CONNS=${CONNS:-50}
PORT=${PORT:-6442}

work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/bin/" ./ch33_aof/cmd/server ./tools/loadgen

settings=("off" "no" "everysec" "always")
declare -A cpu rps size
for round in $(seq "$REPEAT"); do
	for s in "${settings[@]}"; do
		dir="$work/d-$s-$round"
		mkdir -p "$dir"
		args=(-addr 127.0.0.1:0 -resp-addr "127.0.0.1:$PORT")
		if [ "$s" != off ]; then
			args+=(-appendonly yes -dir "$dir" -appendfsync "$s")
		fi
		"$work/bin/server" "${args[@]}" 2>"$work/server.log" &
		pid=$!
		for _ in $(seq 100); do
			grep -q "^listening on" "$work/server.log" && break
			sleep 0.05
		done
		line=$("$work/bin/loadgen" -proto resp -addr "127.0.0.1:$PORT" -t set -c "$CONNS" -n "$N" -pid "$pid")
		kill "$pid"
		wait "$pid" 2>/dev/null || true
		pid=
		c=$(sed -n 's/.*cpu_us=\([0-9.]*\).*/\1/p' <<<"$line")
		r=$(sed -n 's/.* rps=\([0-9.]*\).*/\1/p' <<<"$line")
		cpu[$s]+="$c "
		rps[$s]+="$r "
		if [ "$s" != off ]; then
			size[$s]=$(($(stat -c %s "$dir/appendonly.aof") / N))
		fi
	done
done

# stats prints "median (min-max)" of its arguments, with printf format $1.
stats() {
	local fmt=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v f="$fmt" '{v[NR]=$1} END {printf f " (" f "-" f ")", v[int((NR+1)/2)], v[1], v[NR]}'
}

echo "| -appendfsync | CPU per SET | requests/s | log bytes per SET |"
echo "| --- | ---: | ---: | ---: |"
for s in "${settings[@]}"; do
	name=$s
	[ "$s" = off ] && name="(no log: -appendonly no)"
	# shellcheck disable=SC2086
	printf '| %s | %s µs | %s | %s |\n' "$name" "$(stats %.2f ${cpu[$s]})" "$(stats %.0f ${rps[$s]})" "${size[$s]:--}"
done
echo
echo "N=$N per run, $CONNS connections, $REPEAT rounds; $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
