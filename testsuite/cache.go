package testsuite

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/cache"
)

func init() {
	// go-redis logs every failed dial; the tests that take Redis down on purpose would drown
	// the output.
	redis.SetLogger(quietRedis{})
}

type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

// DefaultRedisURL is the Redis the tests use when TEST_REDIS_URL is not set. scripts/test sets
// it to the private Redis it starts.
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// RedisURL returns the Redis the tests use.
func RedisURL() string {
	if u := os.Getenv("TEST_REDIS_URL"); u != "" {
		return u
	}
	return DefaultRedisURL
}

// NewCache returns an availability cache on the tests' Redis whose keys no other test shares,
// removed when the test ends.
func NewCache(t testing.TB, url string) *cache.Units {
	t.Helper()
	c, err := cache.New(url, "test-"+randomHex(6)+":")
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx := context.Background()
		if keys, err := c.Redis.Keys(ctx, c.Prefix+"*").Result(); err == nil && len(keys) > 0 {
			c.Redis.Del(ctx, keys...)
		}
		_ = c.Redis.Close()
	})
	return c
}

// StartRelay runs the system's outbox relay (as the worker does) until StopRelay or the end of
// the test.
func (s *System) StartRelay(t testing.TB) {
	t.Helper()
	s.StopRelay()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.Relay = &cache.Relay{Store: s.DB.Store, Pool: s.DB.Pool, Cache: s.Cache, Poll: 50 * time.Millisecond, Logger: quietLogger()}
	go func() { defer close(done); s.Relay.Run(ctx) }()
	s.stopRelay = func() { cancel(); <-done }
	t.Cleanup(s.StopRelay)
}

// StopRelay stops the relay, as a worker down would: changes wait in the outbox.
func (s *System) StopRelay() {
	if s.stopRelay != nil {
		s.stopRelay()
		s.stopRelay = nil
	}
}
