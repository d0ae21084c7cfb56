package api_test

import (
	"bytes"
	"context"
	"fmt"
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
		res := postHold(t, servers[i%len(servers)], token, i)
		if res.StatusCode != http.StatusTooManyRequests {
			allowed++
		}
	}
	return allowed
}

// postHold sends hold request i (its own Idempotency-Key) for a hotel that does not exist, so
// nothing is held and no workflow starts, and returns the answer with its body read.
func postHold(t *testing.T, srv *httptest.Server, token string, i int) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/bookings", bytes.NewReader([]byte(
		`{"hotelId":"no-such-hotel","roomTypeId":"double","checkIn":"2030-06-01","checkOut":"2030-06-02","quantity":1}`)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "k-"+strconv.Itoa(i))
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	return res
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

// TestHoldRatesSayWhereTheCallerStands: every counted hold request carries the IETF draft's
// RateLimit-Policy (the allowance) and RateLimit (what is left, and when it is whole again) for
// each limit on the route, counted in Redis or in the process alike; a refusal adds Retry-After.
func TestHoldRatesSayWhereTheCallerStands(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		cache *cache.Units
	}{{"in Redis", testsuite.NewCache(t, testsuite.RedisURL())}, {"in the process", nil}} {
		servers, token := apiProcesses(t, 1, c.cache, api.HoldLimits{PerCustomerPerMinute: 3, PerAddressPerMinute: 10})
		for i, left := range []int{2, 1, 0, 0} {
			res := postHold(t, servers[0], token, i)
			assert.Equal(t, []string{`"address";q=10;w=60`, `"customer";q=3;w=60`}, res.Header.Values("RateLimit-Policy"), c.name)
			limits := res.Header.Values("RateLimit")
			require.Len(t, limits, 2, c.name)
			assert.Regexp(t, fmt.Sprintf(`^"address";r=%d;t=[0-9]+$`, 9-i), limits[0], "%s, request %d", c.name, i+1)
			assert.Regexp(t, fmt.Sprintf(`^"customer";r=%d;t=[1-9][0-9]*$`, left), limits[1], "%s, request %d", c.name, i+1)
			if i < 3 {
				assert.NotEqual(t, http.StatusTooManyRequests, res.StatusCode, "%s, request %d", c.name, i+1)
				continue
			}
			assert.Equal(t, http.StatusTooManyRequests, res.StatusCode, c.name)
			wait, err := strconv.Atoi(res.Header.Get("Retry-After"))
			require.NoError(t, err, c.name)
			assert.True(t, wait >= 1 && wait <= 20, "%s: about a third of a minute for the next one: %d", c.name, wait)
		}
	}
}
