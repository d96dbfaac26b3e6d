#!/usr/bin/env bash
# bench-redis.sh: measure chapter servers next to a real Redis on this machine.
#
# usage: tools/bench-redis.sh [--parts LIST] [CHAPTER_DIR ...]
#
#   CHAPTER_DIR  chapter modules to measure (default: ch14_threadpool
#                ch18_performance), or tools/floor, the least a request can
#                cost (a server that only answers nils); a directory that does
#                not exist, or has no cmd/server, is skipped with a note. The
#                servers must speak the protocol of chapter 11 or later;
#                memory and expiry need pexpire (chapter 13 or later).
#                CHAPTER_DIR:resp (chapter 23 or later, e.g. ch38_blocking:resp)
#                measures the chapter over its RESP listener instead, driven
#                and filled exactly as Redis is. A chapter that persists is
#                started with persistence off (-save "", -appendonly no) and
#                its -dir in the scratch directory, as Redis is.
#   --parts      comma-separated subset of throughput,bigkeys,memory,expiry
#                (default: all four)
#
# Four measurements, each printed as a markdown table on stdout (progress
# and raw tool output go to stderr):
#
#   throughput  set and get at three shapes: 50 connections unpipelined,
#               50 connections with 16 requests per write, and 1 connection
#               unpipelined. One client drives every server: tools/loadgen,
#               in Redis's protocol (-proto resp) for Redis, with the same
#               keys, values and shapes. Each figure is the median of REPEAT
#               runs with their min..max, the servers interleaved inside
#               each repetition so that background load on a shared machine
#               hits them alike. Next to throughput, the server's CPU time
#               per request (user + system, from /proc/PID/stat around the
#               run; loadgen -pid): the steadier figure when the machine is
#               busy, and the one that says how much work a request costs
#               the server. The ratio to Redis is taken run by run (each
#               chapter's run over Redis's run of the same repetition), and
#               "vs 1.0" says whether 1.0 lies within its min..max. Beside
#               each row, the machine's state during its runs: the 1-minute
#               load average at their start and the steal time (the share
#               of CPU time the hypervisor gave to other guests, from
#               /proc/stat), median and min..max.
#   bigkeys     gets at 50 connections, depth 16, over BIG_KEYS keys, where
#               a lookup's cache misses show; reported as above.
#   memory      MEM_KEYS keys, each set and then given a one-hour TTL, loaded
#               into a fresh server; the growth of the process's VmRSS divided
#               by the key count (and for Redis also its own used_memory).
#   expiry      EXP_KEYS keys with the same short TTL are loaded, then a
#               single unpipelined client reads them for EXP_DUR while they
#               all expire; its p99 and max are compared with the same run
#               against keys whose TTL is an hour away.
#
# Environment (defaults in brackets):
#   N [200000] requests per unpipelined run   N16 [1000000] per pipelined run
#   REPEAT [5] runs per figure (at least 5 for a figure worth quoting)
#   SHAPES ["50 1,50 16,1 1"] the throughput shapes, "connections depth" each
#   KEYS [100000] key space for throughput      REDIS_PORT [6399] first port tried
#   MEM_KEYS [1000000]  EXP_KEYS [500000]  EXP_TTL [3000] ms  EXP_DUR [6s]
#   BIG_KEYS [1000000]  LOADGEN_PROCS [1] GOMAXPROCS of loadgen, so that the
#   client takes one core and leaves the other to the server   KEEP_TMP [0]
#   keep the scratch directory and logs.
#
# Everything runs on 127.0.0.1 only, every load is bounded by a request count
# or a duration (and by `timeout`), and every server started here is stopped
# on exit. Redis itself is installed from the distribution's packages when it
# is missing; nothing of it is kept in the repository.
set -euo pipefail

# --- settings ---------------------------------------------------------------

N=${N:-200000}
N16=${N16:-1000000}
BIG_KEYS=${BIG_KEYS:-1000000}
REPEAT=${REPEAT:-5}
KEYS=${KEYS:-100000}
REDIS_PORT=${REDIS_PORT:-6399}
MEM_KEYS=${MEM_KEYS:-1000000}
EXP_KEYS=${EXP_KEYS:-500000}
EXP_TTL=${EXP_TTL:-3000}
EXP_DUR=${EXP_DUR:-6s}
LOADGEN_PROCS=${LOADGEN_PROCS:-1}
KEEP_TMP=${KEEP_TMP:-0}
# Hard cap on any one client command, on top of the tools' own limits.
CMD_TIMEOUT=600

PARTS=throughput,bigkeys,memory,expiry
CHAPTERS=()
while (($#)); do
	case $1 in
	--parts)
		PARTS=${2:?--parts needs a list}
		shift 2
		;;
	--parts=*)
		PARTS=${1#--parts=}
		shift
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "bench-redis.sh: unknown option $1 (try --help)" >&2
		exit 2
		;;
	*)
		CHAPTERS+=("$1")
		shift
		;;
	esac
done
((${#CHAPTERS[@]})) || CHAPTERS=(ch14_threadpool ch18_performance)
want_part() { [[ ",$PARTS," == *",$1,"* ]]; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

log() { printf '%s\n' "$*" >&2; }

# --- cleanup: every server started here is remembered and stopped on exit ---

TMP=$(mktemp -d /tmp/bench-redis.XXXXXX)
PIDS=()

stop_pid() {
	local pid=$1
	kill "$pid" 2>/dev/null || true
	# Give it a moment to go; a server that ignores SIGTERM gets SIGKILL.
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		stop_pid "$pid"
	done
	if [[ $KEEP_TMP == 1 ]]; then
		log "logs kept in $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
# Turn an interrupt into an ordinary exit, so the EXIT trap stops the servers.
trap 'exit 130' INT
trap 'exit 143' TERM

# --- Redis: installed from the distribution if missing ----------------------

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
	log "installing redis-server and redis-tools"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server redis-tools
fi

# --- helpers ----------------------------------------------------------------

# port_busy PORT: true when something already accepts on 127.0.0.1:PORT.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port START: the first port from START on that nothing listens on.
free_port() {
	local p=$1
	while port_busy "$p"; do
		p=$((p + 1))
	done
	echo "$p"
}

# wait_port PORT PID: wait (at most 10 s) until the server listens.
wait_port() {
	for _ in $(seq 100); do
		port_busy "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# rss_kb PID: the process's resident set size, in KiB.
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# Started servers are reported through these globals (a command substitution
# would run the server in a subshell that the trap cannot wait for).
SRV_PID=
SRV_PORT=

# start_redis: a private, non-persistent Redis with no configuration file.
start_redis() {
	SRV_PORT=$(free_port "$REDIS_PORT")
	redis-server --bind 127.0.0.1 --port "$SRV_PORT" --save '' --appendonly no \
		--daemonize no --dir "$TMP" --logfile "$TMP/redis-$SRV_PORT.log" &
	started redis-server "$TMP/redis-$SRV_PORT.log"
}

# start_chapter CH: the chapter's server, built beforehand into $TMP/bin;
# SRV_PORT is its RESP listener for CH:resp, else its book listener.
start_chapter() {
	SRV_PORT=$(free_port "$((REDIS_PORT + 1000))")
	local dir=${1%:resp} name=${1//[\/:]/_} # tools/floor: a file name
	local listen=-addr flags
	[[ $1 == *:resp ]] && listen=-resp-addr
	eval "flags=(${SRV_FLAGS[$1]})"
	"$TMP/bin/${dir//\//_}-server" "${flags[@]}" "$listen" "127.0.0.1:$SRV_PORT" >>"$TMP/$name.out" 2>>"$TMP/$name.err" &
	started "$1 server" "$TMP/$name.err"
}

# proto_of NAME: loadgen's protocol for a server: resp for Redis and CH:resp.
proto_of() { if [[ $1 == Redis || $1 == *:resp ]]; then echo resp; else echo book; fi; }

# fill_resp PORT TTL N: N keys with a TTL, loaded into a RESP server the way
# Redis is loaded, through redis-cli --pipe; prints what redis-cli says.
fill_resp() {
	timeout "$CMD_TIMEOUT" "$TMP/bin/ttlfill" -resp -n "$3" -ttl "$2" |
		timeout "$CMD_TIMEOUT" redis-cli -h 127.0.0.1 -p "$1" --pipe
}

# started WHAT LOG: remembers the server just started in the background
# ($!) as SRV_PID and waits until it listens on SRV_PORT; if it does not,
# says so, pointing at its LOG, and exits.
started() {
	SRV_PID=$!
	PIDS+=("$SRV_PID")
	wait_port "$SRV_PORT" "$SRV_PID" || {
		log "$1 did not start; see $2"
		exit 1
	}
}

# stop_server: stop the server in SRV_PID and forget it.
stop_server() {
	stop_pid "$SRV_PID"
	local keep=() pid
	for pid in "${PIDS[@]}"; do
		[[ $pid == "$SRV_PID" ]] || keep+=("$pid")
	done
	PIDS=("${keep[@]}")
}

# field NAME LINE: the value of NAME=VALUE in a loadgen or ttlfill line,
# without its unit.
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2"; }

# round X: X to a whole number, or "-" when it is missing.
round() { awk -v x="$1" 'BEGIN {if (x == "") print "-"; else printf "%.0f", x}'; }

# ratio A B: A/B with two decimals, or "-" when either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b}'; }

# run_loadgen ARGS...: one loadgen run; prints its summary line or FAILED.
run_loadgen() {
	local out
	if out=$(GOMAXPROCS=$LOADGEN_PROCS timeout "$CMD_TIMEOUT" "$TMP/bin/loadgen" "$@" 2>>"$TMP/loadgen.err"); then
		echo "$out"
	else
		echo "FAILED"
	fi
}

# --- build --------------------------------------------------------------------

mkdir -p "$TMP/bin"
log "building tools/loadgen and tools/ttlfill"
go build -o "$TMP/bin/loadgen" ./tools/loadgen
go build -o "$TMP/bin/ttlfill" ./tools/ttlfill

RUN=()             # the chapters that exist and built, as named (with :resp)
declare -A SRV_FLAGS # by name: the flags that keep a chapter's server to itself
for ch in "${CHAPTERS[@]}"; do
	ch=${ch#./}
	ch=${ch%/}
	dir=${ch%:resp}
	dir=${dir%/}
	if [[ ! -d $dir/cmd/server ]]; then
		log "note: skipping $ch: no $dir/cmd/server in $ROOT"
		continue
	fi
	bin=$TMP/bin/${dir//\//_}-server
	log "building $dir"
	if ! go build -o "$bin" "./$dir/cmd/server"; then
		log "note: skipping $ch: it does not build"
		continue
	fi
	# The server's own usage line says which flags it has.
	usage=$("$bin" -h 2>&1 || true)
	flags=()
	if [[ $ch == *:resp ]]; then
		if [[ $usage != *-resp-addr* ]]; then
			log "note: skipping $ch: $dir has no RESP listener (-resp-addr)"
			continue
		fi
		flags+=(-addr 127.0.0.1:0) # the book's listener, out of the way
	elif [[ $usage == *-resp-addr* ]]; then
		flags+=(-resp-addr "") # no RESP listener on Redis's usual port
	fi
	[[ $usage == *-appendonly* ]] && flags+=(-appendonly no)
	[[ $usage == *-save* ]] && flags+=(-save "")
	if [[ $usage == *-dir* ]]; then
		mkdir -p "$TMP/dir-${ch//[\/:]/_}"
		flags+=(-dir "$TMP/dir-${ch//[\/:]/_}")
	fi
	SRV_FLAGS[$ch]=${flags[*]@Q}
	RUN+=("$ch")
done

# The machine goes on stdout too: the figures mean little without it.
echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)," \
	"Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; $(go version | cut -d' ' -f3);" \
	"$(redis-server --version | cut -d' ' -f1-3)"

# --- throughput -------------------------------------------------------------

IFS=, read -r -a SHAPES <<<"${SHAPES:-50 1,50 16,1 1}" # connections, pipeline depth

# cpu_ticks: the machine's total and steal CPU time so far, in ticks (the
# first line of /proc/stat: user nice system idle iowait irq softirq steal).
cpu_ticks() { awk '$1 == "cpu" {t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $9; exit}' /proc/stat; }

# tp_run KEY ADDR PID ARGS...: one loadgen run against a server; appends its
# rps, p99 and server CPU per request to the lists of KEY, and the load
# average at its start and the steal time during it to the lists of the
# row (KEY without the server). A failed run appends "-", so that the
# lists of the servers stay aligned run by run.
declare -A L_RPS L_P99 L_CPU L_LOAD L_STEAL
tp_run() {
	local key=$1 addr=$2 pid=$3 line t0 s0 t1 s1
	shift 3
	L_LOAD[${key#*|}]+="$(cut -d' ' -f1 /proc/loadavg) "
	read -r t0 s0 < <(cpu_ticks)
	line=$(run_loadgen -addr "$addr" -pid "$pid" "$@")
	read -r t1 s1 < <(cpu_ticks)
	L_STEAL[${key#*|}]+="$(awk -v t="$((t1 - t0))" -v s="$((s1 - s0))" 'BEGIN {printf "%.1f", (t > 0 ? 100 * s / t : 0)}') "
	log "  $key: $line"
	if [[ $line == FAILED ]]; then
		L_RPS[$key]+="- " L_P99[$key]+="- " L_CPU[$key]+="- "
		return 0
	fi
	L_RPS[$key]+="$(field rps "$line") "
	L_P99[$key]+="$(field p99 "$line") "
	L_CPU[$key]+="$(field cpu_us "$line") "
}

# median LIST: the median of the numbers in a space-separated list (a "-"
# is skipped), or "" when there are none.
median() {
	tr ' ' '\n' <<<"$1" | { grep -E '^[0-9.]+$' || true; } | sort -g | awk '{v[NR] = $1}
		END {if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# spread FORMAT LIST: "median (min..max)" of the numbers in LIST, each
# printed with the printf FORMAT, or "-" when there are none.
spread() {
	tr ' ' '\n' <<<"$2" | { grep -E '^[0-9.]+$' || true; } | sort -g | awk -v f="$1" '{v[NR] = $1}
		END {
			if (NR == 0) { print "-"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf f " (" f ".." f ")\n", m, v[1], v[NR]
		}'
}

# ratios A B: the run-by-run ratios of two aligned lists, A[i]/B[i], where
# both are numbers.
ratios() {
	paste -d' ' <(tr ' ' '\n' <<<"$1" | awk 'NF') <(tr ' ' '\n' <<<"$2" | awk 'NF') |
		awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $2 > 0 {printf "%.4f ", $1 / $2}'
}

# versus1 LIST: where 1.0 lies against the spread of the ratios in LIST:
# "below" (max < 1), "above" (min > 1), or "within" (min <= 1 <= max).
versus1() {
	tr ' ' '\n' <<<"$1" | { grep -E '^[0-9.]+$' || true; } | sort -g | awk '{v[NR] = $1}
		END {if (NR == 0) print "-"; else if (v[NR] < 1) print "below"; else if (v[1] > 1) print "above"; else print "within"}'
}

# tp_table TITLE ROWKEYS...: print the runs recorded under "SERVER|ROWKEY"
# as a markdown table, Redis first, each figure the median (min..max); a
# ROWKEY is "workload|c|P". The ratio columns are the chapter's CPU per
# request over Redis's, run by run: the figure that says how much work a
# request costs the server. The last two columns are the machine's load
# and steal time during the row's runs.
tp_table() {
	local title=$1 row w c p ch line rk r
	shift
	echo
	echo "### $title"
	echo
	local head="| workload | c | P | Redis rps | Redis p99 µs | Redis CPU µs/req |" rule="|---|---:|---:|---:|---:|---:|"
	for ch in "${RUN[@]}"; do
		head+=" $ch rps | $ch p99 µs | $ch CPU µs/req | $ch/Redis CPU | vs 1.0 |"
		rule+="---:|---:|---:|---:|---|"
	done
	head+=" load 1 min | steal % |"
	rule+="---:|---:|"
	echo "$head"
	echo "$rule"
	for row in "$@"; do
		IFS='|' read -r w c p _ <<<"$row"
		rk="Redis|$row"
		line="| $w | $c | $p | $(spread %.0f "${L_RPS[$rk]:-}") | $(round "$(median "${L_P99[$rk]:-}")") | $(spread %.2f "${L_CPU[$rk]:-}") |"
		for ch in "${RUN[@]}"; do
			local k="$ch|$row"
			r=$(ratios "${L_CPU[$k]:-}" "${L_CPU[$rk]:-}")
			line+=" $(spread %.0f "${L_RPS[$k]:-}") | $(round "$(median "${L_P99[$k]:-}")") |"
			line+=" $(spread %.2f "${L_CPU[$k]:-}") | $(spread %.2f "$r") | $(versus1 "$r") |"
		done
		line+=" $(spread %.1f "${L_LOAD[$row]:-}") | $(spread %.1f "${L_STEAL[$row]:-}") |"
		echo "$line"
	done
}

# start_all: Redis and every chapter, their addresses and pids in ADDRS and
# SPIDS by name, and PROTO the loadgen protocol of each.
declare -A ADDRS SPIDS PROTO
start_all() {
	start_redis
	ADDRS[Redis]=127.0.0.1:$SRV_PORT SPIDS[Redis]=$SRV_PID PROTO[Redis]=resp
	for ch in "${RUN[@]}"; do
		start_chapter "$ch"
		ADDRS[$ch]=127.0.0.1:$SRV_PORT SPIDS[$ch]=$SRV_PID PROTO[$ch]=$(proto_of "$ch")
	done
}

stop_all() {
	local s
	for s in Redis "${RUN[@]}"; do
		SRV_PID=${SPIDS[$s]}
		stop_server
	done
}

# n_for P: the requests of a run at depth P: pipelined runs are so fast that
# N would leave the CPU figure, counted in 10 ms ticks, too coarse.
n_for() { if (($1 > 1)); then echo "$N16"; else echo "$N"; fi; }

throughput() {
	local r shape c p w s rows=()
	start_all
	# Interleave the servers inside each repetition, so that background load
	# on a shared machine hits them alike. loadgen preloads the key space
	# before each get run, so gets hit on both sides.
	for ((r = 1; r <= REPEAT; r++)); do
		for shape in "${SHAPES[@]}"; do
			read -r c p <<<"$shape"
			for w in set get; do
				log "run $r/$REPEAT: $w c=$c P=$p"
				for s in Redis "${RUN[@]}"; do
					tp_run "$s|$w|$c|$p" "${ADDRS[$s]}" "${SPIDS[$s]}" -proto "${PROTO[$s]}" \
						-t "$w" -c "$c" -P "$p" -n "$(n_for "$p")" -r "$KEYS"
				done
			done
		done
	done
	stop_all
	for w in set get; do
		for shape in "${SHAPES[@]}"; do
			read -r c p <<<"$shape"
			rows+=("$w|$c|$p")
		done
	done
	tp_table "Throughput and server CPU (median (min..max) of $REPEAT interleaved runs of $N requests, $N16 when pipelined, $KEYS keys, 3-byte values, one client for all)" "${rows[@]}"
}

# bigkeys: gets over BIG_KEYS keys at 50 connections, depth 16, where a
# lookup's cache misses show.
bigkeys() {
	local r s
	start_all
	for s in Redis "${RUN[@]}"; do
		log "bigkeys: loading $BIG_KEYS keys into $s"
		run_loadgen -addr "${ADDRS[$s]}" -proto "${PROTO[$s]}" -t set -preload -n 1 -c 8 -r "$BIG_KEYS" >&2
	done
	for ((r = 1; r <= REPEAT; r++)); do
		log "bigkeys run $r/$REPEAT"
		for s in Redis "${RUN[@]}"; do
			tp_run "$s|get|50|16|big" "${ADDRS[$s]}" "${SPIDS[$s]}" -proto "${PROTO[$s]}" \
				-t get -preload=false -c 50 -P 16 -n "$N16" -r "$BIG_KEYS"
		done
	done
	stop_all
	tp_table "Gets over $BIG_KEYS keys (median (min..max) of $REPEAT interleaved runs of $N16 requests)" "get|50|16|big"
}

# --- memory per key ---------------------------------------------------------

memory() {
	local rows=() before after used0 used1 out ch n ok
	log "memory: Redis, $MEM_KEYS keys with a TTL"
	start_redis
	sleep 0.5
	before=$(rss_kb "$SRV_PID")
	used0=$(redis-cli -p "$SRV_PORT" info memory | tr -d '\r' | awk -F: '$1 == "used_memory" {print $2}')
	out=$(fill_resp "$SRV_PORT" 3600000 "$MEM_KEYS")
	log "$out"
	sleep 1
	after=$(rss_kb "$SRV_PID")
	used1=$(redis-cli -p "$SRV_PORT" info memory | tr -d '\r' | awk -F: '$1 == "used_memory" {print $2}')
	n=$(redis-cli -p "$SRV_PORT" info keyspace | tr -d '\r' | sed -n 's/.*keys=\([0-9]*\),expires=\([0-9]*\).*/\1 \2/p')
	n=${n/ /, }
	log "redis keyspace: keys, expires = $n"
	rows+=("| Redis | $n | $before | $after | $(awk -v a="$after" -v b="$before" -v n="$MEM_KEYS" 'BEGIN {printf "%.0f", (a - b) * 1024 / n}') | $(awk -v a="$used1" -v b="$used0" -v n="$MEM_KEYS" 'BEGIN {printf "%.0f", (a - b) / n}') |")
	stop_server

	for ch in "${RUN[@]}"; do
		log "memory: $ch, $MEM_KEYS keys with a TTL"
		start_chapter "$ch"
		sleep 0.5
		before=$(rss_kb "$SRV_PID")
		ok=0
		if [[ $(proto_of "$ch") == resp ]]; then
			out=$(fill_resp "$SRV_PORT" 3600000 "$MEM_KEYS" 2>&1) && ok=1
		else
			out=$(timeout "$CMD_TIMEOUT" "$TMP/bin/ttlfill" -addr "127.0.0.1:$SRV_PORT" -n "$MEM_KEYS" -ttl 3600000 2>&1) && ok=1
		fi
		if ((ok)); then
			log "$out"
			sleep 1
			after=$(rss_kb "$SRV_PID")
			rows+=("| $ch | $MEM_KEYS, $MEM_KEYS | $before | $after | $(awk -v a="$after" -v b="$before" -v n="$MEM_KEYS" 'BEGIN {printf "%.0f", (a - b) * 1024 / n}') | - |")
		else
			log "$out"
			rows+=("| $ch | failed: $(tail -n 1 <<<"$out") | | | | |")
		fi
		stop_server
	done

	echo
	echo "### Memory: $MEM_KEYS keys (set key:NNNNNN xxx, then pexpire 3600000)"
	echo
	echo "| server | keys, with TTL | VmRSS before KiB | VmRSS after KiB | RSS bytes/key | used_memory bytes/key |"
	echo "|---|---|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
}

# --- latency while keys expire ----------------------------------------------

expiry() {
	local r ttl label out line fill_s p99 mx ch
	# best: the row of the run with the lowest p99; worst: the highest max
	# seen in any run, since a rare stall is what this measurement is after.
	declare -A best worst
	# note KEY P99 MAX ROW: keep ROW if its p99 is the best so far, and MAX
	# if it is the worst.
	note() {
		if [[ -z ${best[$1]:-} ]] || (($2 < ${best[$1]%% *})); then
			best[$1]="$2 $4"
		fi
		if ((${worst[$1]:-0} < $3)); then
			worst[$1]=$3
		fi
	}
	# note_run SERVER FILL LINE: note the row of SERVER's run (at TTL
	# $ttl, $label) from loadgen's LINE, if the run measured anything.
	note_run() {
		p99=$(field p99 "$3")
		if [[ -n $p99 ]]; then
			mx=$(field max "$3")
			note "$1|$ttl" "$p99" "$mx" "| $1 | $label | $2 | $(field dur "$3") s | $(field rps "$3") | $(field p50 "$3") | $p99 | $mx |"
		fi
	}
	for ((r = 1; r <= REPEAT; r++)); do
		for ttl in 3600000 "$EXP_TTL"; do
			[[ $ttl == 3600000 ]] && label="TTL 1 h (nothing expires)" || label="TTL $EXP_TTL ms (all expire)"
			# Redis, loaded with the same commands through redis-cli --pipe
			# and read by the same client as the chapters.
			log "expiry run $r/$REPEAT: Redis, $label"
			start_redis
			SECONDS=0
			fill_resp "$SRV_PORT" "$ttl" "$EXP_KEYS" >&2
			fill_s=$SECONDS
			line=$(run_loadgen -proto resp -addr "127.0.0.1:$SRV_PORT" -t get -c 1 -P 1 -d "$EXP_DUR" \
				-r "$EXP_KEYS" -preload=false)
			log "  Redis: $line (fill ~${fill_s}s)"
			note_run Redis "~${fill_s} s" "$line"
			stop_server

			for ch in "${RUN[@]}"; do
				log "expiry run $r/$REPEAT: $ch, $label"
				start_chapter "$ch"
				if [[ $(proto_of "$ch") == resp ]]; then
					SECONDS=0
					fill_resp "$SRV_PORT" "$ttl" "$EXP_KEYS" >&2
					fill_s="~$SECONDS"
				elif out=$(timeout "$CMD_TIMEOUT" "$TMP/bin/ttlfill" -addr "127.0.0.1:$SRV_PORT" -n "$EXP_KEYS" -ttl "$ttl" 2>&1); then
					log "  $out"
					fill_s=$(field dur "$out")
				else
					log "  $ch: fill failed: $out"
					stop_server
					continue
				fi
				# Reads start as soon as the fill is done: the first keys
				# expire EXP_TTL after they were set, the last ones the fill
				# time later, all inside the EXP_DUR window.
				line=$(run_loadgen -proto "$(proto_of "$ch")" -addr "127.0.0.1:$SRV_PORT" -t get -c 1 -P 1 -d "$EXP_DUR" \
					-r "$EXP_KEYS" -preload=false)
				log "  $ch: $line"
				note_run "$ch" "${fill_s} s" "$line"
				stop_server
			done
		done
	done

	echo
	echo "### Gets while $EXP_KEYS keys expire (1 connection, depth 1; the run with the best p99 of $REPEAT, and the worst max of all $REPEAT)"
	echo
	echo "| server | keys | fill time | read time | get rps | p50 µs | p99 µs | max µs | worst max µs |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	for ch in Redis "${RUN[@]}"; do
		for ttl in 3600000 "$EXP_TTL"; do
			if [[ -n ${best[$ch|$ttl]:-} ]]; then
				echo "${best[$ch|$ttl]#* } ${worst[$ch|$ttl]} |"
			else
				echo "| $ch | TTL $ttl ms | failed | | | | | | |"
			fi
		done
	done
}

want_part throughput && throughput
want_part bigkeys && bigkeys
want_part memory && memory
want_part expiry && expiry
log "done"
