#!/usr/bin/env bash
# profile-server.sh: where a server's CPU time per request goes, under the
# load tools/bench-redis.sh measures.
#
# usage: tools/profile-server.sh [-t set|get] [-c CONNS] [-P DEPTH] [-n N] [-o FILE] SERVER_DIR[:resp]
#
#   SERVER_DIR  a chapter module (ch18_performance, ch38_blocking, ...) or
#               tools/floor; SERVER_DIR:resp drives a chapter's RESP listener
#               (chapter 23 or later) instead of its book listener.
#   -t, -c, -P  loadgen's workload, connections and pipeline depth
#               (default: get, 50, 1); -n the requests of the timed run
#               (default 200000 at depth 1, 1000000 deeper); -o FILE keeps
#               the CPU profile there, for go tool pprof (for instance
#               `go tool pprof -top -focus=keytable FILE`: the share of the
#               samples that passed through the key table).
#
# The server runs with -cpuprofile (persistence off, files in a scratch
# directory). For get, the key space (100000 keys, 3-byte values) is filled
# first by a separate pipelined run; then one timed loadgen run. Printed, as
# markdown:
#   - the server's CPU per request during the timed run, user and system
#     apart, from /proc/PID/stat: system time is the kernel's work for the
#     process (the system calls, and the loopback network under them);
#   - the profile's samples by where they stop: the kernel inside a system
#     call (by call: read, write, epoll_wait, the runtime's futex...), the Go
#     runtime (entering and leaving system calls, the scheduler, allocation,
#     the garbage collector) and the server's own code; the profile spans the
#     whole life of the server, the fill included, so its shares are the
#     figure to read, not its seconds;
#   - pprof's top functions by flat time.
# Nothing is asserted: this is for reading, beside bench-redis.sh's figures.
set -euo pipefail

WORK=get CONNS=50 DEPTH=1 N= KEEP=
while (($#)); do
	case $1 in
	-t) WORK=$2 && shift 2 ;;
	-c) CONNS=$2 && shift 2 ;;
	-P) DEPTH=$2 && shift 2 ;;
	-n) N=$2 && shift 2 ;;
	-o) KEEP=$2 && shift 2 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "profile-server.sh: unknown option $1 (try --help)" >&2
		exit 2
		;;
	*) break ;;
	esac
done
(($# == 1)) || {
	echo "usage: tools/profile-server.sh [-t set|get] [-c CONNS] [-P DEPTH] [-n N] [-o FILE] SERVER_DIR[:resp]" >&2
	exit 2
}
TARGET=${1%/}
DIR=${TARGET%:resp}
[[ -n $N ]] || { ((DEPTH > 1)) && N=1000000 || N=200000; }
KEYS=100000

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[[ -d $DIR/cmd/server ]] || {
	echo "profile-server.sh: no $DIR/cmd/server in $ROOT" >&2
	exit 2
}

TMP=$(mktemp -d /tmp/profile-server.XXXXXX)
SRV_PID=
cleanup() {
	[[ -n $SRV_PID ]] && kill -9 "$SRV_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

go build -o "$TMP/server" "./$DIR/cmd/server"
go build -o "$TMP/loadgen" ./tools/loadgen

# A free loopback port: the kernel picks one for a listener that closes.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# The same flags as bench-redis.sh gives: the server keeps to itself.
usage=$("$TMP/server" -h 2>&1 || true)
flags=(-cpuprofile "$TMP/cpu.pprof")
PROTO=book
if [[ $TARGET == *:resp ]]; then
	[[ $usage == *-resp-addr* ]] || {
		echo "profile-server.sh: $DIR has no RESP listener" >&2
		exit 2
	}
	flags+=(-addr 127.0.0.1:0 -resp-addr "127.0.0.1:$PORT")
	PROTO=resp
else
	flags+=(-addr "127.0.0.1:$PORT")
	[[ $usage == *-resp-addr* ]] && flags+=(-resp-addr "")
fi
[[ $usage == *-appendonly* ]] && flags+=(-appendonly no)
[[ $usage == *-save* ]] && flags+=(-save "")
[[ $usage == *-dir* ]] && flags+=(-dir "$TMP")

"$TMP/server" "${flags[@]}" >"$TMP/server.out" 2>"$TMP/server.err" &
SRV_PID=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
	sleep 0.1
done

lg() { GOMAXPROCS=1 timeout 600 "$TMP/loadgen" -proto "$PROTO" -addr "127.0.0.1:$PORT" "$@"; }
if [[ $WORK != set ]]; then
	lg -t set -preload -n 1 -c 8 -r "$KEYS" >/dev/null
fi

# utime and stime of the server, in clock ticks (fields 14 and 15).
ticks() { awk '{print $14, $15}' "/proc/$SRV_PID/stat"; }
read -r u0 s0 < <(ticks)
line=$(lg -pid "$SRV_PID" -t "$WORK" -c "$CONNS" -P "$DEPTH" -n "$N" -r "$KEYS" -preload=false)
read -r u1 s1 < <(ticks)
kill -TERM "$SRV_PID"
wait "$SRV_PID" || true
SRV_PID=
[[ -z $KEEP ]] || cp "$TMP/cpu.pprof" "$KEEP"

hz=$(getconf CLK_TCK)
requests=$(sed -n 's/.* n=\([0-9]*\) .*/\1/p' <<<"$line")
echo "## $TARGET, $WORK, $CONNS connections, depth $DEPTH"
echo
echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), load average $(cut -d' ' -f1-3 /proc/loadavg); $(go version | cut -d' ' -f3)"
echo
echo "loadgen: \`$line\`"
echo
echo "| server CPU per request (timed run, /proc) | µs | share |"
echo "|---|---:|---:|"
awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v hz="$hz" -v n="$requests" 'BEGIN {
	t = u + s
	if (t == 0 || n == 0) { print "| (too short to measure) | - | - |"; exit }
	printf "| user (the Go runtime and the server'\''s code) | %.2f | %.0f%% |\n", u / hz * 1e6 / n, 100 * u / t
	printf "| system (the kernel) | %.2f | %.0f%% |\n", s / hz * 1e6 / n, 100 * s / t
	printf "| total | %.2f | 100%% |\n", t / hz * 1e6 / n
}'

# Each sample of `pprof -traces` is a block: its value and leaf function on
# the first line, the callers below. A sample is put in the first class
# that fits, from the leaf up.
echo
echo "| where the profile's samples stop (whole run) | seconds | share |"
echo "|---|---:|---:|"
go tool pprof -traces "$TMP/server" "$TMP/cpu.pprof" 2>/dev/null | awk '
	function secs(v) {
		if (v ~ /ms$/) return substr(v, 1, length(v) - 2) / 1000
		if (v ~ /us$/ || v ~ /µs$/) return substr(v, 1, length(v) - 2) / 1e6
		if (v ~ /s$/) return substr(v, 1, length(v) - 1)
		return 0
	}
	function classify(   i, leaf, call) {
		leaf = fn[1]
		if (leaf ~ /(^syscall\.|^internal\/runtime\/syscall|runtime\/internal\/syscall).*Syscall/) {
			call = "other"
			for (i = 2; i <= nf; i++) {
				if (fn[i] ~ /^golang\.org\/x\/sys\/unix\.(read|Read)$/) { call = "read"; break }
				if (fn[i] ~ /^golang\.org\/x\/sys\/unix\.(write|Write)$/) { call = "write"; break }
				if (fn[i] ~ /^golang\.org\/x\/sys\/unix\.(EpollWait|epollWait|EpollCtl)/) { call = "epoll"; break }
				if (fn[i] ~ /^golang\.org\/x\/sys\/unix\.(accept|Accept)/) { call = "accept"; break }
			}
			return "kernel: system call " call
		}
		if (leaf ~ /^runtime\.(futex|usleep|osyield|nanotime1|walltime|madvise|mmap|sysMmap|munmap|write1|read|sched_getaffinity|tgkill|rt_sigprocmask|sigprocmask|raise|epollwait|timer_settime)$/)
			return "kernel: the runtime'\''s own system calls (" leaf ")"
		for (i = 1; i <= nf; i++)
			if (fn[i] ~ /^runtime\.(gcBgMarkWorker|gcDrain|gcAssistAlloc|bgsweep|bgscavenge|gcMarkDone|gcStart|markroot|scanobject|wbBufFlush)/)
				return "Go runtime: garbage collector"
		if (leaf == "runtime.asyncPreempt") return "Go runtime: preempting the loop (sysmon, the collector)"
		if (leaf ~ /^runtime\./) {
			for (i = 1; i <= nf; i++) {
				if (fn[i] ~ /^runtime\.(entersyscall|exitsyscall|reentersyscall|exitsyscallfast)/) return "Go runtime: entering and leaving system calls"
				if (fn[i] ~ /^runtime\.(mallocgc|newobject|makeslice|growslice|rawstring|concatstring)/) return "Go runtime: allocation"
				if (fn[i] ~ /^runtime\.(schedule|findRunnable|mcall|park_m|goready|ready|wakep|startm|stopm|sysmon|mstart)/) return "Go runtime: scheduler and its threads"
			}
			return "Go runtime: other (" leaf ")"
		}
		if (leaf ~ /^golang\.org\/x\/sys\/unix\./) return "our code: system call wrappers"
		# Hashing, comparing and copying (aeshashbody, memeqbody...) count
		# for the code that asked for them.
		for (i = 1; i <= nf; i++)
			if (fn[i] ~ /^(example\.com\/|main\.)/) return "our code (and the library code it calls)"
		return "other (" leaf ")"
	}
	function flush() {
		if (nf > 0) { sum[classify()] += val; total += val }
		nf = 0
	}
	/^-+\+-+$/ { flush(); next }
	nf == 0 && NF >= 2 && $1 ~ /[0-9](ns|us|µs|ms|s)$/ { val = secs($1); fn[++nf] = $2; next }
	nf > 0 && NF >= 1 { fn[++nf] = $1 }
	END {
		flush()
		for (k in sum) printf "%s\t%.2f\t%.1f\n", k, sum[k], 100 * sum[k] / total
	}' | sort -t"$(printf '\t')" -k2,2gr | awk -F'\t' '{printf "| %s | %.2f | %s%% |\n", $1, $2, $3}'

echo
echo "top functions by flat time:"
echo
echo '```'
# Generic instantiations are named by their whole type: shortened.
go tool pprof -top -nodecount=15 "$TMP/server" "$TMP/cpu.pprof" 2>/dev/null |
	sed -n '/flat%/,$p' | sed 's/\[go\.shape[^]]*\]/[...]/g'
echo '```'
