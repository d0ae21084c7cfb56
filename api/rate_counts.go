package api

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/bookflow/bookflow/cache"
)

// rateCount is one request's count against a per-minute allowance.
type rateCount struct {
	allowed   bool
	remaining int           // requests still allowed now
	reset     time.Duration // until the allowance is whole again
	retry     time.Duration // when refused: until the next request is allowed
}

// rateCounter counts requests by who makes them against one allowance.
type rateCounter interface {
	take(id string) rateCount
}

// perMinuteLimit refuses the requests past a per-minute allowance (bursts of the same size) of
// whoever id names (skip: requests not counted) with refused's error (a 429), and tells every
// counted request where it stands in the IETF draft's RateLimit and RateLimit-Policy headers,
// beside Retry-After on a refusal. Several limits on a route each add their item to both headers.
func perMinuteLimit(who string, perMinute int, counter rateCounter, id func(echo.Context) string,
	skip func(echo.Context) bool, refused func() error) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if skip(c) {
				return next(c)
			}
			n := counter.take(id(c))
			h := c.Response().Header()
			h.Add("RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=60", who, perMinute))
			h.Add("RateLimit", fmt.Sprintf("%q;r=%d;t=%d", who, n.remaining, ceilSeconds(n.reset, 0)))
			if n.allowed {
				return next(c)
			}
			h.Set("Retry-After", strconv.Itoa(ceilSeconds(n.retry, 1)))
			return refused()
		}
	}
}

func ceilSeconds(d time.Duration, least int) int { return max(least, int(math.Ceil(d.Seconds()))) }

// localRate counts an allowance of perMinute a minute in this process: a token bucket per id,
// forgotten once idle for localRateIdle.
type localRate struct {
	perMinute int
	mu        sync.Mutex
	buckets   map[string]*localBucket
	swept     time.Time
}

type localBucket struct {
	limiter *rate.Limiter
	used    time.Time
}

// localRateIdle is how long an idle id's bucket is kept: past it the bucket is full anyway.
const localRateIdle = 3 * time.Minute

func newLocalRate(perMinute int) *localRate {
	return &localRate{perMinute: perMinute, buckets: map[string]*localBucket{}, swept: time.Now()}
}

func (l *localRate) take(id string) rateCount {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > localRateIdle {
		for k, b := range l.buckets {
			if now.Sub(b.used) > localRateIdle {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[id]
	if b == nil {
		b = &localBucket{limiter: rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)}
		l.buckets[id] = b
	}
	b.used = now
	allowed := b.limiter.AllowN(now, 1)
	tokens := b.limiter.TokensAt(now)
	perToken := float64(time.Minute) / float64(l.perMinute)
	n := rateCount{allowed: allowed, remaining: max(0, int(tokens)),
		reset: time.Duration((float64(l.perMinute) - tokens) * perToken)}
	if !allowed {
		n.retry = time.Duration((1 - tokens) * perToken)
	}
	return n
}

// newRateCounter counts an allowance of perMinute a minute of kind: in Redis, across every API
// process, when the API has the cache, else in this process.
func (s *Server) newRateCounter(kind string, perMinute int) rateCounter {
	var counter rateCounter = newLocalRate(perMinute)
	if s.cfg.Cache != nil {
		counter = sharedRate{cache: s.cfg.Cache, kind: kind, perMinute: perMinute, local: counter, log: s.cfg.Logger}
	}
	return counter
}

// sharedRate counts a rate limit in Redis, so that N API processes allow what one does, not N
// times it. When Redis does not answer in time the process's own count (local) decides, as the
// gate fails open to PostgreSQL: a hold is never refused because Redis is down.
type sharedRate struct {
	cache     *cache.Units
	kind      string
	perMinute int
	local     rateCounter
	log       *slog.Logger
}

// sharedRateWarned is when a fallback to the process's count was last logged (unix nanoseconds).
var sharedRateWarned atomic.Int64

// sharedRateWait bounds how long a hold waits for Redis's count.
const sharedRateWait = 100 * time.Millisecond

func (r sharedRate) take(id string) rateCount {
	ctx, cancel := context.WithTimeout(context.Background(), sharedRateWait)
	defer cancel()
	n, err := r.cache.HoldRate(ctx, r.kind, id, r.perMinute)
	if err != nil {
		if last := sharedRateWarned.Load(); time.Since(time.Unix(0, last)) > time.Minute &&
			sharedRateWarned.CompareAndSwap(last, time.Now().UnixNano()) { // once a minute, not once a hold
			r.log.Warn("rate limit: Redis did not answer; each API process counts alone", "limit", r.kind, "err", err)
		}
		return r.local.take(id)
	}
	return rateCount{allowed: n.Allowed, remaining: n.Remaining, reset: n.ResetAfter, retry: n.RetryAfter}
}
