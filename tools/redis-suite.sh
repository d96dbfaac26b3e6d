#!/usr/bin/env bash
# redis-suite.sh: run test files of Redis's own suite against a server.
#
# usage: tools/redis-suite.sh REDIS_SRC PORT [FILE ...]
#
#   REDIS_SRC  a copy of Redis's source tree at tag 7.0.15, the Redis these
#              chapters answer like; only its tests/ folder and runtest are
#              used, and they are copied first, so the tree is left as it is:
#                git clone --depth 1 --branch 7.0.15 https://github.com/redis/redis /tmp/redis-7.0.15
#   PORT       where the server already listens for RESP, on 127.0.0.1
#   FILE       test files, as runtest's --single names them (default: the
#              thirteen that test the string, bit, key, hash, sorted-set and
#              list commands, transactions, SCAN and the protocol)
#
# The suite runs in its external mode (--host/--port), which tests a server
# it did not start: one client, one database (--singledb), each file to its
# end even past a failure (--durable), and without the tests that need what
# only a real Redis has (DEBUG, replication, a local process, ...: the
# needs:* tags below). A server without Redis's internal encodings needs
# three changes to the copy, none to what a test asserts about a reply:
# assert_encoding returns without checking, a CONFIG SET or GET of an
# encoding's setting (zset-max-..., list-compress-depth...) may fail, and so may
# the FUNCTION FLUSH the harness sends between files.
#
# It prints, per file, the tests passed and failed, then the failures by
# name with the first line of their message. Real redis-server 7.0.15
# passes 916 tests of the thirteen default files this way. Needs tclsh
# (apt-get install tcl) and perl. The logs stay in $OUT (default: a new
# temporary folder, named at the end).
set -euo pipefail

usage() {
	sed -n '4,13s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
[ $# -ge 2 ] || usage
src=$1 port=$2
shift 2
case $port in '' | *[!0-9]*) echo "redis-suite.sh: PORT must be a number, not '$port'" >&2; usage ;; esac
[ -x "$src/runtest" ] && [ -d "$src/tests/unit" ] ||
	{ echo "redis-suite.sh: $src has no runtest and tests/unit: not a Redis source tree" >&2; exit 2; }
command -v tclsh >/dev/null || { echo "redis-suite.sh: needs tclsh (apt-get install -y tcl)" >&2; exit 2; }
command -v perl >/dev/null || { echo "redis-suite.sh: needs perl" >&2; exit 2; }
if [ -f "$src/src/version.h" ] && ! grep -q '"7\.0\.15"' "$src/src/version.h"; then
	echo "redis-suite.sh: note: $src is not Redis 7.0.15 ($(grep -o '"[0-9.]*"' "$src/src/version.h")); the figures in the READMEs are 7.0.15's" >&2
fi
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(unit/type/incr unit/type/string unit/bitops unit/type/hash unit/type/zset
	unit/type/list unit/keyspace unit/scan unit/multi unit/expire unit/info-command unit/protocol unit/quit)

OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
rm -rf "$OUT/suite"
mkdir "$OUT/suite"
cp -R "$src/runtest" "$src/tests" "$OUT/suite/"
cd "$OUT/suite"

# The three changes, each on the copy.
perl -0pi -e 's/^(\s*)r function flush$/$1catch {r function flush}/m' tests/support/server.tcl
perl -0pi -e 's/^(proc assert_encoding \{enc key\} \{\n)/$1    return\n/m' tests/support/test.tcl
grep -q 'proc assert_encoding {enc key} {' tests/support/test.tcl ||
	{ echo "redis-suite.sh: tests/support/test.tcl has no assert_encoding to change: not the suite of 7.0" >&2; exit 2; }
find tests/unit -name '*.tcl' -exec perl -pi -e '
	# A whole command on one line (its brackets and braces balanced) that
	# sets or reads an encoding setting is wrapped in catch.
	if (/^(\s*)((?:set \S+ \[lindex \[)?r config (?:set|get) (?:zset|hash|set|list|stream)-(?:max|compress)-\S+.*)$/
		&& tr/[// == tr/]// && tr/{// == tr/}//) {
		$_ = "$1catch {$2}\n";
	}' {} +

for f in "${files[@]}"; do
	log="$OUT/$(echo "$f" | tr / _).log"
	TERM=dumb timeout 600 ./runtest --host 127.0.0.1 --port "$port" --single "$f" --clients 1 --durable --singledb \
		--timeout 60 --tags -needs:debug --tags -needs:repl --tags -needs:config-maxmemory \
		--tags -needs:config-resetstat --tags -needs:reset --tags -needs:save --tags -needs:pfdebug \
		--tags -needs:latency --tags -needs:local-process >"$log" 2>&1 || true
done

# The summary: runtest prints a line "[ok]: NAME (T ms)" for each test that
# passes and "[err]: NAME in FILE" followed by its message for each that
# fails ("[exception]: ..." where the harness itself stopped).
total_ok=0 total_err=0
for f in "${files[@]}"; do
	log="$OUT/$(echo "$f" | tr / _).log"
	ok=$(grep -c '^\[ok\]:' "$log" || true)
	err=$(grep -c '^\[\(err\|exception\)\]:' "$log" || true)
	printf '%-24s passed %4d  failed %4d\n' "$f" "$ok" "$err"
	total_ok=$((total_ok + ok)) total_err=$((total_err + err))
done
printf '%-24s passed %4d  failed %4d\n' "all" "$total_ok" "$total_err"
for f in "${files[@]}"; do
	log="$OUT/$(echo "$f" | tr / _).log"
	# The message: its first line, unless the second holds it whole (the
	# harness cuts the start off some first lines).
	awk -v file="$f" '
		want == 2 { print "    " (index($0, first) ? $0 : first); want = 0; next }
		want == 1 { first = $0; want = 2; next }
		/^\[(err|exception)\]:/ { sub(/ in tests\/.*$/, ""); print file ": " $0; want = 1 }
		END { if (want == 2) print "    " first }
	' "$log"
done
echo "logs: $OUT"
