package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// A reservation's lock timeout bounds its waits for rows and locks, not its commit: a commit that
// notified (the availability outbox does) queues behind every other notifying commit of the
// server, and a timeout there undid finished work (db/functions/reserve_stay.sql). No test can
// hold that queue's lock, so this checks what the commit runs under.
func TestAReservationCommitsWithoutItsLockTimeout(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	stay := func(id, customer string) string {
		return `{"id":"` + id + `","customer":"` + customer + `","created_by":"` + customer + `","idem":"k","fingerprint":"f",
			"from":"2030-12-10T00:00:00","to":"2030-12-11T00:00:00","quantity":1,"hold_us":600000000,"supplier":"","max_holds":0}`
	}
	for name, call := range map[string]string{
		"alone, held":    `SELECT reserve_stay('b1', 'c1', 'c1', 'k', 'f', 'h1', 'double', '2030-12-10', '2030-12-11', 1, 600000000, '', 0, 50)`,
		"alone, refused": `SELECT reserve_stay('b2', 'c2', 'c2', 'k', 'f', 'h1', 'double', '2030-12-10', '2030-12-14', 1, 600000000, '', 0, 50)`,
		"a batch":        `SELECT count(*)::text FROM reserve_stays('h1', 'double', 50, '[` + stay("b3", "c3") + `,` + stay("b4", "c4") + `]')`,
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, inTransaction(ctx, d, func(tx pgx.Tx) error {
				var outcome, timeout string
				if err := tx.QueryRow(ctx, call).Scan(&outcome); err != nil {
					return err
				}
				if err := tx.QueryRow(ctx, `SELECT current_setting('lock_timeout')`).Scan(&timeout); err != nil {
					return err
				}
				assert.Equal(t, "0", timeout, "the commit after %s (%s) is bounded by the lock timeout", call, outcome)
				return nil
			}))
		})
	}
}
