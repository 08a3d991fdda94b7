package gctrace

import (
	"os"
	"testing"
)

// TestBusiest picks, in a real go vet std log, the process with the most
// GC CPU time rather than the first or the one with the most cycles.
func TestBusiest(t *testing.T) {
	f, err := os.Open("testdata/real/toolchain-go-vet-std.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := Parse(f, "vet.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := log.Busiest()
	if b == nil {
		t.Fatal("no busiest segment")
	}
	for _, s := range log.Segments {
		if Valid(s.Summary.GCCPUMS) && s.Summary.GCCPUMS > b.Summary.GCCPUMS {
			t.Errorf("segment %d has %.1f ms of GC CPU, more than the busiest (%d, %.1f ms)", s.Index, s.Summary.GCCPUMS, b.Index, b.Summary.GCCPUMS)
		}
	}
	if (&Log{}).Busiest() != nil {
		t.Error("an empty log has a busiest segment")
	}
}

// TestForgetCycles drops the cycles and keeps what was summed from them.
func TestForgetCycles(t *testing.T) {
	f, err := os.Open("testdata/real/toolchain-go-vet-std.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := Parse(f, "vet.log", Options{KeepCycles: true})
	if err != nil {
		t.Fatal(err)
	}
	b := log.Busiest()
	if b == nil || len(b.Cycles) == 0 {
		t.Fatal("no cycles kept to forget")
	}
	n := b.Summary.Cycles
	log.ForgetCycles()
	for _, s := range log.Segments {
		if s.Cycles != nil {
			t.Fatalf("segment %d keeps %d cycles", s.Index, len(s.Cycles))
		}
	}
	if b.Summary.Cycles != n {
		t.Errorf("summary cycles %d, were %d", b.Summary.Cycles, n)
	}
}
