package console

import (
	"net/url"
	"strings"
	"testing"
)

// TestSafeNextNeverLeavesTheConsole: where sign-in, the language switch and the OIDC callback
// send the person is a console path of this site, whatever the next parameter says.
func TestSafeNextNeverLeavesTheConsole(t *testing.T) {
	kept := map[string]string{
		"/console":  "/console",
		"/console/": "/console/",
		"/console/venues/v-a/day?date=2026-12-01":           "/console/venues/v-a/day?date=2026-12-01",
		"/console/finance/report?site=hotel:grand-budapest": "/console/finance/report?site=hotel:grand-budapest",
	}
	for in, want := range kept {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want it kept as %q", in, got, want)
		}
	}
	refused := []string{
		"", "https://evil.example/console/", "http://evil.example", "//evil.example/console/",
		"///evil.example/console/", "/\\evil.example/console/", "\\\\evil.example\\console", "\\/evil.example/",
		"javascript:alert(1)", "console/", "evil.example/console", "/api/v1/admin/venues", "/consoleevil",
		"/console-admin", "/console/../api/v1/admin", "/console/%2e%2e/api/v1/admin", "/console/..",
		"/console/./../api", "https:/console/", "/console\x00", "/console\n/x", " //evil.example",
		"%2F%2Fevil.example", "/%2F%2Fevil.example/console",
	}
	for _, in := range refused {
		if got := safeNext(in); got != Prefix+"/" {
			t.Errorf("safeNext(%q) = %q, want the console's home", in, got)
		}
	}
	// Whatever comes out stays on the site once a browser resolves it (a browser reads a
	// backslash as a slash) and under the console.
	base, _ := url.Parse("https://console.example/console/sign-in")
	for _, in := range append(refused, "/console/a/../b", "/console//evil.example", "/console/\\evil.example",
		"/console@evil.example", "/console/?next=https://evil.example", "/console/#//evil.example") {
		out := safeNext(in)
		u, err := url.Parse(strings.ReplaceAll(out, "\\", "/"))
		if err != nil {
			t.Errorf("safeNext(%q) = %q, not a URL: %v", in, out, err)
			continue
		}
		if r := base.ResolveReference(u); r.Host != base.Host || r.Scheme != base.Scheme ||
			(r.Path != Prefix && !strings.HasPrefix(r.Path, Prefix+"/")) {
			t.Errorf("safeNext(%q) = %q, which a browser opens at %s", in, out, r)
		}
	}
}
