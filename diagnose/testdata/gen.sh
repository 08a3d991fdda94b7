#!/bin/sh
# Records the fixtures of diagnose's rule tests from the programs beside
# them (heap/, trace/, minheap/, rss/); see README.md. The figures change
# from run to run and from machine to machine: after recording, run
# `go test ./diagnose -run TestRules` and adjust the figures the cases
# expect, keeping each firing case clearly over its threshold and each
# near miss under it. The logs under gctrace/ are copies and are not
# remade here.
#
# Usage: diagnose/testdata/gen.sh   (from anywhere; about a minute)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
td=diagnose/testdata
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/gcdoctor" ./cmd/gcdoctor

# Allocation profiles, with -trimpath so that they name the files by import
# path, as a build elsewhere would; the escape analysis and the source
# checks of the same package.
for c in largebuf iocopy append map concat conversion fmt largevalue boxing hotsite; do
	go run -trimpath ./$td/heap -case $c -o $td/heap/$c.pb.gz
	go run -trimpath ./$td/heap -case $c -fix -o $td/heap/$c-fix.pb.gz
done
go run -trimpath ./$td/heap -case lint -o $td/heap/lint.pb.gz
go build -o /dev/null -gcflags=./$td/heap=-m=2 ./$td/heap 2> $td/heap/escape.txt
"$tmp/gcdoctor" lint --json ./$td/heap > $td/heap/lint.json

# Execution traces on 2 Ps. The stw case turns asynchronous preemption off,
# as on Go < 1.14, so that nothing can stop its spinning goroutine. The
# assist case runs at GOGC=25 under gcdoctor run, which keeps its gctrace
# and environment (assist-run/) beside the trace; and once more on 1 P: the
# trace of another run, for the cross-checks.
go build -o "$tmp/trace" ./$td/trace
for c in explosion slices starved iobound; do
	GOMAXPROCS=2 "$tmp/trace" -case $c -o $td/trace/$c.trace
	GOMAXPROCS=2 "$tmp/trace" -case $c -fix -o $td/trace/$c-fix.trace
done
GODEBUG=asyncpreemptoff=1 GOMAXPROCS=2 "$tmp/trace" -case stw -o $td/trace/stw.trace
GODEBUG=asyncpreemptoff=1 GOMAXPROCS=2 "$tmp/trace" -case stw -fix -o $td/trace/stw-fix.trace
rm -rf $td/trace/assist-run
(cd "$tmp" && GOGC=25 GOMAXPROCS=2 ./gcdoctor run --out "$root/$td/trace/assist-run" -- \
	./trace -case assist -o "$root/$td/trace/assist.trace" > /dev/null 2>&1)
GOGC=25 GOMAXPROCS=2 "$tmp/trace" -case assist -fix -o $td/trace/assist-fix.trace
GOGC=25 GOMAXPROCS=1 "$tmp/trace" -case assist -o $td/trace/assist-1p.trace

# gctrace at the minimum heap, fast and slow.
go build -o "$tmp/minheap" ./$td/minheap
GODEBUG=gctrace=1 "$tmp/minheap" -every 1ms -for 3s 2> $td/minheap/fast.log
GODEBUG=gctrace=1 "$tmp/minheap" -every 4ms -for 5s 2> $td/minheap/slow.log

# Bundles of gcdoctor run: gctrace, RSS samples, meta.json.
go build -o "$tmp/rss" ./$td/rss
record() {
	out=$root/$td/rss/$1
	shift
	rm -rf "$out"
	(cd "$tmp" && ./gcdoctor run --out "$out" -- ./rss "$@" > /dev/null 2>&1)
}
record held -case held
record held-fix -case held -fix
record held-cpu -case held
record busy -case held -busy
record offheap -case offheap -mb 192
record offheap-48 -case offheap -mb 48

# Bundles of a steady live heap under a high GOGC, with and without a
# GOMEMLIMIT, and a GOGC=200 near miss.
go build -o "$tmp/headroom" ./$td/headroom
recordHeadroom() {
	out=$root/$td/headroom/$1
	shift
	rm -rf "$out"
	(cd "$tmp" && env "$@" ./gcdoctor run --out "$out" -- ./headroom > /dev/null 2>&1)
}
recordHeadroom gogc1000 GOGC=1000
recordHeadroom gogc200 GOGC=200
recordHeadroom gogc1000-limit GOGC=1000 GOMEMLIMIT=64MiB

# Every trace must stay small enough to keep in the repository.
for f in $td/trace/*.trace; do
	if [ "$(wc -c < "$f")" -ge 200000 ]; then
		echo "gen.sh: $f is 200 KB or more: record it again" >&2
		exit 1
	fi
done
