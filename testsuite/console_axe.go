package testsuite

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// WCAGTags are the axe-core rule tags AssertAccessible runs: WCAG 2.0 and 2.1, levels A and AA.
var WCAGTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"}

// axeResult is what AssertAccessible reads of axe-core's results.
type axeResult struct {
	Passes     int            `json:"passes"`
	Incomplete []string       `json:"incomplete"`
	Violations []axeViolation `json:"violations"`
}

// axeViolation is what AssertAccessible reads of one of axe-core's violations.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// axeCore is the source of axe-core's axe.min.js at AXE_CORE_JS (scripts/test installs the
// pinned release and sets it), read once per run; "" when the variable is unset.
func axeCore() (string, error) {
	axeOnce.Do(func() {
		path := os.Getenv("AXE_CORE_JS")
		if path == "" {
			return
		}
		src, err := os.ReadFile(path)
		axeSource, axeErr = string(src), err
	})
	return axeSource, axeErr
}

// AssertAccessible runs axe-core on the page the browser shows, page naming it in the failure,
// and fails the test with each WCAG 2.1 A or AA violation: its rule, impact, help and the first
// elements it found. Without AXE_CORE_JS it fails under CI=true and skips otherwise. axe-core is
// evaluated through the DevTools protocol, which the console's CSP (no inline scripts) does not
// govern.
func (b *Browser) AssertAccessible(t testing.TB, page string) {
	t.Helper()
	src, err := axeCore()
	if err != nil {
		t.Fatalf("reading axe-core at AXE_CORE_JS: %v", err)
	}
	if src == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("AXE_CORE_JS is not set: scripts/test installs axe-core and sets it")
		}
		t.Skip("AXE_CORE_JS is not set (scripts/test installs axe-core and sets it): no accessibility check")
	}
	ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
	defer cancel()
	run := fmt.Sprintf(`(window.axe ? Promise.resolve() : Promise.resolve((0, eval)(%q)))
		.then(() => axe.run(document, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']}))
		.then(r => ({passes: r.passes.length, incomplete: r.incomplete.map(v => v.id),
			violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
				nodes: v.nodes.map(n => ({target: n.target, failureSummary: n.failureSummary}))}))}))`,
		src, "['"+strings.Join(WCAGTags, "','")+"']")
	result, err := chromedp.Run(ctx, chromedp.Evaluate[axeResult](run, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe-core on %s: %v", page, err)
	}
	// What axe-core cannot decide (a contrast over an image, say) is left to a person.
	t.Logf("axe-core on %s: %d rules passed, to check by hand: %v", page, result.Passes, result.Incomplete)
	violations := result.Violations
	if len(violations) == 0 {
		return
	}
	b.Screenshot("inaccessible-" + strings.ReplaceAll(page, " ", "-"))
	var report strings.Builder
	for _, v := range violations {
		fmt.Fprintf(&report, "\n  %s (%s): %s, %d element(s)", v.ID, v.Impact, v.Help, len(v.Nodes))
		for i, n := range v.Nodes {
			if i == 3 {
				fmt.Fprintf(&report, "\n    ...")
				break
			}
			fmt.Fprintf(&report, "\n    %v: %s", n.Target, strings.ReplaceAll(n.Summary, "\n", " "))
		}
	}
	t.Errorf("%s: %d WCAG 2.1 A/AA violation(s):%s", page, len(violations), report.String())
}
