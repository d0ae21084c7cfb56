package testsuite

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/console"
)

// mountConsole serves the staff console on e, calling the API through checked (so the console's
// own requests are held to the OpenAPI document too).
func (s *System) mountConsole(t testing.TB, e *echo.Echo, checked http.Handler, opts SystemOptions) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	oidc := opts.ConsoleOIDC
	if oidc != nil && oidc.RedirectURL == "" {
		withCallback := *oidc
		withCallback.RedirectURL = s.ConsoleURL() + "/oidc/callback"
		oidc = &withCallback
	}
	_, err := console.Mount(ctx, e, console.Config{API: checked, Pool: s.DB.Pool, OIDC: oidc,
		DevSignIn: oidc == nil, Logger: quietLogger(), Now: opts.Now,
		SessionLifetime: opts.ConsoleSessionLifetime, SessionIdle: opts.ConsoleSessionIdle})
	require.NoError(t, err)
}

// ConsoleURL is the staff console's address.
func (s *System) ConsoleURL() string { return s.URL + console.Prefix }

// Chromium is the browser the console's tests drive: BOOKFLOW_CHROMIUM, or chromium on the PATH
// (scripts/test installs Debian's when it is missing).
func Chromium() (string, error) {
	if p := os.Getenv("BOOKFLOW_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium: scripts/test installs Debian's chromium, or set BOOKFLOW_CHROMIUM")
}

// Browser is one headless Chromium with a profile of its own (its own cookies), for one person.
type Browser struct {
	Ctx  context.Context
	t    testing.TB
	name string
	shot int
}

// NewBrowser starts a browser for the test, closed when it ends; name prefixes its screenshots.
func NewBrowser(t testing.TB, name string) *Browser {
	t.Helper()
	path, err := Chromium()
	require.NoError(t, err)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1400, 1000), chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx), "start Chromium at %s", path)
	return &Browser{Ctx: ctx, t: t, name: name}
}

// Do runs steps, bounded, failing the test with a screenshot of where it stopped.
func (b *Browser) Do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.Screenshot("failed")
		b.t.Fatalf("browser: %v", err)
	}
}

// Visit opens the console's path (or any URL) and waits for its page.
func (b *Browser) Visit(url string) {
	b.t.Helper()
	b.Do(chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")))
}

// Submit clicks the CSS selector sel (a form's button, a link) and waits for the page it
// leads to.
func (b *Browser) Submit(sel string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel)))); err != nil {
		b.Screenshot("failed")
		b.t.Fatalf("browser: submit %s: %v", sel, err)
	}
}

// Text is the text of the first element matching the CSS selector sel.
func (b *Browser) Text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.Screenshot("failed")
		b.t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// Location is the page's address.
func (b *Browser) Location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.Ctx, chromedp.Location())
	require.NoError(b.t, err)
	return loc
}

// Screenshot saves the page as it stands under ArtifactsDir, numbered in the order taken, so a
// reviewer can see the screens without running the tests.
func (b *Browser) Screenshot(what string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", what, err)
		return
	}
	b.shot++
	file := filepath.Join(ArtifactsDir(b.t), fmt.Sprintf("%s-%02d-%s.png", b.name, b.shot, what))
	require.NoError(b.t, os.WriteFile(file, png, 0o644))
}

// ArtifactsDir is where tests leave what a reviewer looks at: BOOKFLOW_ARTIFACTS, or .data/artifacts
// at the top of the checkout, under a folder per test.
func ArtifactsDir(t testing.TB) string {
	root := os.Getenv("BOOKFLOW_ARTIFACTS")
	if root == "" {
		root = filepath.Join("..", ".data", "artifacts")
	}
	dir := filepath.Join(root, "console", strings.ReplaceAll(t.Name(), "/", "-"))
	if _, seen := artifactDirs.LoadOrStore(dir, true); !seen {
		require.NoError(t, os.RemoveAll(dir)) // an earlier run's screens, not this one's
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// artifactDirs are the folders this run has started filling.
var artifactDirs sync.Map

// DevSignIn signs the browser in to s's console with the development sign-in, as subject in
// role, of site ("hotel:<id>" or "venue:<id>", for a front desk; empty otherwise).
func (b *Browser) DevSignIn(s *System, subject, role, site string) {
	b.t.Helper()
	b.Visit(s.ConsoleURL() + "/sign-in")
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.SetValue(chromedp.ID("subject"), subject),
		chromedp.SetValue(chromedp.ID("role"), role),
	}
	if site != "" {
		steps = append(steps, chromedp.SetValue(chromedp.ID("site"), site))
	}
	b.Do(steps...)
	b.Screenshot("sign-in")
	b.Submit("#dev-sign-in")
}

// PostForm posts fields to path from the page the browser is on, as a script of that page
// could (same origin, the page's cookie), with the page's CSRF token when csrf is set, and
// returns the answer's status.
func (b *Browser) PostForm(path string, fields map[string]string, csrf bool) int {
	b.t.Helper()
	form := url.Values{}
	for k, v := range fields {
		form.Set(k, v)
	}
	token := "''"
	if csrf {
		token = "document.querySelector('input[name=csrf]').value"
	}
	js := fmt.Sprintf(`(() => { const body = new URLSearchParams(%q); const t = %s; if (t) body.set('csrf', t);
		return fetch(%q, {method: 'POST', body, redirect: 'manual'}).then(r => r.type === 'opaqueredirect' ? 303 : r.status); })()`,
		form.Encode(), token, path)
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](js, chromedp.EvalAwaitPromise))
	require.NoError(b.t, err, "post %s", path)
	return status
}

// ConsolePath is path under the console's prefix.
func ConsolePath(path string) string { return console.Prefix + path }

// Attr is the attribute name of the first element matching the CSS selector sel.
func (b *Browser) Attr(sel, name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).getAttribute(%q)`, sel, name)))
	require.NoError(b.t, err, "%s[%s]", sel, name)
	return v
}

// OptionValue is the value of the option of the select sel whose text is label.
func (b *Browser) OptionValue(sel, label string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
		`[...document.querySelectorAll(%q + ' option')].find(o => o.textContent.trim() === %q).value`, sel, label)))
	require.NoError(b.t, err, "%s option %s", sel, label)
	return v
}
