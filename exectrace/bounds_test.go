package exectrace

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestBounds reads a real trace with every bound of Options set low: the
// figures must stay consistent and the result must say what was left out.
func TestBounds(t *testing.T) {
	data, err := os.ReadFile("testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	full, err := Analyze(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Caveats) != 0 {
		t.Fatalf("warnings with the default bounds: %q", full.Caveats)
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"groups", Options{MaxGroups: 2}, "more than 2 start functions: the goroutines of the others are counted together as " + OtherGroups},
		{"goroutines", Options{MaxGoroutines: 3}, "more than 3 goroutines alive at once: "},
		{"util", Options{MaxUtilSteps: 4}, "the MMU curve covers the first "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Analyze(bytes.NewReader(data), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Caveats) != 1 || !strings.HasPrefix(res.Caveats[0], tt.want) {
				t.Fatalf("warnings %q, want one starting %q", res.Caveats, tt.want)
			}
			if tt.opts.MaxGroups > 0 {
				if len(res.Groups) > tt.opts.MaxGroups+1 || res.Group(OtherGroups) == nil {
					t.Errorf("%d groups: %v", len(res.Groups), groupNames(res))
				}
				if res.Goroutines.Seen != full.Goroutines.Seen {
					t.Errorf("%d goroutines seen, %d with no bound", res.Goroutines.Seen, full.Goroutines.Seen)
				}
			}
			if tt.opts.MaxGoroutines > 0 && res.Goroutines.PeakLive > tt.opts.MaxGoroutines {
				t.Errorf("%d goroutines alive at once followed", res.Goroutines.PeakLive)
			}
			if tt.opts.MaxUtilSteps > 0 && res.MMU.Steps > tt.opts.MaxUtilSteps {
				t.Errorf("%d utilization steps kept", res.MMU.Steps)
			}
			for _, p := range res.MMU.Points {
				if p.Util < 0 || p.Util > 1 || p.Bounded > p.Util {
					t.Errorf("MMU point %+v", p)
				}
			}
			seen := 0
			for _, g := range res.Groups {
				seen += g.Count
			}
			if seen != res.Goroutines.Seen {
				t.Errorf("groups hold %d goroutines, %d seen", seen, res.Goroutines.Seen)
			}
		})
	}
}

// TestPartialReason checks that every result marked partial says why, in
// the words of the error returned with it.
func TestPartialReason(t *testing.T) {
	data, err := os.ReadFile("testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	header := data[:16]
	for _, in := range [][]byte{data[:len(data)/2], data[:len(data)-1], header, append(bytes.Clone(header), 0xff, 0xff)} {
		res, err := Analyze(bytes.NewReader(in), Options{})
		var te *TruncatedError
		if !errors.As(err, &te) || res == nil {
			t.Fatalf("%d bytes: result %v, error %v", len(in), res, err)
		}
		if !res.Partial || res.PartialReason != err.Error() {
			t.Errorf("%d bytes: partial %v, reason %q, error %q", len(in), res.Partial, res.PartialReason, err)
		}
	}
}
