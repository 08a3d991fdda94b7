package tour

import "testing"

func TestCheckLoad(t *testing.T) {
	for _, tt := range []struct {
		requests, concurrency, rounds int
		err                           string
	}{
		{1200, 8, 6, ""},
		{1, 1, 1, ""},
		{0, 8, 6, "--requests must be between 1 and 100000"},
		{100001, 8, 6, "--requests must be between 1 and 100000"},
		{1200, 0, 6, "--concurrency must be between 1 and 256"},
		{1200, 257, 6, "--concurrency must be between 1 and 256"},
		{1200, 8, 0, "--rounds must be between 1 and 50, and at most --requests"},
		{1200, 8, 51, "--rounds must be between 1 and 50, and at most --requests"},
		{5, 8, 6, "--rounds must be between 1 and 50, and at most --requests"},
	} {
		err := CheckLoad(tt.requests, tt.concurrency, tt.rounds)
		if got := errString(err); got != tt.err {
			t.Errorf("CheckLoad(%d, %d, %d) = %q, want %q", tt.requests, tt.concurrency, tt.rounds, got, tt.err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
