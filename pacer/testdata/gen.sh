#!/bin/sh
# gen.sh re-records the gctrace logs in real/ that accuracy_test.go reads.
#
# Each benchmark runs a fixed number of iterations (-test.benchtime=Nx), so
# every run does the same work and GC counts are comparable across settings.
# The test binary is compiled once and run directly, so the log holds one
# process and none of the go command's own cycles.
#
# Usage: sh gen.sh [reps [name...]]   (from any directory; about six
# minutes on an idle 2-CPU machine). Names pick benchmarks from the list
# below; none means all of them. OUT=dir records somewhere else than real/;
# HELDOUT=1 records the held-out workloads into heldout/ (a minute).
#
# Record on an otherwise idle machine: work sharing the CPUs slows the
# GC's marking more than the program and moves the pacer's triggers, so
# the logs would describe a different pacer (see contended/ and
# docs/accuracy.md). TestRecordingsQuiet checks the result.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/real}
reps=${1:-3}
[ $# -gt 0 ] && shift
only=" $* "
goroot=$(go env GOROOT)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
mkdir -p "$out"
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk "BEGIN { exit !($load > 0.5) }"; then
	echo "gen.sh: load average $load: other work is running, and the logs will show a contended pacer" >&2
fi

# name package benchmark iterations memory-limit-for-GOGC=off
benches=${BENCHES:-'
json-marshal   encoding/json ^BenchmarkCodeMarshal$   500  48MiB
json-unmarshal encoding/json ^BenchmarkCodeUnmarshal$ 150  24MiB
parser         go/parser     ^BenchmarkParse$         800  12MiB
png-encode     image/png     ^BenchmarkEncodeNRGBA$   400  16MiB
regexp-compile regexp        ^BenchmarkCompile$/^Hard$ 6000 12MiB
types-check    go/types      ^BenchmarkCheck$/^http$/^funcbodies$/^info$ 30 160MiB
'}
# The held-out workloads, recorded into heldout/ with HELDOUT=1: programs
# of this repository that no parameter of the model was fitted to.
if [ -n "${HELDOUT:-}" ]; then
	benches='
cache ./testdata/cache ^BenchmarkCache$ 500000 200MiB
'
	out=${OUT:-$here/heldout}
	mkdir -p "$out"
fi

echo "$benches" | while read -r name pkg bench n limit; do
	[ -n "$name" ] || continue
	case $only in
	"  " | *" $name "*) ;;
	*) continue ;;
	esac
	exe=$bin/$(echo "$pkg" | tr ./ __).test
	dir=$goroot/src/$pkg
	case $pkg in
	./*) dir=$(cd "$here/.." && cd "$pkg" && pwd) ;;
	esac
	[ -x "$exe" ] || (cd "$dir" && go test -c -o "$exe" .)
	for setting in 50 100 200 400 800 "off-$limit"; do
		rep=1
		while [ "$rep" -le "$reps" ]; do
			case $setting in
			off-*) gogc=off mem=${setting#off-} ;;
			*) gogc=$setting mem=off ;;
			esac
			f=$out/$name.gogc$setting.r$rep.log
			# The package directory holds the benchmark's testdata.
			(cd "$dir" &&
				GOGC=$gogc GOMEMLIMIT=$mem GODEBUG=gctrace=1 "$exe" \
					-test.run='^$' -test.bench="$bench" -test.benchtime="${n}x" \
					-test.benchmem >"$f" 2>&1)
			echo "$f: $(grep -c '^gc ' "$f") cycles"
			rep=$((rep + 1))
		done
	done
done
