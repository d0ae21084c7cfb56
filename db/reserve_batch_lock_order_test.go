package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A batch takes its customers' hold locks before anything else, as reserve_stay and the full path
// do. Taken after the room type's sale lock (the first booking row takes it), a hold lock closed a
// cycle with a sale-rule write at the hotel (holding another room type's sale lock, waiting for
// this one) and a hold of the same customer at that other room type (holding the hold lock,
// waiting for the rule write): PostgreSQL broke it after deadlock_timeout by failing the batch's
// booking with 40P01.
func TestABatchTakesItsCustomersHoldLocksBeforeTheSaleLock(t *testing.T) {
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "single", dec10, dec13, 5)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)

	// c1 is reserving a single room: its hold lock is taken, its statement not yet run.
	single, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer single.Rollback(ctx) //nolint:errcheck
	_, err = single.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('holds:' || 'c1', 0))`)
	require.NoError(t, err)

	// A batch of doubles for c0 (no hold limit) and c1 (under one).
	type batchOutcome struct {
		rows []string
		err  error
	}
	batch := make(chan batchOutcome, 1)
	go func() {
		var out batchOutcome
		out.err = inTransaction(ctx, d, func(q pgx.Tx) error {
			rows, err := q.Query(ctx, `SELECT o_id || ' ' || COALESCE(o_outcome, 'held') || ' ' || COALESCE(o_code, '')
				FROM reserve_stays('h1', 'double', 5000, $1::jsonb)`,
				`[{"id":"b0","customer":"c0","created_by":"c0","idem":"k0","fingerprint":"f","from":"2030-12-10T00:00:00","to":"2030-12-11T00:00:00","quantity":1,"hold_us":600000000,"supplier":"","max_holds":0},
				  {"id":"b1","customer":"c1","created_by":"c1","idem":"k1","fingerprint":"f","from":"2030-12-10T00:00:00","to":"2030-12-11T00:00:00","quantity":1,"hold_us":600000000,"supplier":"","max_holds":3}]`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					return err
				}
				out.rows = append(out.rows, s)
			}
			return rows.Err()
		})
		batch <- out
	}()
	time.Sleep(300 * time.Millisecond) // the batch waits for c1's hold lock

	// A sale-rule write at the hotel locks the room types in id order: single, then double.
	rule := make(chan error, 1)
	go func() {
		rule <- inTransaction(ctx, d, func(q pgx.Tx) error {
			if _, err := q.Exec(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
				return err
			}
			if _, err := q.Exec(ctx, `SELECT 1 FROM hotels WHERE id = 'h1' FOR UPDATE`); err != nil {
				return err
			}
			_, err := q.Exec(ctx, `SELECT 1 FROM resources WHERE hotel_id = 'h1' ORDER BY id FOR UPDATE`)
			return err
		})
	}()
	time.Sleep(300 * time.Millisecond)

	var outcome string
	err = single.QueryRow(ctx, `SELECT reserve_stay('b2', 'c1', 'c1', 'k2', 'f', 'h1', 'single', '2030-12-10', '2030-12-11', 1, 600000000, '', 3, 5000)`).Scan(&outcome)
	require.NoError(t, err, "c1's single room")
	require.NoError(t, single.Commit(ctx))
	require.NoError(t, <-rule, "the rule write")
	got := <-batch
	require.NoError(t, got.err, "the batch")
	for _, row := range got.rows {
		assert.NotContains(t, row, "40P01", "a booking of the batch was failed to break a deadlock")
	}
}

// inTransaction runs fn in a transaction of its own, committed when fn succeeds.
func inTransaction(ctx context.Context, d *testsuite.Database, fn func(pgx.Tx) error) error {
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// A customer's hold lock held past the batch's lock wait fails that customer's booking alone: it
// goes on alone and is held once the lock is free; the batch's other booking is held at once.
func TestABatchWhoseCustomersHoldLockIsTakenSendsThatBookingOnAlone(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	other, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	_, err = other.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('holds:' || 'c1', 0))`)
	require.NoError(t, err)
	released := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		released <- other.Rollback(ctx) // the only use of other from here on
	}()
	t.Cleanup(func() { <-released })

	limited := holdParams("c1", "k", stay3, 1)
	limited.MaxActiveHolds = 3
	got, errs := inOneBatch(t, batchStore(d, 5*time.Second), nil, []db.ReserveParams{holdParams("c0", "k", stay3, 1), limited})
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, domain.StatusHold, got[0].Status)
	assert.Equal(t, domain.StatusHold, got[1].Status)
	d.AssertInventoryMatchesBookings(t)
}
