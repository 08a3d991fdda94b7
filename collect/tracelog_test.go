package collect

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// gcLine returns a Go 1.26 cycle line numbered num.
func gcLine(num int) string {
	return fmt.Sprintf("gc %d @0.%03ds 3%%: 0.1+1+0.01 ms clock, 0.2+0.1/0.5/0+0.02 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P", num, num)
}

func TestLineWriter(t *testing.T) {
	long := strings.Repeat("x", maxPending+10)
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"whole lines", []string{"a\nb\n"}, []string{"a\n", "b\n"}},
		{"lines across writes", []string{"a", "b\nc", "\n"}, []string{"ab\n", "c\n"}},
		{"last line without an end", []string{"a\nb"}, []string{"a\n", "b"}},
		{"CRLF kept", []string{"a\r\n"}, []string{"a\r\n"}},
		{"a line too long to hold is cut", []string{long[:100], long[100:], "\n"}, []string{long[:maxPending] + "\n", "xxxxxxxxxx\n"}},
	}
	for _, tt := range tests {
		var got []string
		w := &lineWriter{emit: func(line []byte) { got = append(got, string(line)) }}
		for _, s := range tt.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Errorf("%s: Write = %d, %v", tt.name, n, err)
			}
		}
		w.flush()
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: lines %.200q, want %.200q", tt.name, got, tt.want)
		}
	}
}

func TestTraceFilter(t *testing.T) {
	// A benchmark line that lands inside a gctrace line, as it does when a
	// test binary's standard output and error share go test's.
	head, rest := gcLine(7)[:30], gcLine(7)[30:]
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"program output dropped", []string{"PASS", "ok  \texample.com/b\t1.0s"}, nil},
		{"gctrace lines kept", []string{"BenchmarkAlloc-2  100  5 ns/op", gcLine(1), "GC forced", "scav 0 KiB work (bg), 8 KiB work (eager), 4 KiB now, 99% util", "pacer: assist ratio=+1.0e+000"},
			[]string{gcLine(1), "GC forced", "scav 0 KiB work (bg), 8 KiB work (eager), 4 KiB now, 99% util", "pacer: assist ratio=+1.0e+000"}},
		{"cut line kept with its rest", []string{head + "BenchmarkAlloc-2  100  5 ns/op", rest, "PASS"}, []string{head + "BenchmarkAlloc-2  100  5 ns/op", rest}},
		{"output before a cycle", []string{"ok:" + gcLine(2)}, []string{"ok:" + gcLine(2)}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		f := &traceFilter{log: &traceLog{w: &buf}}
		for _, l := range tt.in {
			f.line([]byte(l + "\n"))
		}
		var want string
		for _, l := range tt.want {
			want += l + "\n"
		}
		if buf.String() != want {
			t.Errorf("%s: logged\n%s\nwant\n%s", tt.name, buf.String(), want)
		}
	}
}

func TestReplayFilter(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []string
		dropped int
	}{
		{"replayed block", []string{"# runtime", gcLine(1), gcLine(2), "scav 0 KiB work (bg), 8 KiB work (eager), 4 KiB now, 99% util", gcLine(3), "# os", gcLine(1)}, nil, 5},
		{"the go command's own line ends the block", []string{gcLine(1), "# runtime", gcLine(1), gcLine(2), gcLine(2), gcLine(3)}, []string{gcLine(1), gcLine(2), gcLine(3)}, 2},
		{"compiler errors kept", []string{"# example.com/m", "./m.go:3:2: undefined: x", gcLine(4)}, []string{"# example.com/m", "./m.go:3:2: undefined: x", gcLine(4)}, 0},
		{"program output kept", []string{"starting", gcLine(1), "# not a header", "done"}, []string{"starting", gcLine(1), "# not a header", "done"}, 0},
		{"header at the end kept", []string{gcLine(1), "# example.com/m"}, []string{gcLine(1), "# example.com/m"}, 0},
		{"a cut line is not a replay", []string{"# example.com/m", gcLine(1)[:20]}, []string{"# example.com/m", gcLine(1)[:20]}, 0},
	}
	for _, tt := range tests {
		var got []string
		f := &replayFilter{emit: func(line []byte) { got = append(got, strings.TrimSuffix(string(line), "\n")) }}
		for _, l := range tt.in {
			f.line([]byte(l + "\n"))
		}
		f.flush()
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || f.dropped != tt.dropped {
			t.Errorf("%s: kept %q, dropped %d; want %q, %d", tt.name, got, f.dropped, tt.want, tt.dropped)
		}
	}
}
