package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/testsuite"
)

// TestOneAPIProcessCountsTheSameWithAndWithoutRedis: holdRateLimits() is called once
// per hold route (room bookings, venue orders, agent bookings), and without the cache each call
// makes its own memory store, so each route has its own allowance. With the cache every route's
// sharedRate uses the one key bf:rate:<kind>:<id>, so room holds spend the venue orders'
// allowance. "Several API processes together allow what one does" then does not hold even for
// one process: turning the cache on changes what a single process allows. Here a customer spends
// their 4 room holds a minute, then orders at a venue: allowed without Redis, refused with it.
func TestOneAPIProcessCountsTheSameWithAndWithoutRedis(t *testing.T) {
	t.Parallel()
	venueOrderRefused := func(servers []*httptest.Server, token string) bool {
		require.Equal(t, 4, holdsAllowed(t, servers, token, 6), "room holds: 4 a minute")
		req, err := http.NewRequest(http.MethodPost, servers[0].URL+"/api/v1/venues/no-such-venue/bookings",
			bytes.NewReader([]byte(`{"lines":[]}`)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "venue-order-1")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		return res.StatusCode == http.StatusTooManyRequests
	}
	limits := api.HoldLimits{PerCustomerPerMinute: 4}
	alone, token := apiProcesses(t, 1, nil, limits)
	withoutRedis := venueOrderRefused(alone, token)
	shared, token := apiProcesses(t, 1, testsuite.NewCache(t, testsuite.RedisURL()), limits)
	withRedis := venueOrderRefused(shared, token)
	assert.Equal(t, withoutRedis, withRedis,
		"a venue order after 4 room holds: refused without Redis %v, with Redis %v", withoutRedis, withRedis)
}
