package workers

import (
	"slices"
	"strings"
	"testing"

	"github.com/gcdoctor/gcdoctor/compare"
	"github.com/gcdoctor/gcdoctor/pacer"
)

func TestSizes(t *testing.T) {
	tests := []struct {
		rec, current int
		want         []int
	}{
		{30, 256, []int{30, 15, 60, 256}},
		{30, 0, []int{30, 15, 60}},
		{30, 60, []int{30, 15, 60}},
		{30, 30, []int{30, 15, 60}},
		{1, 0, []int{1, 2}},
		{2, 1, []int{2, 1, 4}},
		{0, 0, []int{1, 2}},
		{8000, 0, []int{8000, 4000, 10000}},
	}
	for _, tt := range tests {
		if got := Sizes(tt.rec, tt.current); !slices.Equal(got, tt.want) {
			t.Errorf("Sizes(%d, %d) = %v, want %v", tt.rec, tt.current, got, tt.want)
		}
	}
}

func TestVerifySpecCheck(t *testing.T) {
	tests := []struct {
		name string
		spec VerifySpec
		want string // "" for none
	}{
		{"env", VerifySpec{Command: []string{"./prog"}, SizeEnv: "WORKERS", Count: 6}, ""},
		{"argument", VerifySpec{Command: []string{"./prog", "-workers={N}"}, Count: 1}, ""},
		{"no count", VerifySpec{Command: []string{"./prog"}, SizeEnv: "W"}, "--count must be between 1 and 100"},
		{"no program", VerifySpec{SizeEnv: "WORKERS"}, "no program to run"},
		{"not told", VerifySpec{Command: []string{"./prog", "-workers", "8"}}, "not told its worker count"},
		{"{N} in the program's name only", VerifySpec{Command: []string{"./{N}"}}, "not told its worker count"},
		{"bad env name", VerifySpec{Command: []string{"./prog"}, SizeEnv: "A=B"}, `--size-env "A=B" is not`},
		{"count", VerifySpec{Command: []string{"./prog"}, SizeEnv: "W", Count: 101}, "--count must be between 1 and 100"},
		{"size 0", VerifySpec{Command: []string{"./prog"}, SizeEnv: "W", Count: 6, Sizes: []int{0}}, "--sizes: 0 workers"},
		{"too many sizes", VerifySpec{Command: []string{"./prog"}, SizeEnv: "W", Count: 6, Sizes: []int{1, 2, 3, 4, 5, 6, 7, 8, 9}}, "--sizes: 9 sizes, at most 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Check()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Check() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestSubstitute(t *testing.T) {
	got := substitute([]string{"-workers={N}", "{N}{N}", "-jobs", "100"}, 30)
	if want := []string{"-workers=30", "3030", "-jobs", "100"}; !slices.Equal(got, want) {
		t.Errorf("substitute = %q, want %q", got, want)
	}
}

func TestEnvSetting(t *testing.T) {
	tests := []struct {
		env  []string
		want pacer.Setting
	}{
		{nil, pacer.Setting{GOGC: 100}},
		{[]string{"GOGC=400", "HOME=/h"}, pacer.Setting{GOGC: 400}},
		{[]string{"GOGC=off", "GOMEMLIMIT=64MiB"}, pacer.Setting{GOGC: pacer.Off, MemoryLimit: 64 << 20}},
		{[]string{"GOGC=lots"}, pacer.Setting{GOGC: 100}},
	}
	for _, tt := range tests {
		if got := envSetting(tt.env); got != tt.want {
			t.Errorf("envSetting(%q) = %v, want %v", tt.env, got, tt.want)
		}
	}
}

// TestJudge holds the verdict to the wall-time samples of each size: the
// recommended size best, another size better beyond noise, or better only
// within it.
func TestJudge(t *testing.T) {
	fast, slow, mixed := compare.Sample{1.0, 1.01, 0.99, 1.02, 0.98}, compare.Sample{1.5, 1.52, 1.49, 1.51, 1.48}, compare.Sample{0.97, 1.03, 1.01, 1.04, 0.96}
	tests := []struct {
		name    string
		samples []compare.Sample
		best    int
		sig     bool
		want    []string
	}{
		{"recommended best", []compare.Sample{fast, slow, mixed}, 0, false,
			[]string{"The recommended 30 workers ran fastest: median wall time 1s.", "Slower beyond noise: 15 workers (+50%).", "Not distinguishable from it at these runs (~): 60 workers;"}},
		{"more is faster", []compare.Sample{slow, fast, fast}, 1, true,
			[]string{"15 workers ran fastest: median wall time 1s, 33% less than the recommended 30 workers (1.5s, p=0.008 n=5).", "System calls"}},
		{"twice is faster", []compare.Sample{slow, slow, fast}, 2, true,
			[]string{"60 workers ran fastest", "--channel-wait-is-work"}},
		{"within noise", []compare.Sample{fast, slow, mixed}[0:1:1], 0, false, []string{"The recommended 30 workers ran fastest"}},
		{"best only by noise", []compare.Sample{mixed, slow, {0.98, 0.995, 1.0, 1.005, 0.97}}, 2, false,
			[]string{"60 workers had the lowest median wall time (995ms against 1.01s)"}},
		{"recommended failed", []compare.Sample{nil, slow, fast}, 2, false, []string{"The recommended 30 workers did not run to the end; 60 workers ran fastest."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples := append(tt.samples, make([]compare.Sample, 3-len(tt.samples))...)
			v := &Verification{Sizes: []int{30, 15, 60}, Recommended: 30,
				Table: &compare.Table{Rows: []*compare.Row{compare.NewRow("", compare.MetricWall, samples)}}}
			v.Judge()
			got := strings.Join(v.Verdict, "\n")
			if v.Best != tt.best || v.Significant != tt.sig {
				t.Errorf("best %d significant %v, want %d %v; verdict:\n%s", v.Best, v.Significant, tt.best, tt.sig, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("verdict lacks %q:\n%s", w, got)
				}
			}
		})
	}
	v := &Verification{Sizes: []int{30}, Recommended: 30, Table: &compare.Table{}}
	if v.Judge(); v.Best != -1 || len(v.Verdict) != 1 || !strings.HasPrefix(v.Verdict[0], "No size ran") {
		t.Errorf("without runs: best %d, verdict %q", v.Best, v.Verdict)
	}
}
