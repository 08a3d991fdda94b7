#!/bin/sh
# Regenerates the samples under this directory: each is what gcdoctor attach
# stored (its live.csv and the *-start, *-end and *-during files; the
# profiles and the trace are left out) from live/testdata/server, a program
# that keeps a live heap and allocates garbage at a steady rate, run with the
# environment and flags below. Run from the repository's root.
set -e
go build -o /tmp/live-server ./live/testdata/server
go build -o /tmp/gcdoctor ./cmd/gcdoctor
out=diagnose/testdata/live
capture() {
	name=$1; shift
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	env $envs /tmp/live-server "$@" > /tmp/live-server.out &
	pid=$!
	sleep 2
	addr=$(awk '/^addr/{print $2}' /tmp/live-server.out)
	rm -rf /tmp/live-capture
	/tmp/gcdoctor attach --seconds 3 --out /tmp/live-capture "$addr" > /dev/null || true
	kill $pid
	rm -rf "$out/$name" && mkdir -p "$out/$name"
	cp /tmp/live-capture/live.csv /tmp/live-capture/*-start.* /tmp/live-capture/*-end.* "$out/$name/"
	cp /tmp/live-capture/*-during.* "$out/$name/" 2>/dev/null || true
}
capture churn GOGC=100 -- -metrics -agent -pprof -live 8 -rate 400
capture gccpu GOGC=25 -- -metrics -agent -pprof -live 32 -rate 400
capture spiral GOGC=off GOMEMLIMIT=48MiB -- -metrics -agent -pprof -live 40 -rate 300
capture stw GODEBUG=asyncpreemptoff=1 -- -metrics -pprof -spin 60 -rate 50
capture rss GOGC=100 -- -metrics -pprof -offheap 200 -rate 50
capture minheap GOGC=400 -- -pprof -metrics -live 0 -rate 100
capture healthy GOGC=100 -- -metrics -agent -pprof -live 16 -rate 50
