// Package db is bookflow's PostgreSQL layer: the connection pool, the embedded migrations and
// the queries and transactions that guard inventory. PostgreSQL is the truth for inventory.
package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultLockTimeout bounds how long a reservation waits for a hot inventory row before it
// gives up, so a flash sale on one hotel fails fast instead of exhausting the pool.
const DefaultLockTimeout = 2 * time.Second

// Store runs bookflow's queries on a pgx pool.
type Store struct {
	pool        *pgxpool.Pool
	lockTimeout time.Duration
	oneTrips    atomic.Int64 // reservations reserveDirect made, for tests
	replica     *replica     // a standby for reads that may be a little stale (ReadFrom)
	batches     batcher      // the writers of batched reservations (reserve_batch.go)
	unbatched   atomic.Bool  // SetBatching(false): every reservation in a transaction of its own
	plainPlans  bool         // the search's plans are PostgreSQL's own (a benchmark's baseline)
}

// NewStore wraps a pool. A zero lockTimeout means DefaultLockTimeout. Concurrent direct sales
// of one room type share a transaction (SetBatching).
func NewStore(pool *pgxpool.Pool, lockTimeout time.Duration) *Store {
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	return &Store{pool: pool, lockTimeout: lockTimeout}
}

// Pool returns the underlying pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Connect opens a pool and checks that the database answers.
func Connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	// A span per statement and batch, under the caller's span (none when tracing is off). The
	// statement's text is recorded; its arguments never are.
	cfg.ConnConfig.Tracer = otelpgx.NewTracer()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("reach database: %w", err)
	}
	return pool, nil
}

// Open returns a pool for url without reaching it first: for a standby that may be down while
// the rest starts (reads go to the primary until it answers).
func Open(url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.Tracer = otelpgx.NewTracer()
	return pgxpool.NewWithConfig(context.Background(), cfg)
}

// inTx runs fn in one transaction with the store's lock timeout, committing when fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return s.inBookingTx(ctx, "", fn)
}

// inBookingTx is inTx for a transaction acting for a booking: the history triggers record the
// unit changes it makes against bookingID (migration 00013), and its state changes with the
// actor ctx names (WithActor, migration 00022).
func (s *Store) inBookingTx(ctx context.Context, bookingID string, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after commit
	if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true), set_config('bookflow.booking_id', $2, true),
		set_config('bookflow.actor', $3, true)`,
		strconv.FormatInt(s.lockTimeout.Milliseconds(), 10), bookingID, actorOf(ctx)); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// codeCheckViolation is the PostgreSQL error code of a CHECK constraint refusing a row.
const codeCheckViolation = "23514"

// codeUniqueViolation is the PostgreSQL error code of a unique index refusing a row.
const codeUniqueViolation = "23505"

// codeForeignKeyViolation is the PostgreSQL error code of a reference to a row that is not there.
const codeForeignKeyViolation = "23503"

// pgMessage is the message of a PostgreSQL error, without its code.
func pgMessage(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	return err.Error()
}

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// querier is what a pool and a transaction have in common for single-row reads and writes.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}
