package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// fakeAPI answers pay's calls like bookflow does: the webhook's 200 comes first, and the
// booking is CONFIRMED only a few reads later, when its workflow has acted. The hold was never
// amended; terms are its plan's (nil: BAR's). types lists the events it received.
func fakeAPI(t *testing.T, terms ...*domain.PlanTerms) (addr string, webhooks func() int) {
	var mu sync.Mutex
	received, readsSince := 0, 0
	var types []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/webhooks/payments":
			received++
			var ev struct{ Type string }
			_ = json.NewDecoder(r.Body).Decode(&ev)
			types = append(types, ev.Type)
			_, _ = w.Write([]byte(`{"received":true}`))
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/staff/bookings/booking-1":
			b := domain.Booking{ID: "booking-1", Status: domain.StatusHold, Price: domain.Price{Total: 42000, Currency: "EUR"}}
			if len(terms) > 0 {
				b.PlanTerms = terms[0]
			}
			if received > 0 {
				if readsSince++; readsSince >= 3 {
					b.Status = domain.StatusConfirmed
					if types[0] == "payment_intent.succeeded" {
						b.Paid = 42000
					}
				}
			}
			_ = json.NewEncoder(w).Encode(b)
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/staff/bookings/booking-1/amendments":
			_, _ = w.Write([]byte(`{"amendments":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), func() int { mu.Lock(); defer mu.Unlock(); return received }
}

// TestPayFindsTheAPIDevRunsOn: with dev on another port (HTTP_ADDR given to dev, not to pay),
// pay sends its webhook there; HTTP_ADDR, when given to pay, wins.
func TestPayFindsTheAPIDevRunsOn(t *testing.T) {
	addr, webhooks := fakeAPI(t)
	record := filepath.Join(t.TempDir(), "dev-http-addr")
	saved := devAddrFile
	devAddrFile = func() string { return record }
	t.Cleanup(func() { devAddrFile = saved })
	cfg := Config{HTTPAddr: "127.0.0.1:1"} // the default, where nothing listens
	t.Setenv("HTTP_ADDR", "")

	defer recordDevAddr(addr)()
	var out strings.Builder
	require.NoError(t, pay(context.Background(), cfg, []string{"booking-1"}, &out))
	assert.Equal(t, 1, webhooks(), out.String())

	recordDevAddr("127.0.0.1:1")
	t.Setenv("HTTP_ADDR", addr)
	require.NoError(t, pay(context.Background(), Config{HTTPAddr: addr}, []string{"booking-1"}, &out))
	assert.Equal(t, 2, webhooks(), "HTTP_ADDR wins over dev's record")
}

// TestPayWaitsForTheOutcome: the webhook is answered before the workflow acts; pay says what
// the booking became, not what it was when the webhook answered.
func TestPayWaitsForTheOutcome(t *testing.T) {
	addr, _ := fakeAPI(t)
	t.Setenv("HTTP_ADDR", addr)
	var out strings.Builder
	require.NoError(t, pay(context.Background(), Config{HTTPAddr: addr}, []string{"booking-1"}, &out))
	assert.Contains(t, out.String(), "booking booking-1 is CONFIRMED (paid 42000 EUR)")
}

// TestPaySavesTheCardOfAPayAtHotelHold: a hold under a pay-at-hotel plan is not paid: pay sends
// the setup_intent.succeeded of its card, and the booking is confirmed with nothing paid.
func TestPaySavesTheCardOfAPayAtHotelHold(t *testing.T) {
	addr, webhooks := fakeAPI(t, &domain.PlanTerms{Payment: domain.PaymentRule{Kind: domain.PayAtHotel}})
	t.Setenv("HTTP_ADDR", addr)
	var out strings.Builder
	require.NoError(t, pay(context.Background(), Config{HTTPAddr: addr}, []string{"booking-1"}, &out))
	assert.Equal(t, 1, webhooks())
	assert.Contains(t, out.String(), "sent setup_intent.succeeded (a card saved as the guarantee) to booking booking-1: 200")
	assert.Contains(t, out.String(), "booking booking-1 is CONFIRMED (paid 0 EUR)")
}
