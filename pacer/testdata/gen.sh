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
# below; none means all of them. OUT=dir records somewhere else than real/.
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
benches='
json-marshal   encoding/json ^BenchmarkCodeMarshal$   500  48MiB
json-unmarshal encoding/json ^BenchmarkCodeUnmarshal$ 150  24MiB
parser         go/parser     ^BenchmarkParse$         800  12MiB
png-encode     image/png     ^BenchmarkEncodeNRGBA$   400  16MiB
regexp-compile regexp        ^BenchmarkCompile$/^Hard$ 6000 12MiB
types-check    go/types      ^BenchmarkCheck$/^http$/^funcbodies$/^info$ 30 160MiB
'

echo "$benches" | while read -r name pkg bench n limit; do
	[ -n "$name" ] || continue
	case $only in
	"  " | *" $name "*) ;;
	*) continue ;;
	esac
	exe=$bin/$(echo "$pkg" | tr / _).test
	[ -x "$exe" ] || go test -c -o "$exe" "$pkg"
	for setting in 50 100 200 400 800 "off-$limit"; do
		rep=1
		while [ "$rep" -le "$reps" ]; do
			case $setting in
			off-*) gogc=off mem=${setting#off-} ;;
			*) gogc=$setting mem=off ;;
			esac
			f=$out/$name.gogc$setting.r$rep.log
			# The package directory holds the benchmark's testdata.
			(cd "$goroot/src/$pkg" &&
				GOGC=$gogc GOMEMLIMIT=$mem GODEBUG=gctrace=1 "$exe" \
					-test.run='^$' -test.bench="$bench" -test.benchtime="${n}x" \
					-test.benchmem >"$f" 2>&1)
			echo "$f: $(grep -c '^gc ' "$f") cycles"
			rep=$((rep + 1))
		done
	done
done
