package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"example.com/byor/testkit"
)

// chromium finds a Chromium binary, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no chromium on PATH (Debian: apt-get install chromium)")
	return ""
}

// TestBrowser starts the explorer in process and one headless Chromium,
// with a fresh profile that talks to nothing but the explorer, and runs
// each check in a tab of its own.
func TestBrowser(t *testing.T) {
	testkit.Heavy(t)
	exe := chromium(t)
	srv := httptest.NewServer(handler())
	defer srv.Close()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, ctx context.Context, base string)
	}{
		{"ZSetDeepLink", zsetDeepLink},
		{"HashtableBothTables", hashtableBothTables},
		{"Steps", stepThrough},
		{"Form", formRun},
		{"BlockingQueues", blockingQueues},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, cancelTab := chromedp.NewContext(browser)
			defer cancelTab()
			// Only a guard against a hung browser, far above what a page
			// takes.
			ctx, cancel := context.WithTimeout(tab, 3*time.Minute)
			defer cancel()
			tc.fn(t, ctx, srv.URL)
		})
	}
}

// count returns how many elements match a CSS selector.
func count(t *testing.T, ctx context.Context, selector string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", selector)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// atStep waits until the page shows step k.
func atStep(k int) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#position[data-step="%d"]`, k)))
}

// text returns the text of the first element matching a CSS selector.
func text(t *testing.T, ctx context.Context, selector string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(selector)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func zaddLink(n, step int) string {
	var cmds []string
	for i := 1; i <= n; i++ {
		cmds = append(cmds, fmt.Sprintf("zadd%%20z%%20%d%%20m%d", i, i))
	}
	q := "/?view=zset&cmds=" + strings.Join(cmds, ";")
	if step >= 0 {
		q += fmt.Sprintf("&step=%d", step)
	}
	return q
}

func zsetDeepLink(t *testing.T, ctx context.Context, base string) {
	if err := chromedp.Do(ctx, chromedp.Navigate(base+zaddLink(7, -1)), atStep(7)); err != nil {
		t.Fatal(err)
	}
	if got := count(t, ctx, "[data-node]"); got != 7 {
		t.Errorf("%d elements with data-node, want 7", got)
	}
	root, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#picture svg").getAttribute("aria-label")`))
	if err != nil {
		t.Fatal(err)
	}
	if root != "zset" {
		t.Errorf("picture labelled %q", root)
	}
	shot(t, ctx, "zset")
}

func hashtableBothTables(t *testing.T, ctx context.Context, base string) {
	var cmds []string
	for i := 1; i <= 40; i++ {
		cmds = append(cmds, fmt.Sprintf("set%%20k%d%%20v", i))
	}
	url := base + "/?view=hashtable&rehash=1&cmds=" + strings.Join(cmds, ";")
	if err := chromedp.Do(ctx, chromedp.Navigate(url), atStep(40)); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"older", "newer"} {
		if got := count(t, ctx, fmt.Sprintf(`[data-table=%q]`, role)); got != 1 {
			t.Errorf("%d tables with data-table=%q, want 1", got, role)
		}
	}
	ran := text(t, ctx, "#ran")
	if !strings.Contains(ran, "helpResizing: moved 2 keys") {
		t.Errorf("step 40 ran:\n%s", ran)
	}
	shot(t, ctx, "hashtable")
}

// stepThrough clicks through a replay and back, with the links and
// with the arrow keys, and checks the tree grows and shrinks with it.
func stepThrough(t *testing.T, ctx context.Context, base string) {
	if err := chromedp.Do(ctx, chromedp.Navigate(base+zaddLink(3, 0)), atStep(0)); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 3; k++ {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next")), atStep(k)); err != nil {
			t.Fatalf("next to step %d: %v", k, err)
		}
		if got := count(t, ctx, "[data-node]"); got != k {
			t.Errorf("step %d: %d nodes", k, got)
		}
	}
	ran := text(t, ctx, "#ran")
	if !strings.Contains(ran, "rotLeft(m1)") {
		t.Errorf("the third insert should rotate m1 left; ran:\n%s", ran)
	}
	if got := count(t, ctx, "#next"); got != 0 {
		t.Errorf("a next link at the last step")
	}
	// The arrow keys, from explore.js.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowLeft), atStep(2)); err != nil {
		t.Fatalf("left arrow: %v", err)
	}
	if got := count(t, ctx, "[data-node]"); got != 2 {
		t.Errorf("back at step 2: %d nodes", got)
	}
}

// formRun types commands and runs them: the page's URL becomes
// the ';'-separated link to the state.
func formRun(t *testing.T, ctx context.Context, base string) {
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/?view=heap"),
		chromedp.SetValue(chromedp.CSS("#cmds"), "set a 1\nset b 2\npexpire a 500\npexpire b 100"),
		chromedp.Click(chromedp.CSS("#run")),
		atStep(4),
	)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if want := "/?view=heap&cmds=set%20a%201;set%20b%202;pexpire%20a%20500;pexpire%20b%20100"; !strings.HasSuffix(loc, want) {
		t.Errorf("location %s, want ...%s", loc, want)
	}
	if got := count(t, ctx, "[data-slot]"); got != 2 {
		t.Errorf("%d heap slots, want 2", got)
	}
	shot(t, ctx, "heap")
}

// blockingQueues opens the blocking view's first scenario from its menu
// and steps through it: two clients join k1's queue in order, and one
// push of three elements serves both, first parked first.
func blockingQueues(t *testing.T, ctx context.Context, base string) {
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/?view=blocking"),
		chromedp.Click(chromedp.CSS(".scenarios a")),
		atStep(0),
	)
	if err != nil {
		t.Fatal(err)
	}
	waiters := func() string {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("[data-waiter]")].map(e => e.dataset.waiter).join(" ")`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for k, want := range []string{"k1/c1", "k1/c1 k1/c2", ""} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next")), atStep(k+1)); err != nil {
			t.Fatalf("next to step %d: %v", k+1, err)
		}
		if got := waiters(); got != want {
			t.Errorf("step %d: waiters %q, want %q", k+1, got, want)
		}
	}
	if got := count(t, ctx, `[data-state="answered"]`); got != 2 {
		t.Errorf("%d clients answered after the push, want 2", got)
	}
	if got := count(t, ctx, `[data-ready="k1"]`); got != 1 {
		t.Errorf("k1 drawn %d times as ready, want once", got)
	}
	if ran := text(t, ctx, "#ran"); !strings.Contains(ran, "waitq.(*Queues).Head(k1) = c2: server.blockServe") {
		t.Errorf("the push ran:\n%s", ran)
	}
	shot(t, ctx, "blocking")
}

// shot takes a screenshot of the whole page and checks that it is a PNG
// of a sensible size. With EXPLORE_SHOTS set to a directory, it is kept
// there to be looked at.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 500 {
		t.Errorf("screenshot is %dx%d, want at least 1000x500", b.Dx(), b.Dy())
	}
	if dir := os.Getenv("EXPLORE_SHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
			t.Error(err)
		}
	}
}
