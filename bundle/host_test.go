package bundle

import (
	"bytes"
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostSamples are three samples of a contended run: in the second
// interval a task waited half the time, a tenth of the CPU was stolen and
// the cgroup was throttled twice.
var hostSamples = []HostSample{
	{Elapsed: 0, Load1: 0.5, ProcsRunning: 1, CPUSomeUS: 1000, CPUMS: 10000, StealMS: 100, Periods: 10, Throttled: 1, ThrottledUS: 500},
	{Elapsed: 100 * time.Millisecond, Load1: 0.5, ProcsRunning: 2, CPUSomeUS: 1000, CPUMS: 10200, StealMS: 100, Periods: 11, Throttled: 1, ThrottledUS: 500},
	{Elapsed: 200 * time.Millisecond, Load1: 4.25, ProcsRunning: 6, CPUSomeUS: 51000, CPUMS: 10400, StealMS: 120, Periods: 12, Throttled: 3, ThrottledUS: 40500},
}

func TestHostRoundTrip(t *testing.T) {
	unknown := []HostSample{{Elapsed: time.Second, Load1: -1, ProcsRunning: -1, CPUSomeUS: -1, CPUMS: -1, StealMS: -1, Periods: -1, Throttled: -1, ThrottledUS: -1}}
	for _, samples := range [][]HostSample{hostSamples, unknown, nil} {
		var buf bytes.Buffer
		if err := encodeHost(&buf, samples); err != nil {
			t.Fatal(err)
		}
		got, err := decodeHost(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, samples) {
			t.Errorf("round trip = %v, want %v", got, samples)
		}
	}
}

func TestEncodeHostFormat(t *testing.T) {
	var buf bytes.Buffer
	encodeHost(&buf, []HostSample{hostSamples[2], {Elapsed: 1500 * time.Microsecond, Load1: 1, ProcsRunning: 2, CPUSomeUS: -1, CPUMS: 3, StealMS: 0, Periods: -1, Throttled: -1, ThrottledUS: -1}})
	want := hostHeader + "\n200,4.25,6,51000,10400,120,12,3,40500\n1.5,1,2,,3,0,,,\n"
	if buf.String() != want {
		t.Errorf("host.csv = %q, want %q", buf.String(), want)
	}
}

func TestDecodeHost(t *testing.T) {
	tests := []struct {
		name, in string
		want     []HostSample
		wantErr  string
	}{
		{"columns by name, the rest unknown", "cpu_some_us,elapsed_ms,extra\n7,1.5,x\n", []HostSample{{Elapsed: 1500 * time.Microsecond, Load1: -1, ProcsRunning: -1, CPUSomeUS: 7, CPUMS: -1, StealMS: -1, Periods: -1, Throttled: -1, ThrottledUS: -1}}, ""},
		{"empty", "", nil, "host.csv: empty file"},
		{"no elapsed", "load1\n1\n", nil, "host.csv:1: header"},
		{"empty elapsed", hostHeader + "\n,1,1,1,1,1,1,1,1\n", nil, `host.csv:2: invalid elapsed_ms ""`},
		{"negative counter", hostHeader + "\n1,1,1,-5,1,1,1,1,1\n", nil, `host.csv:2: invalid cpu_some_us "-5"`},
		{"nan load", hostHeader + "\n1,NaN,1,1,1,1,1,1,1\n", nil, `invalid load1 "NaN"`},
		{"huge elapsed", hostHeader + "\n1e300,1,1,1,1,1,1,1,1\n", nil, "invalid elapsed_ms"},
		{"short line", hostHeader + "\n1,2\n", nil, "host.csv:2: want at least"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeHost(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHostIntervals(t *testing.T) {
	got := HostIntervals(hostSamples)
	want := []HostInterval{
		{Start: 0, End: 100 * time.Millisecond, PressurePct: 0, StealPct: 0, Throttled: 0, ThrottledMS: 0, Load1: 0.5, ProcsRunning: 2},
		{Start: 100 * time.Millisecond, End: 200 * time.Millisecond, PressurePct: 50, StealPct: 10, Throttled: 2, ThrottledMS: 40, Load1: 4.25, ProcsRunning: 6},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HostIntervals = %+v, want %+v", got, want)
	}
	// A counter that went backwards is unknown for that interval.
	reset := []HostSample{hostSamples[2], hostSamples[0]}
	reset[1].Elapsed = time.Second
	iv := HostIntervals(reset)[0]
	if iv.PressurePct != -1 || iv.StealPct != -1 || iv.Throttled != -1 {
		t.Errorf("after a reset: %+v, want unknown figures", iv)
	}
}

func TestSummarizeHost(t *testing.T) {
	s := SummarizeHost(hostSamples)
	want := &HostSummary{Measured: []string{"pressure", "steal", "throttling", "load", "procs_running"}, Samples: 3,
		PressurePct: 25, PressureMaxPct: 50, StealPct: 5, Throttled: 2, Periods: 2, ThrottledMS: 40, Load1Max: 4.25, ProcsRunningMax: 6}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("SummarizeHost = %+v, want %+v", s, want)
	}
	if s := SummarizeHost(hostSamples[:1]); s != nil {
		t.Errorf("one sample: %+v, want nil", s)
	}
}

func TestBundleHost(t *testing.T) {
	dir := t.TempDir() + "/b"
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHost(hostSamples); err != nil {
		t.Fatal(err)
	}
	if !IsBundle(dir) || !slices.Contains(KnownFiles, HostFile) {
		t.Fatal("a directory with host.csv alone is not a bundle")
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Host()
	if err != nil || !reflect.DeepEqual(got, hostSamples) {
		t.Errorf("Host() = %v, %v, want %v", got, err, hostSamples)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	b2, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if _, err := b2.Host(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Host() without host.csv: error = %v, want fs.ErrNotExist", err)
	}
}
