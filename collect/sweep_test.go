package collect

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/pacer"
)

func TestSettingEnv(t *testing.T) {
	env := []string{"HOME=/h", "GOGC=25", "GOMEMLIMIT=1GiB", "GODEBUG=madvdontneed=1"}
	tests := []struct {
		s     pacer.Setting
		label string
		want  []string
	}{
		{pacer.Setting{GOGC: 200}, "GOGC=200", []string{"HOME=/h", "GODEBUG=madvdontneed=1", "GOGC=200"}},
		{pacer.Setting{GOGC: pacer.Off, MemoryLimit: 48 << 20}, "GOGC=off GOMEMLIMIT=48MiB", []string{"HOME=/h", "GODEBUG=madvdontneed=1", "GOGC=off", "GOMEMLIMIT=48MiB"}},
		{pacer.Setting{GOGC: 0, MemoryLimit: 1<<30 + 512}, "GOGC=0 GOMEMLIMIT=1073742336", []string{"HOME=/h", "GODEBUG=madvdontneed=1", "GOGC=0", "GOMEMLIMIT=1073742336"}},
	}
	for _, tt := range tests {
		if got := SettingEnv(env, tt.s); !slices.Equal(got, tt.want) {
			t.Errorf("SettingEnv(%+v) = %q, want %q", tt.s, got, tt.want)
		}
		// Failures and progress name a setting as its environment does.
		if got := tt.s.String(); got != tt.label {
			t.Errorf("%+v.String() = %q, want %q", tt.s, got, tt.label)
		}
	}
	if !slices.Equal(env, []string{"HOME=/h", "GOGC=25", "GOMEMLIMIT=1GiB", "GODEBUG=madvdontneed=1"}) {
		t.Errorf("SettingEnv changed its argument: %q", env)
	}
}

func TestFailure(t *testing.T) {
	cause := errors.New("exit status 3: out of cheese")
	f := Failure{Setting: pacer.Setting{GOGC: 50, MemoryLimit: 64 << 20}, Run: 2, Err: cause}
	if got, want := f.Error(), "GOGC=50 GOMEMLIMIT=64MiB, run 2: exit status 3: out of cheese"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(f, cause) {
		t.Error("Failure does not unwrap to its cause")
	}
	f = Failure{Experiment: "nogreenteagc", Variant: "30 workers", Run: 1, Err: cause, noSetting: true}
	if got, want := f.Error(), "GOEXPERIMENT=nogreenteagc 30 workers, run 1: exit status 3: out of cheese"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestReplaceEnv(t *testing.T) {
	env := []string{"HOME=/h", "WORKERS=8", "WORKERS_MAX=9", "GOGC=50"}
	got := replaceEnv(env, []string{"WORKERS=30"})
	if want := []string{"HOME=/h", "WORKERS_MAX=9", "GOGC=50", "WORKERS=30"}; !slices.Equal(got, want) {
		t.Errorf("replaceEnv = %q, want %q", got, want)
	}
	if env[1] != "WORKERS=8" {
		t.Errorf("replaceEnv changed its argument: %q", env)
	}
}

func TestLastOutputLine(t *testing.T) {
	tests := []struct {
		name, stderr, want string
	}{
		{"message after gctrace", "gc 1 @0.001s 1%: 0.01+0.1+0.01 ms clock, 0.02+0/0.1/0.1+0.02 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\npanic: out of cheese\n\ngoroutine 1 [running]:\nmain.main()\n", "main.main()"},
		{"tail of a cut gc line", "open input.csv: no such file\n 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n", "open input.csv: no such file"},
		{"only gctrace", "gc 1 @0.001s 1%: 0.01+0.1+0.01 ms clock, 0.02+0/0.1/0.1+0.02 ms cpu, 4->4->0 MB, 4 MB goal, 2 P\nscvg: 0 MB released\n", ""},
		{"control characters", "bad input \x1b[2J\x1b]0;title\x07here\tnow\n", "bad input \uFFFD[2J\uFFFD]0;title\uFFFDhere now"},
		{"long line", strings.Repeat("é", 150) + "\n", strings.Repeat("é", maxLastLine/2) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "stderr")
			if err := os.WriteFile(path, []byte(tt.stderr), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := lastOutputLine(path); got != tt.want {
				t.Errorf("lastOutputLine = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLastTestLine(t *testing.T) {
	tests := []struct {
		name, stdout, want string
	}{
		{"failing benchmark", "goos: linux\nBenchmarkJoin-2\n--- FAIL: BenchmarkJoin-2\n    join_test.go:12: bad sum\nFAIL\nexit status 1\n", "join_test.go:12: bad sum"},
		{"nothing said", "FAIL\n", ""},
		{"long output", strings.Repeat("BenchmarkX-2 1 1 ns/op\n", 10000) + "panic: boom\n", "panic: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "stdout")
			if err := os.WriteFile(path, []byte(tt.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := lastTestLine(path); got != tt.want {
				t.Errorf("lastTestLine = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBenchSpec(t *testing.T) {
	tests := []struct {
		spec            BenchSpec
		target, pattern string
		runs            int
		fixed           bool
	}{
		{BenchSpec{Pkg: "./codec"}, "./codec", ".", DefaultBenchCount, false},
		{BenchSpec{Pkg: "./codec", Binary: "codec.test", Bench: "Encode", Count: 3, Benchtime: "500x"}, "codec.test", "Encode", 3, true},
		{BenchSpec{Pkg: "./codec", Benchtime: "2s"}, "./codec", ".", DefaultBenchCount, false},
	}
	for _, tt := range tests {
		s := tt.spec
		if s.Target() != tt.target || s.Pattern() != tt.pattern || s.Runs() != tt.runs || s.FixedWork() != tt.fixed {
			t.Errorf("%+v: target %q pattern %q runs %d fixed %v", s, s.Target(), s.Pattern(), s.Runs(), s.FixedWork())
		}
	}
}

func TestParseExperiments(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
		err  string
	}{
		{nil, nil, ""},
		{[]string{"greenteagc", "nogreenteagc"}, []string{"greenteagc", "nogreenteagc"}, ""},
		{[]string{"nogreenteagc+randomizedheapbase64"}, []string{"nogreenteagc,randomizedheapbase64"}, ""},
		{[]string{"GreenTea"}, nil, `GOEXPERIMENT "GreenTea": want lower-case experiment names`},
		{[]string{""}, nil, `GOEXPERIMENT "": want lower-case`},
		{[]string{"a+"}, nil, `GOEXPERIMENT "a+": want lower-case`},
		{[]string{"x;rm -rf"}, nil, `want lower-case`},
		{[]string{"greenteagc", "greenteagc"}, nil, `GOEXPERIMENT "greenteagc" given twice`},
		{[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, nil, "9 GOEXPERIMENT values: at most 8"},
	}
	for _, tt := range tests {
		got, err := ParseExperiments(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseExperiments(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseExperiments(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if env := experimentEnv([]string{"A=1", "GOEXPERIMENT=arenas", "B=2"}, "nogreenteagc"); !slices.Equal(env, []string{"A=1", "B=2", "GOEXPERIMENT=nogreenteagc"}) {
		t.Errorf("experimentEnv = %q", env)
	}
}
