package api_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// holdsAllowed sends n hold requests for customer, by turns to each API process, and counts the
// ones the rate limits let through (answered anything but 429: the hotel does not exist, so
// nothing is held and no workflow starts).
func holdsAllowed(t *testing.T, servers []*httptest.Server, token string, n int) int {
	t.Helper()
	allowed := 0
	for i := range n {
		req, err := http.NewRequest(http.MethodPost, servers[i%len(servers)].URL+"/api/v1/bookings", bytes.NewReader([]byte(
			`{"hotelId":"no-such-hotel","roomTypeId":"double","checkIn":"2030-06-01","checkOut":"2030-06-02","quantity":1}`)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "k-"+strconv.Itoa(i))
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusTooManyRequests {
			allowed++
		}
	}
	return allowed
}

// apiProcesses starts n API processes on one database, with the cache when c is not nil.
func apiProcesses(t *testing.T, n int, c *cache.Units, limits api.HoldLimits) ([]*httptest.Server, string) {
	t.Helper()
	d := testsuite.NewDatabase(t)
	secret := []byte("a-test-secret-of-at-least-32-bytes!")
	verifier, err := auth.NewVerifier(context.Background(), auth.Config{Secret: secret})
	require.NoError(t, err)
	var servers []*httptest.Server
	for range n {
		e := api.New(d.Store, nil, api.Config{Auth: verifier, BookingIDKey: []byte("ids"), HoldLimits: limits, Cache: c,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		srv := httptest.NewServer(e)
		t.Cleanup(srv.Close)
		servers = append(servers, srv)
	}
	token, err := auth.Mint(secret, domain.Principal{Subject: "alice", Roles: []domain.Role{domain.RoleCustomer}}, time.Hour,
		auth.MintOptions{})
	require.NoError(t, err)
	return servers, token
}

// TestTwoAPIProcessesTogetherAllowOnePerCustomerRate: with the cache, the per-customer and
// per-address hold rates are counted in Redis, so two API processes together let through what
// one would. The control: without the cache each process counts alone, and two let twice as
// many through.
func TestTwoAPIProcessesTogetherAllowOnePerCustomerRate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		limits api.HoldLimits
	}{
		{"per customer", api.HoldLimits{PerCustomerPerMinute: 4}},
		{"per address", api.HoldLimits{PerAddressPerMinute: 4}},
	} {
		shared, token := apiProcesses(t, 2, testsuite.NewCache(t, testsuite.RedisURL()), c.limits)
		assert.Equal(t, 4, holdsAllowed(t, shared, token, 12), "%s: two processes sharing Redis allow one allowance", c.name)
		alone, token := apiProcesses(t, 2, nil, c.limits)
		assert.Equal(t, 8, holdsAllowed(t, alone, token, 12), "%s, the control: each process alone allows its own", c.name)
	}
}

// TestAHoldRateFallsBackToTheProcessWhenRedisIsDown: with Redis unreachable the limit still
// holds, counted by the process (a hold is never refused because Redis is down).
func TestAHoldRateFallsBackToTheProcessWhenRedisIsDown(t *testing.T) {
	t.Parallel()
	down, err := cache.New("redis://127.0.0.1:1/0", "down:")
	require.NoError(t, err)
	t.Cleanup(func() { _ = down.Redis.Close() })
	servers, token := apiProcesses(t, 1, down, api.HoldLimits{PerCustomerPerMinute: 3})
	assert.Equal(t, 3, holdsAllowed(t, servers, token, 6))
}
