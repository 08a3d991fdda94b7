package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser returns the Chromium to test with: GCDOCTOR_BROWSER when set
// (CI sets it, so a missing browser fails there), else one on PATH; the
// test is skipped when there is none.
func browser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("GCDOCTOR_BROWSER"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("GCDOCTOR_BROWSER: %v", err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH: install chromium or set GCDOCTOR_BROWSER")
	return ""
}

// pageEvents collects what the page must never do: throw, log an error,
// open a dialog or fetch anything.
type pageEvents struct {
	mu       sync.Mutex
	problems []string
	dialogs  int
	docURL   string
	// ctx is the page's chromedp context, to dismiss a dialog that would
	// otherwise stall the page.
	ctx context.Context
}

func (e *pageEvents) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.problems = append(e.problems, fmt.Sprintf(format, args...))
}

func (e *pageEvents) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		e.add("uncaught exception: %s", ev.ExceptionDetails.Text)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			e.add("console.error called")
		}
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			e.add("log error: %s (%s)", ev.Entry.Text, ev.Entry.URL)
		}
	case *page.EventJavascriptDialogOpening:
		e.mu.Lock()
		e.dialogs++
		ctx := e.ctx
		e.mu.Unlock()
		e.add("%s dialog opened: %q", ev.Type, ev.Message)
		// A listener must not send commands itself.
		go chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			return err
		}))
	case *network.EventRequestWillBeSent:
		// The page itself is the only request; the charts are data: URLs
		// that Chromium may or may not report.
		u := ev.Request.URL
		e.mu.Lock()
		doc := e.docURL
		e.mu.Unlock()
		if u != doc && !strings.HasPrefix(u, "data:") {
			e.add("request to %s", u)
		}
	}
}

func (e *pageEvents) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.problems
	e.problems = nil
	return p
}

// chartInfo is what the browser says about one figure of the page.
type chartInfo struct {
	ID       string `json:"id"`
	Complete bool   `json:"complete"`
	Width    int    `json:"width"`  // natural width, px
	Height   int    `json:"height"` // natural height, px
	Src      string `json:"src"`    // the scheme and type of the image URL
}

// pageState is read from the loaded page by one script.
type pageState struct {
	Charts  []chartInfo `json:"charts"`
	Missing []string    `json:"missing"`
	Text    string      `json:"text"`
	Scripts int         `json:"scripts"`
	Images  int         `json:"images"`
	// Foreign counts elements that only hostile input could have made.
	Foreign int `json:"foreign"`
}

const readPage = `(() => ({
	charts: [...document.querySelectorAll("figure")].map(f => {
		const img = f.querySelector("img");
		return {id: f.id, complete: !!img && img.complete, width: img ? img.naturalWidth : 0,
			height: img ? img.naturalHeight : 0, src: img ? img.src.slice(0, 26) : ""};
	}),
	missing: [...document.querySelectorAll(".missing")].map(p => p.innerText),
	text: document.body.innerText,
	scripts: document.querySelectorAll("script").length,
	images: document.images.length,
	foreign: document.querySelectorAll("b, i, iframe, object, embed, img:not(figure img), [onerror], [onload]").length,
}))()`

// TestHTMLInBrowser loads HTML reports into headless Chromium and checks
// what a reader would see: every chart drawn, the notes for what is
// missing, hostile names shown as text, and a page that runs nothing,
// fetches nothing and logs no error.
func TestHTMLInBrowser(t *testing.T) {
	exe := browser(t)
	tests := []struct {
		name        string
		fx          fixture
		wantCharts  []string
		wantMissing int
		wantText    []string
	}{
		{
			name:       "a bundle of one run",
			fx:         demoBundle,
			wantCharts: []string{"heap", "pauses", "pause-histogram", "gc-cpu", "sites", "trace-pauses", "trace-pause-histogram", "mmu", "goroutines"},
			wantText:   []string{"What to do first", "Allocation sites", "Execution trace"},
		},
		{
			name:       "all evidence, hostile names",
			fx:         hostileAll,
			wantCharts: []string{"heap", "pauses", "pause-histogram", "gc-cpu", "sites", "trace-pauses", "trace-pause-histogram", "mmu", "goroutines"},
			wantText:   []string{hostileFunc, "main.<img src=x onerror=alert(2)>|worker", "gc <b>bold</b> | *log*.txt"},
		},
		{
			name:        "gctrace only",
			fx:          fixture{log: "go1.21-alloc.log", keepCycles: true},
			wantCharts:  []string{"heap", "pauses", "pause-histogram", "gc-cpu"},
			wantMissing: 4,
			wantText:    []string{"No allocation site chart", "No MMU chart"},
		},
		{
			name:        "gctrace without timestamps, profile",
			fx:          fixture{log: "go1.4.3-alloc.log", profile: "concat.pprof", keepCycles: true},
			wantCharts:  []string{"heap", "pauses", "pause-histogram", "sites"},
			wantMissing: 4,
			wantText:    []string{"No GC CPU chart", "This log format prints neither the live heap nor the goal"},
		},
		{
			name:        "trace only",
			fx:          fixture{trace: "small.trace"},
			wantCharts:  []string{"heap", "trace-pauses", "trace-pause-histogram", "mmu", "goroutines"},
			wantMissing: 4,
			wantText:    []string{"No GC pause charts from gctrace", "the execution trace's is below"},
		},
	}

	events := &pageEvents{}
	alloc, cancel := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	)
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(events.listen))
	defer cancel()
	// A deadline only so that a wedged browser cannot hang the test run;
	// nothing is asserted about how long the page takes.
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	events.mu.Lock()
	events.ctx = ctx
	events.mu.Unlock()

	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := HTML(&buf, tt.fx.diagnosis(t), HTMLOptions{ToolVersion: "test"}); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, fmt.Sprintf("report-%d.html", i))
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			url := "file://" + file
			events.mu.Lock()
			events.docURL = url
			events.mu.Unlock()
			if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
				t.Fatal(err)
			}
			// Images decode after the load event on some versions: wait
			// until every one has finished, loaded or not.
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`[...document.images].every(i => i.complete)`)); err != nil {
				t.Fatal(err)
			}
			st, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](readPage))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range st.Charts {
				got = append(got, strings.TrimPrefix(c.ID, "chart-"))
				if !c.Complete || c.Width == 0 || c.Height == 0 {
					t.Errorf("chart %s not drawn: %+v", c.ID, c)
				}
				if c.Src != "data:image/svg+xml;base64," {
					t.Errorf("chart %s is not an embedded SVG: %q", c.ID, c.Src)
				}
			}
			if !slices.Equal(got, tt.wantCharts) {
				t.Errorf("charts %v, want %v", got, tt.wantCharts)
			}
			if len(st.Missing) != tt.wantMissing {
				t.Errorf("%d notes on missing evidence, want %d: %q", len(st.Missing), tt.wantMissing, st.Missing)
			}
			for _, s := range tt.wantText {
				if !strings.Contains(st.Text, s) {
					t.Errorf("page text lacks %q", s)
				}
			}
			if st.Scripts != 0 || st.Foreign != 0 || st.Images != len(st.Charts) {
				t.Errorf("the page grew elements: %d scripts, %d foreign elements, %d images for %d charts", st.Scripts, st.Foreign, st.Images, len(st.Charts))
			}
			for _, p := range events.take() {
				t.Errorf("page: %s", p)
			}
			// For people to look at: the test cannot judge legibility.
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(os.TempDir(), fmt.Sprintf("gcdoctor-report-browser-%d.png", i))
			if err := os.WriteFile(path, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", path)
		})
	}
	events.mu.Lock()
	defer events.mu.Unlock()
	if events.dialogs != 0 {
		t.Errorf("%d JavaScript dialogs opened", events.dialogs)
	}
}
