package collect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSettingRuns(t *testing.T) {
	settings, exps, err := ParseSettingRuns([]string{"100", "200"}, []string{"1GiB"}, 3, []string{"greenteagc", "nogreenteagc"})
	if err != nil || len(settings) != 2 || len(exps) != 2 {
		t.Fatalf("%v, %v, %v", settings, exps, err)
	}
	for _, tt := range []struct {
		gogcs  []string
		count  int
		exps   []string
		prefix string
	}{
		{[]string{"100"}, 0, nil, "--count must be between 1 and 100"},
		{[]string{"100"}, MaxCount + 1, nil, "--count must be between 1 and 100"},
		{[]string{"fast"}, 1, nil, "--gogc fast: "},
		{[]string{"100"}, 1, []string{"Green Tea"}, `--goexperiment: GOEXPERIMENT "Green Tea": `},
		{[]string{"fast"}, 0, []string{"Green Tea"}, "--count"}, // the count is checked first
	} {
		_, _, err := ParseSettingRuns(tt.gogcs, nil, tt.count, tt.exps)
		if err == nil || !strings.HasPrefix(err.Error(), tt.prefix) {
			t.Errorf("%+v: %v, want %q…", tt, err, tt.prefix)
		}
	}
}

func TestBenchSetTarget(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "codec.test")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var s BenchSpec
	if err := s.SetTarget(bin, "work"); err != nil || s.Binary != bin || s.Dir != "work" || s.Pkg != "" {
		t.Errorf("a test binary: %+v, %v", s, err)
	}
	s = BenchSpec{}
	if err := s.SetTarget("./codec", "work"); err != nil || s.Pkg != "./codec" || s.Binary != "" || s.Dir != "" {
		t.Errorf("a package: %+v, %v", s, err)
	}
	s = BenchSpec{Experiments: []string{"nogreenteagc"}}
	if err := s.SetTarget(bin, ""); err == nil || !strings.Contains(err.Error(), "prebuilt test binary") {
		t.Errorf("GOEXPERIMENT with a test binary: %v", err)
	}
}
