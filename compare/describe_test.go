package compare

import "testing"

func TestSideDescribe(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		inputs []string
		want   string
	}{
		{"old.txt", []string{"old.txt"}, "old.txt"},
		{"bundle", []string{"bundle/gctrace.log", "bundle/allocs.pb.gz"}, "bundle (2 inputs)"},
		{"a.txt,b.txt,c.txt", []string{"a.txt", "b.txt", "c.txt"}, "a.txt,… (3 inputs)"},
	} {
		if got := (&Side{Inputs: tt.inputs}).Describe(tt.spec); got != tt.want {
			t.Errorf("Describe(%q) = %q, want %q", tt.spec, got, tt.want)
		}
	}
}
