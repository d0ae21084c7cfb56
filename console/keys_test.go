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

// TestMoneyRetriedAfterATimeoutKeepsItsKey: a refund (or a desk payment) the API timed out
// on ("busy ... it is safe to retry": the workflow goes on and moves the money) is tried again
// the way the console's error page offers: Back to the booking, the same form again. The retry
// must carry the same Idempotency-Key, or the API moves the money a second time. The console
// draws a new key on every page, so the retry is a second refund (a second desk payment).
func TestMoneyRetriedAfterATimeoutKeepsItsKey(t *testing.T) {
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

// sharedKeyAPI stands in for the API for a hotel's walk-ins and finance's manual refunds: the
// first request for one target ("slow": guest phone +1111 or payment p-slow) times out (503, safe
// to retry: the API goes on and books the rooms / records the refund), every other request is
// done. It records each Idempotency-Key sent, by target.
type sharedKeyAPI struct {
	mu   sync.Mutex
	keys map[string][]string // by target: phone, or payment id
}

func (f *sharedKeyAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	write := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	answer := func(target, slow string, done any) {
		f.mu.Lock()
		f.keys[target] = append(f.keys[target], r.Header.Get("Idempotency-Key"))
		first := len(f.keys[target]) == 1
		f.mu.Unlock()
		if first && target == slow {
			w.WriteHeader(http.StatusServiceUnavailable)
			write(map[string]any{"error": map[string]string{"code": "timeout", "message": "the request took too long; it is safe to retry"}})
			return
		}
		write(done)
	}
	switch path := strings.TrimPrefix(r.URL.Path, "/api/v1"); {
	case path == "/staff/sites":
		write(map[string]any{"sites": []db.SiteSummary{{Kind: "hotel", ID: "inn", Name: "Inn", TimeZone: "UTC",
			Resources: []db.ResourceSummary{{ID: "double", Kind: "room", Unit: "room"}}}}})
	case path == "/staff/bookings" && r.Method == http.MethodGet:
		write(map[string]any{"bookings": []any{}})
	case path == "/staff/sites/inn/due-at-the-desk":
		write(map[string]any{"refunds": []any{}})
	case path == "/staff/bookings" && r.Method == http.MethodPost:
		var body struct {
			Phone string `json:"phone"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		answer(body.Phone, "+1111", domain.Booking{ID: "b-" + strings.TrimPrefix(body.Phone, "+"), HotelID: "inn"})
	case strings.HasPrefix(path, "/staff/payments/") && strings.HasSuffix(path, "/manual-refunds"):
		payment := strings.TrimSuffix(strings.TrimPrefix(path, "/staff/payments/"), "/manual-refunds")
		answer(payment, "p-slow", map[string]any{"paymentId": payment})
	default:
		w.WriteHeader(http.StatusNotFound)
		write(map[string]any{"error": map[string]string{"code": "not_found", "message": path}})
	}
}

// consoleSignedIn mounts the console on fake and signs in a person of role (at site, for a front
// desk), with a client that does not follow redirects.
func consoleSignedIn(t *testing.T, fake http.Handler, role, site string) (*http.Client, string) {
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
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, page := fetch(t, client, http.MethodGet, srv.URL+"/console/sign-in", nil, "")
	res, _ := fetch(t, client, http.MethodPost, srv.URL+"/console/sign-in/dev", url.Values{"csrf": {csrfOf(t, page)},
		"subject": {"staff-1"}, "role": {role}, "site": {site}}, "")
	require.Equal(t, http.StatusSeeOther, res)
	return client, srv.URL
}

var hiddenKey = regexp.MustCompile(`name="key" value="([^"]+)"`)

// pageKey draws page and reads its one form's idempotency key and CSRF token.
func pageKey(t *testing.T, client *http.Client, u string) (key, csrf string) {
	t.Helper()
	status, page := fetch(t, client, http.MethodGet, u, nil, "")
	require.Equal(t, http.StatusOK, status, page)
	m := hiddenKey.FindStringSubmatch(page)
	require.NotNil(t, m, "a form with a key on %s", u)
	return m[1], csrfOf(t, page)
}

// TestWalkInRetryKeepsItsKeyAcrossAnotherGuest: the hotel walk-in form's key is one per
// hotel ("walk-in:<hotel>"), not per guest. Guest A's walk-in times out (the API books the rooms
// all the same); while A waits the desk books guest B from the same page, which the API answers,
// and settle forgets the hotel's key. A's walk-in sent again, as the error page offers, then goes
// under a new key: a second booking of A's rooms.
func TestWalkInRetryKeepsItsKeyAcrossAnotherGuest(t *testing.T) {
	t.Parallel()
	fake := &sharedKeyAPI{keys: map[string][]string{}}
	client, base := consoleSignedIn(t, fake, "front_desk", "hotel:inn")
	day, action := base+"/console/hotels/inn/day", base+"/console/hotels/inn/walk-in"
	walkIn := func(phone string) int {
		key, csrf := pageKey(t, client, day)
		status, _ := fetch(t, client, http.MethodPost, action, url.Values{"csrf": {csrf}, "key": {key}, "roomTypeId": {"double"},
			"checkIn": {"2026-12-01"}, "nights": {"1"}, "quantity": {"1"}, "phone": {phone}, "name": {"Guest"}}, day)
		return status
	}
	require.Equal(t, http.StatusServiceUnavailable, walkIn("+1111"), "A's walk-in timed out")
	require.Equal(t, http.StatusSeeOther, walkIn("+2222"), "B's walk-in was booked")
	walkIn("+1111") // A's again, after the timeout
	keys := fake.keys["+1111"]
	require.Len(t, keys, 2)
	assert.Equal(t, keys[0], keys[1], "guest A's walk-in retried after its timeout is sent under a new key because "+
		"guest B's answer settled the hotel's one key: the API books A's rooms twice")
}

// TestManualRefundRetryKeepsItsKeyAcrossAnotherPayment: the manual refund form's key is
// one per session ("manual-refund"), not per payment. A manual refund of payment p-slow times out
// (the API records it all the same); finance records one of payment p-other meanwhile, whose
// answer forgets the key. p-slow's refund sent again then goes under a new key: recorded twice,
// and the invariant checker counts twice the money given back.
func TestManualRefundRetryKeepsItsKeyAcrossAnotherPayment(t *testing.T) {
	t.Parallel()
	fake := &sharedKeyAPI{keys: map[string][]string{}}
	client, base := consoleSignedIn(t, fake, "finance", "")
	form := base + "/console/finance/manual-refunds"
	refund := func(payment string) int {
		key, csrf := pageKey(t, client, form+"?payment="+payment)
		status, _ := fetch(t, client, http.MethodPost, form, url.Values{"csrf": {csrf}, "key": {key}, "payment": {payment},
			"currency": {"EUR"}, "amount": {"25.00"}, "method": {"bank_transfer"}, "reference": {"T-1"}, "reason": {"unmatched"}}, form)
		return status
	}
	require.Equal(t, http.StatusServiceUnavailable, refund("p-slow"), "p-slow's refund timed out")
	require.Equal(t, http.StatusSeeOther, refund("p-other"), "p-other's refund was recorded")
	refund("p-slow")
	keys := fake.keys["p-slow"]
	require.Len(t, keys, 2)
	assert.Equal(t, keys[0], keys[1], "p-slow's manual refund retried after its timeout is sent under a new key because "+
		"p-other's answer settled the one manual-refund key: the API records it twice")
}

// reusedKeyAPI answers b-1's reads as fakeAPI does; its desk payments time out the first time
// (the payment is taken all the same), then answer what the API answers a key sent again with
// another payment (422 idempotency_key_reused: the key's first payment was taken), then take.
type reusedKeyAPI struct {
	fakeAPI
	mu   sync.Mutex
	sent []string // Idempotency-Key, method
}

func (f *reusedKeyAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/desk-payments") {
		f.fakeAPI.ServeHTTP(w, r)
		return
	}
	var body struct {
		Method string `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.sent = append(f.sent, r.Header.Get("Idempotency-Key"))
	n := len(f.sent)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch n {
	case 1:
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "timeout",
			"message": "the request took too long; it is safe to retry"}})
	case 2:
		w.WriteHeader(http.StatusUnprocessableEntity)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "idempotency_key_reused",
			"message": "desk payment key " + f.sent[0] + " of booking b-1"}})
	default:
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "b-1"})
	}
}

// TestKeyReusedAnswerDoesNotForgetAnUnknownOutcome: a desk payment of 10.00 cash times
// out (the API takes it all the same). The desk sends it again from the booking (the same key,
// as it should), now as card: the API answers 422 idempotency_key_reused, which says the key's
// first payment WAS taken. settle takes every 4xx for "refused, nothing happened" and forgets the
// key, the page shows the API's English message naming the key, and the desk's next try goes
// under a new key: 10.00 taken twice, and nobody was told the first went through.
func TestKeyReusedAnswerDoesNotForgetAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	fake := &reusedKeyAPI{fakeAPI: fakeAPI{keys: map[string][]string{}}}
	client, base := consoleOnFake(t, fake)
	bookingURL, action := base+"/console/bookings/b-1", base+"/console/bookings/b-1/desk-payments"
	pay := func(method string) (int, string) {
		status, page := fetch(t, client, http.MethodGet, bookingURL, nil, "")
		require.Equal(t, http.StatusOK, status, page)
		form := url.Values{"csrf": {csrfOf(t, page)}, "key": {formKey(t, page, "/console/bookings/b-1/desk-payments", "pay-")},
			"currency": {"EUR"}, "amount": {"10.00"}, "method": {method}}
		return fetch(t, client, http.MethodPost, action, form, bookingURL)
	}
	status, _ := pay("cash")
	require.Equal(t, http.StatusServiceUnavailable, status)
	status, page := pay("card_terminal")
	require.Equal(t, http.StatusUnprocessableEntity, status)
	require.Len(t, fake.sent, 2)
	require.Equal(t, fake.sent[0], fake.sent[1], "the control: the retry after the timeout kept its key")
	// Fixed by telling, not by refusing every later payment: the desk learns the first payment
	// went through and sees the booking's money, so a payment it sends after that is one it means.
	assert.Contains(t, page, "went through", "after 'key reused' the desk is told the first payment was taken")
	assert.Contains(t, page, "paid EUR", "with how the booking stands now")
	assert.NotContains(t, page, fake.sent[0], "the key is not shown")
}

// okPayAPI answers b-1's reads as fakeAPI does and takes every desk payment, recording its key.
type okPayAPI struct {
	fakeAPI
	mu   sync.Mutex
	sent []string
}

func (f *okPayAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/desk-payments") {
		f.fakeAPI.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	f.sent = append(f.sent, r.Header.Get("Idempotency-Key"))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "b-1"})
}

// TestTwoTabsAreTwoPayments: the desk has booking b-1 open in two tabs (drawn before
// either form was sent) and takes 10.00 cash in each, the guest paying in two parts. formKey
// gives every page drawn the intent's one key, not only a page drawn after a timeout, so the
// second tab's payment goes under the first's key: the API answers it as the first payment sent
// again (taken before, 200), nothing is taken, and the console flashes "10.00 recorded" for it.
func TestTwoTabsAreTwoPayments(t *testing.T) {
	t.Parallel()
	fake := &okPayAPI{fakeAPI: fakeAPI{keys: map[string][]string{}}}
	client, base := consoleOnFake(t, fake)
	bookingURL, action := base+"/console/bookings/b-1", "/console/bookings/b-1/desk-payments"
	tab := func() url.Values {
		status, page := fetch(t, client, http.MethodGet, bookingURL, nil, "")
		require.Equal(t, http.StatusOK, status, page)
		return url.Values{"csrf": {csrfOf(t, page)}, "key": {formKey(t, page, action, "pay-")}, "currency": {"EUR"},
			"amount": {"10.00"}, "method": {"cash"}}
	}
	tab1, tab2 := tab(), tab()
	for _, form := range []url.Values{tab1, tab2} {
		status, page := fetch(t, client, http.MethodPost, base+action, form, bookingURL)
		require.Equal(t, http.StatusOK, status, page) // the client follows the redirect to the booking
	}
	require.Len(t, fake.sent, 2)
	assert.NotEqual(t, fake.sent[0], fake.sent[1], "the second tab's payment was sent under the first's key: "+
		"the API answers it as done and takes nothing")
}

// abandonedAPI is sharedKeyAPI whose hotel walk-ins are answered as the API answers a
// reservation that did not complete in time: 503 reservation_abandoned, "nothing is held for it:
// send the request again with a new Idempotency-Key". The same key again is answered the same.
type abandonedAPI struct{ sharedKeyAPI }

func (f *abandonedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || strings.TrimPrefix(r.URL.Path, "/api/v1") != "/staff/bookings" {
		f.sharedKeyAPI.ServeHTTP(w, r)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	f.mu.Lock()
	abandoned := len(f.keys["+3333"]) == 0 || f.keys["+3333"][0] == key
	f.keys["+3333"] = append(f.keys["+3333"], key)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if abandoned {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "reservation_abandoned",
			"message": "the reservation did not complete in time and nothing is held for it: send the request again with a new Idempotency-Key"}})
		return
	}
	_ = json.NewEncoder(w).Encode(domain.Booking{ID: "b-3333", HotelID: "inn"})
}

// TestAbandonedReservationGetsANewKey: settle keeps every 5xx's key for the retry, but
// the API's 503 reservation_abandoned says the key is spent ("send the request again with a new
// Idempotency-Key"). The desk's walk-in for the guest is sent again, as the page says, under the
// same key, abandoned again, and so on for the session's life: the guest cannot be booked.
func TestAbandonedReservationGetsANewKey(t *testing.T) {
	t.Parallel()
	fake := &abandonedAPI{sharedKeyAPI{keys: map[string][]string{}}}
	client, base := consoleSignedIn(t, fake, "front_desk", "hotel:inn")
	day, action := base+"/console/hotels/inn/day", base+"/console/hotels/inn/walk-in"
	walkIn := func() int {
		key, csrf := pageKey(t, client, day)
		status, _ := fetch(t, client, http.MethodPost, action, url.Values{"csrf": {csrf}, "key": {key}, "roomTypeId": {"double"},
			"checkIn": {"2026-12-01"}, "nights": {"1"}, "quantity": {"1"}, "phone": {"+3333"}, "name": {"Guest"}}, day)
		return status
	}
	require.Equal(t, http.StatusServiceUnavailable, walkIn(), "the first walk-in was abandoned")
	assert.Equal(t, http.StatusSeeOther, walkIn(), "sent again, it is abandoned again: its spent key was kept (keys %v)",
		fake.keys["+3333"])
}
