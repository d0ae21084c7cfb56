package worker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/suppliers"
)

// Defaults of the EventSender's settings left zero.
const (
	DefaultEventPoll         = time.Second
	DefaultEventFirstBackoff = 10 * time.Second
	DefaultEventMaxBackoff   = time.Hour
	DefaultEventRetryFor     = 24 * time.Hour
	eventBatch               = 16 // one subscriber's deliveries sent at once
	// eventTimeout bounds one attempt; the lease outlasts it, so no other sender takes the
	// delivery while an attempt may still be under way.
	eventTimeout = 10 * time.Second
	eventLease   = 3 * eventTimeout
)

// EventSender delivers the integrator events the database queued (db.EventDelivery) to their
// subscribers: signed like the agents' webhooks (Bookflow-Signature, with every secret the
// subscriber honours), at least once, each booking's in order, retried with backoff for
// RetryFor and then parked for an operator to redeliver; delivered and parked ones are deleted
// after Retention.
type EventSender struct {
	Store  *db.Store
	Client *http.Client // http.DefaultClient's transport with eventTimeout when nil
	// Poll is how often due deliveries are looked for; FirstBackoff the wait after a first
	// failed attempt, doubling up to MaxBackoff; RetryFor how long a delivery is retried.
	Poll, FirstBackoff, MaxBackoff, RetryFor time.Duration
	// Retention is how long a delivered or parked delivery is kept (Prune).
	Retention time.Duration
	Logger    *slog.Logger
	Now       func() time.Time
}

// Run delivers until ctx ends: each subscriber with deliveries due is worked through on its own,
// so one that does not answer holds back nobody else.
func (s *EventSender) Run(ctx context.Context) {
	s.defaults()
	var mu sync.Mutex
	busy := map[string]bool{}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.pruneEvery(ctx)
	}()
	for ctx.Err() == nil {
		due, err := s.Store.DueEventSubscribers(ctx)
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("integrator events: looking for due deliveries failed; retrying", "err", err)
		}
		for _, sub := range due {
			mu.Lock()
			started := !busy[sub]
			busy[sub] = true
			mu.Unlock()
			if !started {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.drain(ctx, sub)
				mu.Lock()
				delete(busy, sub)
				mu.Unlock()
			}()
		}
		select {
		case <-ctx.Done():
		case <-time.After(s.Poll):
		}
	}
}

// drain sends the subscriber's due deliveries until none is left.
func (s *EventSender) drain(ctx context.Context, subscriber string) {
	for ctx.Err() == nil {
		n, err := s.Once(ctx, subscriber)
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("integrator events: round failed; retrying", "subscriber", subscriber, "err", err)
		}
		if err != nil || n < eventBatch {
			return
		}
	}
}

func (s *EventSender) defaults() {
	if s.Poll <= 0 {
		s.Poll = DefaultEventPoll
	}
	if s.FirstBackoff <= 0 {
		s.FirstBackoff = DefaultEventFirstBackoff
	}
	if s.MaxBackoff <= 0 {
		s.MaxBackoff = DefaultEventMaxBackoff
	}
	if s.RetryFor <= 0 {
		s.RetryFor = DefaultEventRetryFor
	}
	if s.Retention <= 0 {
		s.Retention = DefaultEventRetention
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Client == nil {
		s.Client = &http.Client{Timeout: eventTimeout}
	}
	if s.Client.CheckRedirect == nil {
		// A redirect is a failed attempt: the signed event goes only where the admin said.
		s.Client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
}

// Once sends the subscriber's deliveries due now, at once, and says how many it took.
func (s *EventSender) Once(ctx context.Context, subscriber string) (int, error) {
	s.defaults()
	due, err := s.Store.ClaimEventDeliveries(ctx, subscriber, eventBatch, eventLease)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	sub, err := s.Store.EventSubscriber(ctx, subscriber)
	if err != nil {
		return len(due), err // the lease brings them back
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(due))
	for _, d := range due {
		wg.Add(1)
		go func() {
			defer wg.Done()
			attempt := s.send(ctx, sub, d)
			if attempt.Err != nil {
				s.Logger.Info("integrator event not delivered", "subscriber", sub.ID, "event", d.EventID,
					"attempt", d.Attempts+1, "err", attempt.Err)
			}
			errs <- s.Store.RecordDeliveryAttempt(ctx, d.ID, attempt, s.backoff(d.Attempts+1), s.RetryFor)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return len(due), err
		}
	}
	return len(due), nil
}

// backoff is the wait after the nth failed attempt: FirstBackoff doubled n-1 times, at most
// MaxBackoff.
func (s *EventSender) backoff(n int) time.Duration {
	b := s.FirstBackoff
	for i := 1; i < n && b < s.MaxBackoff; i++ {
		b *= 2
	}
	return min(b, s.MaxBackoff)
}

// send makes one attempt: a 2xx answer delivers it.
func (s *EventSender) send(ctx context.Context, sub db.EventSubscriber, d db.EventDelivery) db.DeliveryAttempt {
	ctx, cancel := context.WithTimeout(ctx, eventTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(d.Payload))
	if err != nil {
		return db.DeliveryAttempt{Err: err}
	}
	now := s.Now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "bookflow-events")
	req.Header.Set(EventIDHeader, d.EventID)
	req.Header.Set("Bookflow-Event-Type", d.Type)
	req.Header.Set("Bookflow-Delivery-Attempt", strconv.Itoa(d.Attempts+1))
	req.Header.Set(suppliers.SignatureHeader, suppliers.SignAll(d.Payload, sub.Secrets(now), now))
	res, err := s.Client.Do(req)
	if err != nil {
		return db.DeliveryAttempt{Err: err}
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 != 2 {
		if res.StatusCode/100 == 3 {
			return db.DeliveryAttempt{Status: res.StatusCode, Err: fmt.Errorf("answered %s: redirects are not followed", res.Status)}
		}
		return db.DeliveryAttempt{Status: res.StatusCode, Err: fmt.Errorf("answered %s", res.Status)}
	}
	return db.DeliveryAttempt{Status: res.StatusCode}
}

// EventIDHeader names the event a delivery carries: the same on every attempt and redelivery,
// so a subscriber tells a repeat from a new event.
const EventIDHeader = "Bookflow-Event-Id"
