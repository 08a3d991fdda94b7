package watch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// busyService serves /metrics (client_golang's default collectors) and
// /debug/pprof/heap, and allocates until the test ends, keeping a few
// MiB live, so that its GC has something to show.
func busyService(t *testing.T) *httptest.Server {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("/debug/pprof/heap", pprof.Handler("heap"))
	srv := httptest.NewServer(mux)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		keep := make([][]byte, 64)
		for i := 0; ctx.Err() == nil; i++ {
			keep[i%len(keep)] = make([]byte, 64<<10)
			if i%256 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait(); srv.Close() })
	return srv
}

// tmuxSession runs a command in a detached tmux session of its own
// server, width × height, and stops that server when the test ends.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func startTmux(t *testing.T, width, height int, env []string, command string) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, socket: fmt.Sprintf("gcdoctor-watch-%d-%d", os.Getpid(), time.Now().UnixNano())}
	args := []string{"new-session", "-d", "-s", "w", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height)}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	s.run(append(args, command)...)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen captures the pane, with its escape sequences when escapes.
func (s *tmuxSession) screen(escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", "w"}
	if escapes {
		args = append(args, "-e")
	}
	return s.run(args...)
}

// waitFor captures the pane until ok holds of it, within a deadline.
func (s *tmuxSession) waitFor(what string, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := s.screen(false)
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no %s on the screen within a minute:\n%s", what, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mask keeps a screen's layout and drops what changes from run to run:
// numbers, known or not, estimated or not, sparklines, spacing between
// columns, and the findings, which come and go with the load.
func mask(screen string) string {
	screen, _, _ = strings.Cut(screen, "findings of the last")
	screen = strings.NewReplacer("≈", "", "–", "N").Replace(screen)
	screen = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`).ReplaceAllString(screen, "N")
	screen = regexp.MustCompile(`N( GiB| MiB| ms|%)?(/s)?`).ReplaceAllString(screen, "N")
	screen = regexp.MustCompile(`[▁▂▃▄▅▆▇█]+`).ReplaceAllString(screen, "~")
	screen = regexp.MustCompile(` +`).ReplaceAllString(screen, " ")
	return screen
}

func buildGcdoctor(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gcdoctor")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/gcdoctor")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	return bin
}

func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("GCDOCTOR_TMUX") != "" {
			t.Fatalf("GCDOCTOR_TMUX is set and tmux cannot be found: %v", err)
		}
		t.Skip("tmux is not installed (set GCDOCTOR_TMUX to make this a failure)")
	}
}

// TestTerminal drives gcdoctor watch in a real terminal: tmux at 80
// columns. The first screen has the golden's layout, the figures move
// from one capture to the next, and q quits with status 0, leaving the
// last screen behind.
func TestTerminal(t *testing.T) {
	needTmux(t)
	bin, srv := buildGcdoctor(t), busyService(t)
	status := filepath.Join(t.TempDir(), "status")
	tm := startTmux(t, 80, 24, nil, fmt.Sprintf("%s watch --interval 200ms %s; echo exit=$? > %s; sleep 60", bin, srv.URL, status))
	first := tm.waitFor("figures", func(s string) bool { return strings.Contains(s, "findings of the last") })
	golden(t, "tmux-80.txt", mask(first))
	for i, line := range strings.Split(first, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	clock := regexp.MustCompile(`\d+:\d\d\n`)
	was := clock.FindString(first)
	second := tm.waitFor("a later screen", func(s string) bool { return clock.FindString(s) != was && strings.Contains(s, "findings of the last") })
	if figures(first) == figures(second) {
		t.Errorf("the figures did not move:\n%s\n%s", first, second)
	}
	if esc := tm.screen(true); !strings.Contains(esc, "\x1b[1m") {
		t.Errorf("no bold title on a colour terminal:\n%q", esc)
	}
	tm.run("send-keys", "-t", "w", "q")
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(status)
		if err == nil && strings.TrimSpace(string(data)) != "" {
			if got := strings.TrimSpace(string(data)); got != "exit=0" {
				t.Errorf("watch ended with %s", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch did not quit on q:\n%s", tm.screen(false))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last := tm.screen(false); !strings.Contains(last, "GC CPU") {
		t.Errorf("the last screen is not left behind:\n%s", last)
	}
}

// figures are a screen's lines of figures, without the clock.
func figures(screen string) string {
	_, rest, _ := strings.Cut(screen, "────")
	rest, _, _ = strings.Cut(rest, "findings")
	return rest
}

// TestTerminalNarrowNoColor: at 40 columns with NO_COLOR the screen fits
// without colour, and Ctrl-C quits as q does.
func TestTerminalNarrowNoColor(t *testing.T) {
	needTmux(t)
	bin, srv := buildGcdoctor(t), busyService(t)
	status := filepath.Join(t.TempDir(), "status")
	tm := startTmux(t, 40, 20, []string{"NO_COLOR=1"}, fmt.Sprintf("%s watch --interval 200ms %s; echo exit=$? > %s; sleep 60", bin, srv.URL, status))
	got := tm.waitFor("figures", func(s string) bool { return strings.Contains(s, "findings of the last") })
	for i, line := range strings.Split(got, "\n") {
		if n := len([]rune(line)); n > 40 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	if esc := tm.screen(true); strings.Contains(esc, "\x1b[1m") || strings.Contains(esc, "\x1b[3") {
		t.Errorf("colour with NO_COLOR:\n%q", esc)
	}
	tm.run("send-keys", "-t", "w", "C-c")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if data, err := os.ReadFile(status); err == nil && strings.TrimSpace(string(data)) != "" {
			if got := strings.TrimSpace(string(data)); got != "exit=0" {
				t.Errorf("watch ended with %s", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch did not quit on Ctrl-C:\n%s", tm.screen(false))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
