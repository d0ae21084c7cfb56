package testsuite_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// consoleCookie is the console's session cookie.
const consoleCookie = "bookflow_console"

// consoleClient is one browser's worth of the console over plain HTTP, for what a browser would
// not let a test do (replay a copied cookie, forge a header). It keeps the session cookie by hand:
// net/http/cookiejar sends no Secure cookie over http, and the console's is Secure. It follows
// no redirect, so a test sees each one.
type consoleClient struct {
	t      *testing.T
	sys    *testsuite.System
	Token  string       // the session cookie's value, "" for none
	Cookie *http.Cookie // the last session cookie the console set
	client *http.Client
}

func newConsoleClient(t *testing.T, sys *testsuite.System) *consoleClient {
	return &consoleClient{t: t, sys: sys, client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request to path (on the system, or an absolute URL) with form as its body when set,
// keeping the session cookie the answer sets; it returns the answer and its body.
func (c *consoleClient) do(method, path string, form url.Values, headers map[string]string) (*http.Response, string) {
	c.t.Helper()
	target := path
	if !strings.Contains(path, "://") {
		target = c.sys.URL + path
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	require.NoError(c.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.Token != "" && strings.HasPrefix(target, c.sys.URL) {
		req.AddCookie(&http.Cookie{Name: consoleCookie, Value: c.Token})
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.client.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	for _, ck := range res.Cookies() {
		if ck.Name == consoleCookie {
			c.Cookie = ck
			c.Token = ck.Value
			if ck.MaxAge < 0 {
				c.Token = ""
			}
		}
	}
	return res, string(raw)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of the first form on a page.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	require.NotNil(t, m, "no CSRF field on the page: %s", page)
	return m[1]
}

// devSignIn signs in with the development sign-in as a browser would: the page, then its form.
// It returns the CSRF token the signed-in session's pages carry.
func (c *consoleClient) devSignIn(subject, role, site string) string {
	c.t.Helper()
	res, page := c.do(http.MethodGet, "/console/sign-in", nil, nil)
	require.Equal(c.t, http.StatusOK, res.StatusCode, page)
	res, page = c.do(http.MethodPost, "/console/sign-in/dev", url.Values{"csrf": {csrf(c.t, page)},
		"subject": {subject}, "role": {role}, "site": {site}, "next": {"/console/"}}, nil)
	require.Equal(c.t, http.StatusSeeOther, res.StatusCode, page)
	require.Equal(c.t, "/console/", res.Header.Get("Location"))
	res, page = c.do(http.MethodGet, "/console/", nil, nil)
	require.Equal(c.t, http.StatusOK, res.StatusCode, page)
	require.Contains(c.t, page, subject)
	return csrf(c.t, page)
}

// sessionRow is the stored session of token: what it holds (decoded: gob writes a map in any
// order), and whether there is a row at all.
func sessionRow(t *testing.T, sys *testsuite.System, token string) (map[string]any, bool) {
	t.Helper()
	var data []byte
	err := sys.DB.Pool.QueryRow(context.Background(), `SELECT data FROM sessions WHERE token = $1`, token).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false
	}
	require.NoError(t, err)
	_, values, err := scs.GobCodec{}.Decode(data)
	require.NoError(t, err)
	return values, true
}
