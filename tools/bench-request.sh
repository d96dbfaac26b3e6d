#!/usr/bin/env bash
# bench-request.sh: the request path alone, chapter 14 next to chapter 18.
#
# usage: tools/bench-request.sh [OUTDIR]
#
# Runs BenchmarkPipeline (server/pipeline_bench_test.go in each chapter: a
# batch of 16 pipelined requests in, the replies out, no sockets) COUNT
# times in each chapter, writes the raw results to OUTDIR/pipeline-chNN.txt
# (default: a scratch directory), and prints benchstat's comparison of the
# figures per request: cpu-sec/req (the CPU time of the benchmark's thread),
# allocs/req and sec/req (wall-clock). docs/bench/ holds the results that
# docs/performance.md shows; to see what a change does, compare against
# them:
#
#   tools/bench-request.sh /tmp/new
#   go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da \
#       docs/bench/pipeline-ch18.txt /tmp/new/pipeline-ch18.txt
#
# Environment: COUNT [10] runs of each benchmark; CHAPTERS
# ["ch14_threadpool ch18_performance"] the chapters, the first one the base.
set -euo pipefail

COUNT=${COUNT:-10}
read -r -a CHAPTERS <<<"${CHAPTERS:-ch14_threadpool ch18_performance}"
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${1:-$(mktemp -d /tmp/bench-request.XXXXXX)}
mkdir -p "$OUT"

args=()
for ch in "${CHAPTERS[@]}"; do
	file="$OUT/pipeline-${ch%%_*}.txt"
	echo "BenchmarkPipeline in $ch, $COUNT runs, into $file" >&2
	go test -run '^$' -bench '^BenchmarkPipeline$' -count "$COUNT" "example.com/byor/$ch/server" >"$file"
	args+=("${ch%%_*}=$file")
done
# The chapters' packages differ, so benchstat is told to ignore the package
# when it pairs the benchmarks.
go run "$BENCHSTAT" -ignore pkg -filter '.unit:(cpu-sec/req OR allocs/req OR sec/req)' "${args[@]}"
