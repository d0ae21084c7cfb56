package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheLanguageSwitchWorksOnEveryPage: every page's header has the language switch, a
// form carrying the session's CSRF token. The pages drawn by renderPlainError (a path the
// console does not have, a refused form, the OpenID Connect errors) leave the token out, so the
// switch there posts an empty one and is refused as a forged form (403).
func TestTheLanguageSwitchWorksOnEveryPage(t *testing.T) {
	t.Parallel()
	client, base := consoleOnFake(t, &fakeAPI{keys: map[string][]string{}})
	field := regexp.MustCompile(`action="/console/language" class="inline">\s*<input type="hidden" name="csrf" value="([^"]*)">`)
	for _, c := range []struct{ name, path string }{{"a signed-in page (the control)", "/console/"},
		{"the 404 page", "/console/no-such-page"}} {
		_, page := fetch(t, client, http.MethodGet, base+c.path, nil, "")
		m := field.FindStringSubmatch(page)
		require.NotNil(t, m, "%s has the language switch", c.name)
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		status, _ := fetch(t, client, http.MethodPost, base+"/console/language",
			url.Values{"csrf": {m[1]}, "lang": {"zh-Hans"}, "next": {"/console/"}}, "")
		client.CheckRedirect = nil
		assert.Equal(t, http.StatusSeeOther, status, "the language switch of %s", c.name)
	}
}
