package collect

import (
	"reflect"
	"testing"
)

func TestMergeGODEBUG(t *testing.T) {
	tests := []struct {
		old, want string
	}{
		{"", "gctrace=1"},
		{"madvdontneed=1", "madvdontneed=1,gctrace=1"},
		{"gctrace=1", "gctrace=1"},
		{"gctrace=2", "gctrace=1"},
		{"gctrace=0,madvdontneed=1", "madvdontneed=1,gctrace=1"},
		{"madvdontneed=1,gctrace=2,asyncpreemptoff=1", "madvdontneed=1,asyncpreemptoff=1,gctrace=1"},
		{"gctrace", "gctrace=1"},
		{" madvdontneed=1 , , gcstoptheworld=1,", "madvdontneed=1,gcstoptheworld=1,gctrace=1"},
		{"gctracex=1", "gctracex=1,gctrace=1"},
		{"inittrace=1,gctrace=1,gctrace=2", "inittrace=1,gctrace=1"},
	}
	for _, tt := range tests {
		if got := mergeGODEBUG(tt.old); got != tt.want {
			t.Errorf("mergeGODEBUG(%q) = %q, want %q", tt.old, got, tt.want)
		}
	}
}

func TestWithGCTrace(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"no GODEBUG", []string{"PATH=/bin", "HOME=/root"}, []string{"PATH=/bin", "HOME=/root", "GODEBUG=gctrace=1"}},
		{"nil", nil, []string{"GODEBUG=gctrace=1"}},
		{"kept", []string{"GODEBUG=madvdontneed=1", "PATH=/bin"}, []string{"PATH=/bin", "GODEBUG=madvdontneed=1,gctrace=1"}},
		{"last wins", []string{"GODEBUG=a=1", "X=1", "GODEBUG=b=1,gctrace=2"}, []string{"X=1", "GODEBUG=b=1,gctrace=1"}},
		{"empty value", []string{"GODEBUG="}, []string{"GODEBUG=gctrace=1"}},
		{"similar name", []string{"GODEBUGX=1"}, []string{"GODEBUGX=1", "GODEBUG=gctrace=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := append([]string(nil), tt.env...)
			got := withGCTrace(tt.env)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("withGCTrace(%q) = %q, want %q", tt.env, got, tt.want)
			}
			if !reflect.DeepEqual(orig, tt.env) && !(len(orig) == 0 && len(tt.env) == 0) {
				t.Errorf("withGCTrace modified its argument: %q, was %q", tt.env, orig)
			}
		})
	}
}

func TestLookupEnv(t *testing.T) {
	env := []string{"GOGC=100", "GOGCX=7", "GOMEMLIMIT=", "GOGC=off"}
	tests := []struct{ key, want string }{
		{"GOGC", "off"},
		{"GOGCX", "7"},
		{"GOMEMLIMIT", ""},
		{"GOMAXPROCS", ""},
	}
	for _, tt := range tests {
		if got := lookupEnv(env, tt.key); got != tt.want {
			t.Errorf("lookupEnv(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
