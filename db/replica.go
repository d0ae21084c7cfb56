package db

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultMaxReplicaLag is how far a standby may trail the primary and still serve searches: a
// few seconds, as the hotel design allows searches to be stale.
const DefaultMaxReplicaLag = 5 * time.Second

// replicaLagEvery is how often a standby's lag is measured, at most.
const replicaLagEvery = time.Second

// replica is a standby that customers' searches read from while it trails the primary by at
// most maxLag. Anything that must see a write of its own (a booking just held, staff at work)
// reads the primary.
//
// The lag is judged against the primary's own WAL position, never the standby's word alone (a
// standby cut off from its primary still thinks it is caught up): every measure notes the
// primary's position, and the standby is close enough when it has replayed the oldest position
// the primary had within the last maxLag. No clocks of two machines are compared.
type replica struct {
	pool, primary *pgxpool.Pool
	maxLag        time.Duration

	mu     sync.Mutex // held while measuring
	seen   []walAt    // the primary's positions over the last maxLag, oldest first
	last   time.Time
	usable atomic.Bool
}

type walAt struct {
	at  time.Time
	lsn uint64
}

// ReadFrom lets customers' searches read from the standby pool while it trails the primary by
// at most maxLag (DefaultMaxReplicaLag when zero). A standby that cannot say, is not in
// recovery (a former standby promoted elsewhere), or trails further is not used until it
// catches up; one that stops answering sends its reads to the primary at once.
func (s *Store) ReadFrom(pool *pgxpool.Pool, maxLag time.Duration) {
	if maxLag <= 0 {
		maxLag = DefaultMaxReplicaLag
	}
	s.replica = &replica{pool: pool, primary: s.pool, maxLag: maxLag}
}

// reader is where a read that may be a little stale goes.
type reader interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func (s *Store) reads(ctx context.Context) reader {
	if r := s.replica; r != nil && ctx.Value(primaryKey{}) == nil && r.close(ctx) {
		return r
	}
	return s.pool
}

// Query reads the standby, or the primary when the standby does not answer.
func (r *replica) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := r.pool.Query(ctx, sql, args...)
	var pgErr *pgconn.PgError
	if err != nil && !errors.As(err, &pgErr) && ctx.Err() == nil { // not the query's fault: the standby's
		r.usable.Store(false)
		return r.primary.Query(ctx, sql, args...)
	}
	return rows, err
}

type primaryKey struct{}

// OnPrimary returns ctx whose reads all go to the primary: for a caller who must see its own
// writes at once (staff, who just closed a slot, set stock or took money).
func OnPrimary(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryKey{}, true)
}

// close reports whether the standby is close enough, measured at most once a replicaLagEvery;
// while one request measures, the others go by the last measure.
func (r *replica) close(ctx context.Context) bool {
	if !r.mu.TryLock() {
		return r.usable.Load()
	}
	defer r.mu.Unlock()
	if time.Since(r.last) < replicaLagEvery {
		return r.usable.Load()
	}
	r.last = time.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 200*time.Millisecond)
	defer cancel()
	usable, err := r.measure(ctx)
	r.usable.Store(err == nil && usable)
	return r.usable.Load()
}

func (r *replica) measure(ctx context.Context) (bool, error) {
	var primaryLSN string
	if err := r.primary.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&primaryLSN); err != nil {
		return false, err
	}
	now := time.Now()
	p, err := parseLSN(primaryLSN)
	if err != nil {
		return false, err
	}
	// The position the standby must have replayed: the oldest the primary had within the last
	// maxLag (so every write before then is on the standby), or its position now.
	keep := 0
	for keep < len(r.seen) && now.Sub(r.seen[keep].at) > r.maxLag {
		keep++
	}
	r.seen = append(r.seen[keep:], walAt{at: now, lsn: p})
	need := r.seen[0].lsn
	var replayed *string
	if err := r.pool.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&replayed); err != nil {
		return false, err
	}
	if replayed == nil {
		return false, nil // not in recovery: not a standby of this primary any more
	}
	s, err := parseLSN(*replayed)
	return err == nil && s >= need, err
}

// parseLSN reads a PostgreSQL WAL position, "16/B374D848".
func parseLSN(s string) (uint64, error) {
	var hi, lo uint32
	if _, err := fmt.Sscanf(s, "%X/%X", &hi, &lo); err != nil {
		return 0, fmt.Errorf("WAL position %q: %w", s, err)
	}
	return uint64(hi)<<32 | uint64(lo), nil
}
