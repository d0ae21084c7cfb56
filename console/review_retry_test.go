package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/console"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// fakeAPI stands in for the API's handler: it answers the reads of one paid venue booking
// ("b-1" at venue "hall") and times out (503 timeout, "safe to retry", as api/errors.go answers
// a deadline) the first time each money route is called, recording every Idempotency-Key sent.
type fakeAPI struct {
	mu   sync.Mutex
	keys map[string][]string // by route: refunds, desk-payments
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	booking := domain.Booking{ID: "b-1", CustomerID: "walk-in:+3612345678", VenueID: "hall", Status: domain.StatusConfirmed,
		Paid: 4000, TimeZone: "UTC", Price: domain.Price{Currency: "EUR", Total: 6000}}
	write := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	switch path := strings.TrimPrefix(r.URL.Path, "/api/v1"); {
	case path == "/staff/sites":
		write(map[string]any{"sites": []db.SiteSummary{{Kind: "venue", ID: "hall", Name: "Hall", TimeZone: "UTC",
			Resources: []db.ResourceSummary{}}}})
	case path == "/staff/bookings/b-1":
		write(struct {
			domain.Booking
			Money db.MoneySummary `json:"money"`
		}{booking, db.MoneySummary{Currency: "EUR", Paid: 4000, Due: 2000}})
	case path == "/staff/bookings/b-1/payments":
		write(map[string]any{"payments": []db.PaymentRecord{{PaymentID: "desk-1", Amount: 4000, Currency: "EUR",
			Status: "succeeded", ReceivedAt: time.Now(), Method: "cash", TakenBy: "desk-1"}}, "refunds": []any{}})
	case path == "/staff/bookings/b-1/history":
		write(map[string]any{"changes": []any{}, "staffActions": []any{}})
	case path == "/staff/bookings/b-1/refunds", path == "/staff/bookings/b-1/desk-payments":
		route := path[strings.LastIndex(path, "/")+1:]
		f.mu.Lock()
		f.keys[route] = append(f.keys[route], r.Header.Get("Idempotency-Key"))
		first := len(f.keys[route]) == 1
		f.mu.Unlock()
		if first {
			// The update's wait ran out; the workflow goes on and gives the refund (takes the
			// payment) all the same.
			w.WriteHeader(http.StatusServiceUnavailable)
			write(map[string]any{"error": map[string]string{"code": "timeout",
				"message": "the request took too long; it is safe to retry"}})
			return
		}
		write(struct {
			domain.Booking
			Money db.MoneySummary `json:"money"`
		}{booking, db.MoneySummary{Currency: "EUR", Paid: 4000}})
	default:
		w.WriteHeader(http.StatusNotFound)
		write(map[string]any{"error": map[string]string{"code": "not_found", "message": path}})
	}
}

// consoleOnFake mounts the console on fake and signs a front desk of venue hall in.
func consoleOnFake(t *testing.T, fake http.Handler) (*http.Client, string) {
	t.Helper()
	d := testsuite.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := echo.New()
	_, err := console.Mount(ctx, e, console.Config{API: fake, Pool: d.Pool, DevSignIn: true, InsecureCookie: true, Logger: quietLog()})
	require.NoError(t, err)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	_, page := fetch(t, client, http.MethodGet, srv.URL+"/console/sign-in", nil, "")
	res, _ := fetch(t, client, http.MethodPost, srv.URL+"/console/sign-in/dev", url.Values{"csrf": {csrfOf(t, page)},
		"subject": {"desk-1"}, "role": {"front_desk"}, "site": {"venue:hall"}}, "")
	require.Equal(t, http.StatusOK, res)
	return client, srv.URL
}

func fetch(t *testing.T, client *http.Client, method, u string, form url.Values, referer string) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if referer != "" {
		req.Header.Set("Referer", referer)
	}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	require.NotNil(t, m, "a CSRF field")
	return m[1]
}

// formKey is the idempotency key (starting with prefix) of a form posting to action on page.
func formKey(t *testing.T, page, action, prefix string) string {
	t.Helper()
	for _, m := range regexp.MustCompile(`action="`+regexp.QuoteMeta(action)+`">[^<]*<input type="hidden" name="csrf" value="[^"]+">\s*`+
		`<input type="hidden" name="key" value="([^"]+)">`).FindAllStringSubmatch(page, -1) {
		if strings.HasPrefix(m[1], prefix) {
			return m[1]
		}
	}
	t.Fatalf("no form to %s with a key %s...", action, prefix)
	return ""
}

// TestReviewMoneyRetriedAfterATimeoutKeepsItsKey: a refund (or a desk payment) the API timed out
// on ("busy ... it is safe to retry": the workflow goes on and moves the money) is tried again
// the way the console's error page offers: Back to the booking, the same form again. The retry
// must carry the same Idempotency-Key, or the API moves the money a second time. The console
// draws a new key on every page, so the retry is a second refund (a second desk payment).
func TestReviewMoneyRetriedAfterATimeoutKeepsItsKey(t *testing.T) {
	t.Parallel()
	fake := &fakeAPI{keys: map[string][]string{}}
	client, base := consoleOnFake(t, fake)
	bookingURL := base + "/console/bookings/b-1"

	for _, c := range []struct{ route, prefix string }{{"refunds", "refund-"}, {"desk-payments", "pay-"}} {
		action := "/console/bookings/b-1/" + c.route
		for attempt := 0; attempt < 2; attempt++ {
			status, page := fetch(t, client, http.MethodGet, bookingURL, nil, "")
			require.Equal(t, http.StatusOK, status, page)
			form := url.Values{"csrf": {csrfOf(t, page)}, "key": {formKey(t, page, action, c.prefix)}, "currency": {"EUR"},
				"amount": {"10.00"}, "reason": {"guest complained"}, "method": {"cash"}}
			status, page = fetch(t, client, http.MethodPost, base+action, form, bookingURL)
			if attempt == 0 {
				require.Equal(t, http.StatusServiceUnavailable, status, page)
				assert.Contains(t, page, "try again", "the page tells the desk to try again")
				assert.Contains(t, page, `href="`+bookingURL+`"`, "and offers the way back to the booking")
			}
		}
		keys := fake.keys[c.route]
		require.Len(t, keys, 2)
		assert.Equal(t, keys[0], keys[1], "%s: the retry of the same 10.00 after the timeout is sent under a new key, "+
			"so the API takes it as a second one", c.route)
	}
}
