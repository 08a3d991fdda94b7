#!/bin/sh
# Records the bundles of the host rules' tests (see ../README.md, host/):
# runs of gcdoctor run on a quiet host and beside CPU hogs, which sample
# the machine's CPU contention into host.csv. The hogs are bounded in
# time (timeout) and stopped by their IDs when the script ends. The
# quiet runs wait, at most 5 minutes, for the machine's CPU pressure to
# fall; on a shared machine they may still find it busy, and say so.
#
# Usage: diagnose/testdata/host/gen.sh [batch|gobuild|pauses|explosion|slices|starved|quiet]...
#        (from anywhere; all of them by default, a few minutes)
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
td=$root/diagnose/testdata
cd "$root"
tmp=$(mktemp -d)
hogs=""
cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/gcdoctor" ./cmd/gcdoctor
go build -o "$tmp/host" ./diagnose/testdata/host
go build -o "$tmp/trace" ./diagnose/testdata/trace

# hog starts 4 busy loops, each stopped after $1 seconds: on 2 CPUs a
# program beside them waits for a CPU most of the time.
hog() {
	for i in 1 2 3 4; do
		timeout "$1" sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
}
unhog() {
	for p in $hogs; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	hogs=""
}
# quiet waits until the CPU pressure of the last 10 s is under 10%.
quiet() {
	i=0
	while [ $i -lt 60 ]; do
		p=$(sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null || echo 0)
		if [ "${p%%.*}" -lt 10 ]; then return 0; fi
		sleep 5
		i=$((i + 1))
	done
	echo "gen.sh: the machine is still busy (CPU pressure ${p}%): recording anyway" >&2
}
record() {
	out=$td/host/$1
	shift
	rm -rf "$out"
	(cd "$tmp" && ./gcdoctor run --out "$out" -- "$@" > /dev/null 2>&1) || true
}

cases=${*:-batch gobuild pauses explosion slices starved quiet}
for c in $cases; do
	case $c in
	batch)
		# Grows a tree to ~400 MB in 20 s and exits 0, as a compiler does.
		record batch ./host -case batch -for 20s ;;
	gobuild)
		# The go command building a small module from an empty cache, so
		# that its compilers run (and write their gctrace), beside hogs.
		hog 300
		(cd "$td/host/mod" && rm -rf "$td/host/gobuild" &&
			GOCACHE=$tmp/gocache timeout 300 "$tmp/gcdoctor" run --out "$td/host/gobuild" -- \
				go build -o "$tmp/hello" . > /dev/null 2>&1) || true
		unhog ;;
	pauses)
		hog 30
		GOMAXPROCS=2 record pauses-hogs ./host -case pauses -for 10s
		unhog ;;
	explosion | slices | starved)
		# A goroutine per item (short items, or items of a few time
		# slices), or a pool of 64 CPU-bound workers, beside hogs, the
		# trace kept in the bundle.
		hog 30
		rm -rf "$td/host/$c-hogs"
		mkdir -p "$tmp/$c"
		(cd "$tmp" && GOMAXPROCS=2 ./gcdoctor run --out "$td/host/$c-hogs" -- \
			./trace -case $c -o "$tmp/$c/trace.out" > /dev/null 2>&1) || true
		cp "$tmp/$c/trace.out" "$td/host/$c-hogs/trace.out"
		unhog ;;
	quiet)
		quiet
		GOMAXPROCS=2 record pauses-quiet ./host -case pauses -for 10s
		quiet
		rm -rf "$td/host/stw-quiet"
		mkdir -p "$tmp/stw"
		(cd "$tmp" && GODEBUG=asyncpreemptoff=1 GOMAXPROCS=2 ./gcdoctor run --out "$td/host/stw-quiet" -- \
			./trace -case stw -o "$tmp/stw/trace.out" > /dev/null 2>&1) || true
		cp "$tmp/stw/trace.out" "$td/host/stw-quiet/trace.out" ;;
	*)
		echo "gen.sh: unknown case $c" >&2
		exit 2 ;;
	esac
done
