package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// One headless Chromium serves every browser test of this package: each test opens its own
// tab (and cookie state is per tab's browser context only when a test asks for a fresh one).

var (
	browser     context.Context
	browserSkip string
)

// chromiumPath finds the browser: Debian's chromium (installed by .ci/run), or another name
// for it on the PATH.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	path := chromiumPath()
	if path == "" {
		browserSkip = "no chromium binary on this machine (apt-get install chromium; .ci/run installs it and requires these tests)"
		if os.Getenv("ANNALS_REQUIRE_BROWSER") != "" {
			fmt.Fprintln(os.Stderr, "ANNALS_REQUIRE_BROWSER is set but "+browserSkip)
			return 1
		}
		return m.Run()
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		fmt.Fprintln(os.Stderr, "cannot start chromium:", err)
		return 1
	}
	browser = bctx
	return m.Run()
}

// tab is one browser tab that fails its test on any dialog, console error, uncaught exception
// or browser-logged error (a Content-Security-Policy violation, a failed load).
type tab struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	problems []string
	// allow lists substrings of log errors the test expects (a 404 it asked for).
	allow []string
}

// newTab opens a tab in a fresh browser context (its own cookies).
func newTab(t *testing.T) *tab {
	t.Helper()
	if browser == nil {
		t.Skip(browserSkip)
	}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	tb := &tab{t: t, ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			tb.problem("dialog opened: %s %q", ev.Type, ev.Message)
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				tb.problem("console %s: %s", ev.Type, strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			tb.problem("uncaught exception: %s", exceptionText(ev.ExceptionDetails))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				tb.problem("browser error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.Enable, page.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, p := range tb.problems {
			t.Errorf("in the browser: %s", p)
		}
	})
	t.Cleanup(func() { cancelTimeout(); cancel() })
	return tb
}

func (tb *tab) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, a := range tb.allow {
		if strings.Contains(msg, a) {
			return
		}
	}
	tb.problems = append(tb.problems, msg)
}

// run runs actions, failing the test on an error.
func (tb *tab) run(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatal(err)
	}
}

// eval evaluates a script of the test (never of the page) and returns its value.
func eval[T any](tb *tab, js string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor polls a boolean expression until it is true.
func (tb *tab) waitFor(what, js string) {
	tb.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("waited 30s for %s (%s): %v", what, js, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot captures the page as NAME.png: into docs/web (which docs/WEB.md shows) when
// ANNALS_WEB_SCREENSHOTS is set, else into the test's temporary folder, so a test run never
// changes the source tree unasked.
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	buf, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatal(err)
	}
	dir := tb.t.TempDir()
	if os.Getenv("ANNALS_WEB_SCREENSHOTS") != "" {
		dir = filepath.Join("..", "docs", "web")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Text + " " + d.Exception.Description
	}
	return d.Text
}

// open navigates to u and waits until the page's script has set up its handlers.
func (tb *tab) open(u string) {
	tb.t.Helper()
	tb.run(chromedp.Navigate(u))
	tb.waitFor("the page's script", `document.documentElement.dataset.ready === "1"`)
}
