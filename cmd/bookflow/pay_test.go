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
// amended.
func fakeAPI(t *testing.T) (addr string, webhooks func() int) {
	var mu sync.Mutex
	received, readsSince := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/webhooks/payments":
			received++
			_, _ = w.Write([]byte(`{"received":true}`))
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/staff/bookings/booking-1":
			b := domain.Booking{ID: "booking-1", Status: domain.StatusHold, Price: domain.Price{Total: 42000, Currency: "EUR"}}
			if received > 0 {
				if readsSince++; readsSince >= 3 {
					b.Status, b.Paid = domain.StatusConfirmed, 42000
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
