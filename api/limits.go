package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/telemetry"
)

// HoldLimits keep one customer or one client from hoarding rooms. Each refusal is 429 with
// Retry-After; a zero field is no limit.
type HoldLimits struct {
	// MaxActive is how many unexpired holds one customer may have at once (MAX_ACTIVE_HOLDS).
	// The reservation transaction enforces it under a per-customer lock; the API refuses early
	// what it can see, without starting a workflow.
	MaxActive int
	// PerCustomerPerMinute and PerAddressPerMinute bound how fast holds are created, per
	// customer and per client address, with bursts of the same size (HOLD_RATE_PER_CUSTOMER,
	// HOLD_RATE_PER_ADDRESS). With the cache they are counted in Redis, across every API
	// process; without it, or while Redis does not answer, per API process. A retry answered from
	// a booking already made creates nothing and spends no customer's rate; the address's counts
	// every attempt, before any read, and so bounds retries too.
	PerCustomerPerMinute int
	PerAddressPerMinute  int
	// PerHotelPerSecond bounds how fast holds are made at one hotel, across every API process
	// (in Redis; HOLD_RATE_PER_HOTEL). Without the cache, or with Redis down, it is not applied.
	PerHotelPerSecond int
}

// holdRateLimits are the rate limits on creating holds, per client address (every attempt)
// and per customer (not a retry of a booking already made, see repeatsBooking).
func (s *Server) holdRateLimits() []echo.MiddlewareFunc {
	var out []echo.MiddlewareFunc
	perMinute := func(n int, who string, id func(echo.Context) string, skip func(echo.Context) bool) {
		if n <= 0 {
			return
		}
		out = append(out, perMinuteLimit(who, n, s.newRateCounter(who, n), id, skip, func() error {
			telemetry.GateRefusals.WithLabelValues("rate_limited_"+who, "").Inc()
			return newError(http.StatusTooManyRequests, "rate_limited", "too many holds created from this %s: at most %d a minute", who, n)
		}))
	}
	perMinute(s.cfg.HoldLimits.PerAddressPerMinute, "address", func(c echo.Context) string { return addressKey(c.RealIP()) },
		func(echo.Context) bool { return false })
	perMinute(s.cfg.HoldLimits.PerCustomerPerMinute, "customer", func(c echo.Context) string { return principal(c).Subject },
		s.repeatsBooking)
	return out
}

// repeatsKey is where repeatsBooking notes that a hold request repeats a booking already made.
const repeatsKey = "bookflow.repeatsBooking"

// repeatsBooking reports whether a hold request of a customer or an agent (whose bookings'
// customer and creator are the token's subject) repeats one already made: the booking its
// Idempotency-Key names exists. Such a retry is answered with that booking and creates nothing.
// A lookup that fails, or finds no room in time (gateRead), answers no: the request counts.
// A yes is noted for the later checks of the same request (knownRepeat).
func (s *Server) repeatsBooking(c echo.Context) bool {
	key := c.Request().Header.Get("Idempotency-Key")
	if domain.ValidateIdempotencyKey(key) != nil {
		return false // refused as malformed anyway
	}
	ctx := c.Request().Context()
	sub := principal(c).Subject
	id := domain.BookingID(s.cfg.BookingIDKey, sub, sub, key)
	var err error
	found := s.gateRead(ctx, func() { _, err = s.store.GetBooking(ctx, id) }) && err == nil
	if found {
		c.Set(repeatsKey, id)
	}
	return found
}

// knownRepeat reports whether repeatsBooking found that this request, for booking id, repeats
// one already made. A no is never kept: the booking may have been made since.
func knownRepeat(c echo.Context, id string) bool {
	found, _ := c.Get(repeatsKey).(string)
	return found != "" && found == id
}

// checkActiveHolds refuses a new hold when the customer already has MaxActive unexpired holds.
// A retry of a booking already made is not refused: it is answered as any retry. venue says the
// hold is a venue order's (for the refusal's wording).
func (s *Server) checkActiveHolds(c echo.Context, customerID, bookingID string, venue bool) error {
	if s.cfg.HoldLimits.MaxActive <= 0 {
		return nil
	}
	if knownRepeat(c, bookingID) {
		return nil
	}
	ctx := c.Request().Context()
	if _, err := s.store.GetBooking(ctx, bookingID); !errors.Is(err, domain.ErrNotFound) {
		return err // made already (nil), or the database failed
	}
	n, _, err := s.store.ActiveHolds(ctx, customerID, bookingID)
	if err != nil {
		return err
	}
	if n < s.cfg.HoldLimits.MaxActive {
		return nil
	}
	return s.tooManyHolds(c, customerID, venue)
}

// tooManyHolds is the 429 for a customer at the active-hold limit; Retry-After is when their
// first hold expires. A venue order's refusal does not speak of rooms.
func (s *Server) tooManyHolds(c echo.Context, customerID string, venue bool) error {
	wait := time.Minute
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), 5*time.Second)
	defer cancel()
	if _, first, err := s.store.ActiveHolds(ctx, customerID, ""); err == nil && !first.IsZero() {
		wait = time.Until(first)
	}
	c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	telemetry.GateRefusals.WithLabelValues("too_many_holds", "").Inc()
	held := "you already hold rooms in %d unpaid bookings"
	if venue {
		held = "you already have %d unpaid bookings on hold"
	}
	return newError(http.StatusTooManyRequests, "too_many_holds",
		held+": pay for or cancel one, or wait for one to expire", s.cfg.HoldLimits.MaxActive)
}

// addressKey is the per-address limit's key: an IPv4 address, or an IPv6 address's /64 (one
// subscriber's network gets a /64 or more, so single IPv6 addresses are free to make).
func addressKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil || addr.Is4() || addr.Is4In6() {
		return ip
	}
	prefix, _ := addr.Prefix(64)
	return prefix.String()
}
