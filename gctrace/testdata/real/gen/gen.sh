#!/usr/bin/env bash
# Regenerates the real gctrace fixtures in gctrace/testdata/real/.
#
# Every log is the unedited stderr of a real Go runtime, only cut to a
# maximum number of whole lines with head. Old releases are fetched by the
# go command as toolchain modules (GOTOOLCHAIN=go1.N), so this needs the
# module proxy the first time it runs.
#
# Usage: gen.sh [program|idle|toolchain|greentea]...   (default: all four groups)
#        GEN_ONLY=go1.13-scav.log gen.sh program   (remake one log)
#
#   program    gen/main.go built with each release: *-alloc, *-pacer, *-scav
#   idle       gen/main.go idling past the 2-minute periodic GC (~3.5 min)
#   toolchain  go vet std and three standard library benchmarks, Go 1.26
#   greentea   gen/main.go and a json benchmark at GODEBUG=gctrace=2, Go
#              1.26 built with and without the Green Tea collector
#
# Timings, heap sizes and counters differ from run to run; the shape of the
# output does not.
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/main.go" "$work/main.go"

# Old toolchains reject GOFLAGS they do not know (e.g. -buildvcs=false) and
# 1.13+ also read the user's go env file, so both are switched off here.
# (Do not set GO111MODULE=off: it also disables GOTOOLCHAIN switching.)
# The build runs outside any module and names the file, which every release
# accepts; naming the file also overrides its "ignore" build constraint.
gobuild() { # version
	local v=$1
	local tc=$v
	[ "$v" = go1.26 ] && tc=local
	(cd "$work" && env -u GOFLAGS GOENV=off GOTOOLCHAIN="$tc" \
		go build -o "gen-$v" main.go) || { echo "build with $v failed" >&2; return 1; }
	# Make sure the switch to the old release really happened.
	(cd "$work" && env -u GOFLAGS GOENV=off GOTOOLCHAIN="$tc" go version) >&2
}

# run NAME VERSION GODEBUG CUT ARGS...
# CUT is N (keep the first N lines) or -N (keep the last N lines).
run() {
	local name=$1 v=$2 dbg=$3 cut=$4
	shift 4
	[ -z "${GEN_ONLY:-}" ] || [ "$GEN_ONLY" = "$name" ] || return 0
	[ -x "$work/gen-$v" ] || gobuild "$v" || return 1
	echo "== $name: GODEBUG=$dbg gen $*" >&2
	case $cut in
	-*) GODEBUG=$dbg "$work/gen-$v" "$@" 2>&1 | tail -n "${cut#-}" >"$out/$name" ;;
	*) GODEBUG=$dbg "$work/gen-$v" "$@" 2>&1 | head -n "$cut" >"$out/$name" ;;
	esac
}

program() {
	# One plain log per format era (pre-1.5 STW collector, the 1.5 five-phase
	# line, the three-phase line, the 1.18+ stacks/globals fields).
	for v in go1.2.2 go1.3.3 go1.4.3 go1.5.4 go1.6 go1.8 go1.9 go1.12 go1.13 go1.17 go1.19 go1.21.0 go1.26; do
		run "${v%.0}-alloc.log" "$v" gctrace=1 200 alloc
	done
	# Go 1.2-1.4 default to GOMAXPROCS=1; with 2 the parallel mark helpers
	# show up in gcN(P) and in the handoff/steal/yields counters.
	GOMAXPROCS=2 run go1.4.3-gomaxprocs2.log go1.4.3 gctrace=1 200 alloc
	# Pacer trace: 1.5 (assist ratio as float), 1.9-1.17 (H_m_prev design
	# document line), 1.18+ ("pacer: N% CPU ..." line).
	for v in go1.5.4 go1.9 go1.12 go1.17 go1.21.0 go1.26; do
		run "${v%.0}-pacer.log" "$v" gctrace=1,gcpacertrace=1 200 alloc
	done
	# Scavenger: up to 1.13 its lines come with gctrace=1 (scvgN: / scvg: /
	# forced scvg:); from 1.14 on they need scavtrace=1 (scav ...).
	for v in go1.4.3 go1.9 go1.12; do
		run "${v%.0}-scav.log" "$v" gctrace=1 200 scav
	done
	# The 1.13 background scavenger prints on every wake-up (~350 lines for
	# this run); keep the end, where the "forced scvg:" lines are.
	run go1.13-scav.log go1.13 gctrace=1 -200 scav
	for v in go1.17 go1.19 go1.21.0 go1.26; do
		run "${v%.0}-scav.log" "$v" gctrace=1,scavtrace=1 200 scav
	done
}

idle() {
	# The periodic GC fires after 2 minutes without a collection: the
	# "scvgN: GC forced" line (1.2-1.3) and the "GC forced" line (1.4+).
	for v in go1.3.3 go1.8 go1.26; do
		[ -x "$work/gen-$v" ] || gobuild "$v" || return 1
	done
	run go1.3.3-idle.log go1.3.3 gctrace=1 200 idle 200 &
	run go1.8-idle.log go1.8 gctrace=1 200 idle 190 &
	run go1.26-idle.log go1.26 gctrace=1 200 idle 190 &
	wait
}

toolchain() {
	# Real programs nobody here wrote, with the installed Go (1.26): the go
	# command itself, the compiler and vet processes, test binaries. All
	# write to the same stderr, so gc counters restart within one stream.
	# Run outside any module so the standard library is all that is built.
	cd "$work" || return 1
	echo "== toolchain logs" >&2
	GODEBUG=gctrace=1 go vet std 2>&1 | head -400 >"$out/toolchain-go-vet-std.log"
	GODEBUG=gctrace=1 go test -run='^$' -bench=. -benchtime=200ms encoding/json 2>&1 | head -300 >"$out/bench-encoding-json.log"
	GODEBUG=gctrace=1 go test -run='^$' -bench=. -benchtime=200ms compress/flate 2>&1 | head -300 >"$out/bench-compress-flate.log"
	GODEBUG=gctrace=1 go test -run='^$' -bench=. -benchtime=200ms go/parser 2>&1 | head -300 >"$out/bench-go-parser.log"
}

greentea() {
	# GODEBUG=gctrace=2 adds "scan:" lines after each cycle: how many
	# objects and spans the mark scanned, in total and per size class.
	# Green Tea (the default from Go 1.26) splits them into objects
	# scanned one at a time, span by span (sparse) and span by span with
	# the vector kernel (dense, on amd64 with AVX-512); without it there
	# is one count. GOEXPERIMENT is a build-time setting, so each collector
	# needs its own build.
	[ -z "${GEN_ONLY:-}" ] || case $GEN_ONLY in go1.26-*tea*) ;; *) return 0 ;; esac
	(cd "$work" && env -u GOFLAGS GOENV=off GOTOOLCHAIN=local GOEXPERIMENT=nogreenteagc \
		go build -o gen-go1.26-nogreentea main.go) || return 1
	[ -x "$work/gen-go1.26" ] || gobuild go1.26 || return 1
	echo "== Green Tea logs" >&2
	GODEBUG=gctrace=2 "$work/gen-go1.26" alloc 2>&1 | head -n 600 >"$out/go1.26-greentea-alloc.log"
	GODEBUG=gctrace=2 "$work/gen-go1.26-nogreentea" alloc 2>&1 | head -n 600 >"$out/go1.26-nogreentea-alloc.log"
	# A test binary of each build, so that the scan lines of a real
	# program's cycles come with a benchmark's output.
	(cd "$work" && go test -c -o json-greentea.test encoding/json &&
		GOEXPERIMENT=nogreenteagc go test -c -o json-nogreentea.test encoding/json) || return 1
	(cd "$(go env GOROOT)/src/encoding/json" &&
		GODEBUG=gctrace=2 "$work/json-greentea.test" -test.run='^$' -test.bench='^BenchmarkCodeUnmarshal$' -test.benchtime=20x 2>&1 | head -n 600 >"$out/go1.26-greentea-json.log" &&
		GODEBUG=gctrace=2 "$work/json-nogreentea.test" -test.run='^$' -test.bench='^BenchmarkCodeUnmarshal$' -test.benchtime=20x 2>&1 | head -n 600 >"$out/go1.26-nogreentea-json.log")
}

groups=${*:-program idle toolchain greentea}
for g in $groups; do
	case $g in
	program | idle | toolchain | greentea) "$g" ;;
	*)
		echo "unknown group $g" >&2
		exit 2
		;;
	esac
done
