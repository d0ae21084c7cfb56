package db

import (
	"context"
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

// replica is a standby that searches, slots and reports read from while it trails the primary by
// at most maxLag. Anything that must see a write of its own (a booking just held, the desk's day
// right after a walk-in) reads the primary.
type replica struct {
	pool   *pgxpool.Pool
	maxLag time.Duration

	mu       sync.Mutex // held while measuring
	measured time.Time
	usable   atomic.Bool // the last measure's answer
}

// ReadFrom lets searches, slots and reports read from the standby pool while it trails the
// primary by at most maxLag (DefaultMaxReplicaLag when zero). A standby that cannot say, or
// trails further, is not used until it catches up.
func (s *Store) ReadFrom(pool *pgxpool.Pool, maxLag time.Duration) {
	if maxLag <= 0 {
		maxLag = DefaultMaxReplicaLag
	}
	s.replica = &replica{pool: pool, maxLag: maxLag}
}

// reader is where a read that may be a little stale goes: the standby while it is close
// enough, the primary otherwise.
type reader interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func (s *Store) reads(ctx context.Context) reader {
	if r := s.replica; r != nil && ctx.Value(primaryKey{}) == nil && r.close(ctx) {
		return r.pool
	}
	return s.pool
}

type primaryKey struct{}

// OnPrimary returns ctx whose reads all go to the primary: for a caller who must see its own
// writes at once (staff at the desk, who just closed a slot or booked a walk-in).
func OnPrimary(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryKey{}, true)
}

// close reports whether the standby trails by at most maxLag, measured at most once a
// replicaLagEvery; while one request measures, the others go by the last measure.
func (r *replica) close(ctx context.Context) bool {
	if !r.mu.TryLock() {
		return r.usable.Load()
	}
	defer r.mu.Unlock()
	if time.Since(r.measured) < replicaLagEvery {
		return r.usable.Load()
	}
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	// Nothing received left to replay is no lag at all, however long ago the last transaction
	// was; otherwise the lag is how old the last replayed one is.
	var lag float64
	err := r.pool.QueryRow(ctx, `SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0
			WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() AND NOT pg_is_wal_replay_paused() THEN 0
			ELSE COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 1e9) END`).Scan(&lag)
	r.measured = time.Now()
	r.usable.Store(err == nil && time.Duration(lag*float64(time.Second)) <= r.maxLag)
	return r.usable.Load()
}
