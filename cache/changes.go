package cache

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Changes tells a process whether any inventory change has committed since a moment it noted:
// it listens to the outbox's commit notifications and counts them. The API uses it to repeat a
// "sold out" it has just verified without asking Redis and PostgreSQL again, until the next
// change anywhere.
type Changes struct {
	Pool *pgxpool.Pool // for LISTEN

	generation atomic.Uint64 // bumped by every notification, and whenever listening starts or stops
	listening  atomic.Bool
}

// Run listens until ctx ends.
func (c *Changes) Run(ctx context.Context) {
	listenChanges(ctx, c.Pool, func() { c.generation.Add(1) }, func(on bool) {
		c.generation.Add(1)
		c.listening.Store(on)
	})
	c.listening.Store(false)
}

// Generation is the count of changes seen so far. ok is false while not listening: a change may
// then commit unseen, so nothing noted can be vouched for.
func (c *Changes) Generation() (gen uint64, ok bool) {
	if c == nil {
		return 0, false
	}
	// Read the count first: a listener lost after this read bumps it, so the note is stale.
	gen = c.generation.Load()
	return gen, c.listening.Load()
}
