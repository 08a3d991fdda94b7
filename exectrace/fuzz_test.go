package exectrace

import (
	"bytes"
	"os"
	"testing"
)

// FuzzAnalyze feeds arbitrary bytes, seeded with a real trace and cuts of
// it, to Analyze: it must return a result or an error, never panic or hang,
// and a result must satisfy the basic bounds.
func FuzzAnalyze(f *testing.F) {
	data, err := os.ReadFile("testdata/small.trace")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, n := range []int{0, 10, 16, 17, 100, 1000, len(data) / 2, len(data) - 1} {
		f.Add(data[:n])
	}
	f.Add([]byte("go 1.21 trace\x00\x00\x00"))
	f.Add([]byte("go 1.22 trace\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		// Low bounds, so that the paths that leave things out run too.
		res, err := Analyze(bytes.NewReader(in), Options{MaxGroups: 3, MaxGoroutines: 8, MaxUtilSteps: 64, MaxStops: 4, HeapPoints: 8})
		if res == nil {
			if err == nil {
				t.Fatal("no result and no error")
			}
			return
		}
		if (err != nil) != res.Partial {
			t.Fatalf("error %v with Partial %v", err, res.Partial)
		}
		if res.Partial && res.PartialReason != err.Error() || !res.Partial && res.PartialReason != "" {
			t.Fatalf("partial %v, reason %q, error %v", res.Partial, res.PartialReason, err)
		}
		if res.Duration < 0 {
			t.Fatalf("duration %v", res.Duration)
		}
		for _, p := range res.MMU.Points {
			if !(p.Util >= 0 && p.Util <= 1 && p.Bounded >= 0 && p.Bounded <= p.Util) {
				t.Fatalf("MMU point %+v", p)
			}
		}
		for _, g := range res.Groups {
			if g.Count <= 0 || g.RunningMS < 0 || g.RunnableMS < 0 {
				t.Fatalf("group %+v", g)
			}
		}
	})
}
