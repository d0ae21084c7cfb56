package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// poller waits for bookings to reach a state that only the database shows (a booking confirmed
// by its workflow after the webhook was answered; a refund the provider made after the staff
// request was answered). One query every pollEvery asks for all the bookings waited for, so the
// bench adds a few statements a second to the database it measures, whatever the number of
// clients; their time, as the bench sees it, is kept to print beside the figures.
type poller struct {
	pool  *pgxpool.Pool
	query string // $1: the booking ids waited for; answers the ids that have arrived

	mu      sync.Mutex
	waiting map[string]chan struct{}
	polls   int
	spent   time.Duration // the polls' round trips
}

// pollEvery is how often a poller asks.
const pollEvery = 100 * time.Millisecond

func newPoller(ctx context.Context, pool *pgxpool.Pool, query string) *poller {
	p := &poller{pool: pool, query: query, waiting: map[string]chan struct{}{}}
	go p.run(ctx)
	return p
}

func (p *poller) run(ctx context.Context) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p.mu.Lock()
		ids := make([]string, 0, len(p.waiting))
		for id := range p.waiting {
			ids = append(ids, id)
		}
		p.mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		start := time.Now()
		rows, err := p.pool.Query(ctx, p.query, ids)
		if err != nil {
			continue // asked again next tick
		}
		var arrived []string
		for rows.Next() {
			var id string
			if rows.Scan(&id) == nil {
				arrived = append(arrived, id)
			}
		}
		rows.Close()
		p.mu.Lock()
		p.polls++
		p.spent += time.Since(start)
		for _, id := range arrived {
			if ch, ok := p.waiting[id]; ok {
				close(ch)
				delete(p.waiting, id)
			}
		}
		p.mu.Unlock()
	}
}

// after sends the request with send, then waits until id arrives (at most within).
func (p *poller) after(ctx context.Context, id string, within time.Duration, send func() error) error {
	ch := make(chan struct{})
	p.mu.Lock()
	p.waiting[id] = ch
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		delete(p.waiting, id)
		p.mu.Unlock()
	}
	if err := send(); err != nil {
		forget()
		return err
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		forget()
		return ctx.Err()
	case <-time.After(within):
		forget()
		return fmt.Errorf("booking %s: not there after %s", id, within)
	}
}

// take returns the polls made and their time since the last take, and starts again.
func (p *poller) take() (int, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, d := p.polls, p.spent
	p.polls, p.spent = 0, 0
	return n, d
}
