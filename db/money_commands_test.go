package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// One key space for the commands that move a booking's money (issue 34, defect 2): each store
// path claims its key in money_commands with the money it moves. Every booking here is three
// nights of h1/double (300.00 EUR).

// moneyPaths are the store's paths that move money under a key, each as a command on booking b
// (paid, CONFIRMED; its desk deposit, if any, under "deposit") that takes amount under key.
var moneyPaths = []struct {
	name string
	run  func(ctx context.Context, d *testsuite.Database, b domain.Booking, key string, amount int64) error
}{
	{"desk payment", func(ctx context.Context, d *testsuite.Database, b domain.Booking, key string, amount int64) error {
		_, err := d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, key, amount))
		return err
	}},
	{"goodwill refund", func(ctx context.Context, d *testsuite.Database, b domain.Booking, key string, amount int64) error {
		_, _, err := d.Store.StartStaffRefund(ctx, goodwill(b, key, amount))
		return err
	}},
	{"reversal", func(ctx context.Context, d *testsuite.Database, b domain.Booking, key string, amount int64) error {
		r := goodwill(b, key, amount)
		r.Kind, r.Parts[0].ID = db.RefundReversal, domain.DeskPaymentID(b.ID, "deposit")
		_, _, err := d.Store.StartStaffRefund(ctx, r)
		return err
	}},
	{"early departure refund", func(ctx context.Context, d *testsuite.Database, b domain.Booking, key string, amount int64) error {
		r := goodwill(b, key, amount)
		r.Kind = db.RefundEarlyDeparture
		_, _, err := d.Store.StartStaffRefund(ctx, r)
		return err
	}},
	{"cancel with a refund", func(ctx context.Context, d *testsuite.Database, b domain.Booking, key string, amount int64) error {
		_, err := d.Store.StartCancelRefund(ctx, db.CancelRefundCommand(b.ID, key, amount, "EUR", "fin-1"),
			func(domain.Booking) (int64, error) { return amount, nil })
		return err
	}},
	{"amendment", func(ctx context.Context, d *testsuite.Database, b domain.Booking, key string, amount int64) error {
		// amount picks the change: the stay shortened by one night, or by two.
		checkOut := dec12
		if amount > 10000 {
			checkOut = dec11
		}
		_, _, err := d.Store.Amend(ctx, amendParams(b, key, domain.Change{CheckOut: checkOut}))
		return err
	}},
}

// keyState is what a booking's money and key space say after a command.
type keyState struct {
	Status           domain.Status
	Paid, RefundDue  int64
	Commands, Refund int
	Payments, Amends int
}

func stateOf(t *testing.T, d *testsuite.Database, id string) keyState {
	t.Helper()
	b := booking(t, d, id)
	return keyState{Status: b.Status, Paid: b.Paid, RefundDue: b.RefundDue,
		Commands: count(t, d, `SELECT count(*) FROM money_commands WHERE booking_id = $1`, id),
		Refund:   count(t, d, `SELECT count(*) FROM staff_refunds WHERE booking_id = $1`, id),
		Payments: payments(t, d, id),
		Amends:   count(t, d, `SELECT count(*) FROM booking_amendments WHERE booking_id = $1`, id)}
}

// depositPaid is a booking of three nights the desk took 100.00 for under "deposit" and the
// provider the rest, CONFIRMED (a hold from before issue 39, which the deposit left on hold).
func depositPaid(t *testing.T, d *testsuite.Database, customer string) domain.Booking {
	t.Helper()
	b := hold(t, d, customer, stay3, 1)
	heldDeposit(t, d, deskPayment(b.ID, "deposit", 10000))
	pay := &domain.Payment{ID: "pi_" + customer, Amount: b.Price.Total - 10000, Currency: "EUR"}
	recordPayment(t, d, b.ID, pay.ID, pay.Amount)
	b, err := d.Store.Confirm(context.Background(), b.ID, pay)
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, b.Status)
	return b
}

// bookingFor is a booking path i takes its command on, in a database with three nights of
// h1/double on sale: a hold for a desk payment (it has money due), depositPaid for the others.
func bookingFor(t *testing.T, d *testsuite.Database, i int) domain.Booking {
	t.Helper()
	customer := fmt.Sprintf("g%d", i)
	if moneyPaths[i].name == "desk payment" {
		return hold(t, d, customer, stay3, 1)
	}
	return depositPaid(t, d, customer)
}

// TestEveryMoneyPathRefusesItsKeyWithAnotherBodyAndAcceptsARetry: each path's command under key
// K, then the same command again (nothing moves, nothing more is written), then K with another
// amount (ErrIdempotencyMismatch, nothing changes).
func TestEveryMoneyPathRefusesItsKeyWithAnotherBodyAndAcceptsARetry(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 10)
	for i, path := range moneyPaths {
		b := bookingFor(t, d, i)
		require.NoError(t, path.run(ctx, d, b, "K", 5000), path.name)
		first := stateOf(t, d, b.ID)
		assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM money_commands WHERE booking_id = $1 AND key = 'K'`, b.ID),
			"%s: the key is claimed", path.name)

		assert.NoError(t, path.run(ctx, d, b, "K", 5000), "%s: a retry", path.name)
		assert.Equal(t, first, stateOf(t, d, b.ID), "%s: a retry moves nothing", path.name)

		err := path.run(ctx, d, b, "K", 20000)
		assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "%s: another body under the key", path.name)
		assert.Equal(t, first, stateOf(t, d, b.ID), "%s: a refusal changes nothing", path.name)
	}
}

// TestAKeyIsTheBookingsOnceWhateverCommandFirstUsedIt is defect 2 on the store: a key one path
// spent is refused to every other path (ErrIdempotencyMismatch), before the booking's state is
// judged, and nothing changes. Before, a goodwill refund's key cancelled the booking with a
// refund, took a desk payment or an amendment.
func TestAKeyIsTheBookingsOnceWhateverCommandFirstUsedIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 10)
	for i, first := range moneyPaths {
		b := bookingFor(t, d, i)
		require.NoError(t, first.run(ctx, d, b, "K", 5000), first.name)
		before := stateOf(t, d, b.ID)
		for _, other := range moneyPaths {
			if other.name == first.name {
				continue
			}
			err := other.run(ctx, d, b, "K", 5000)
			assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "the %s's key, sent for: %s", first.name, other.name)
			assert.Equal(t, before, stateOf(t, d, b.ID), "the %s's key, sent for: %s, changes nothing", first.name, other.name)
		}
	}
}

// TestMoneyCommandSeenAnswersARetryBeforeTheBookingsStateIsJudged: the workflow asks whether a
// key is spent before it judges the booking (a cancel retried finds it REFUNDING).
func TestMoneyCommandSeenAnswersARetryBeforeTheBookingsStateIsJudged(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 10)
	b := depositPaid(t, d, "g1")
	c := db.CancelRefundCommand(b.ID, "C", 20000, "EUR", "fin-1")
	seen, err := d.Store.MoneyCommandSeen(ctx, c)
	require.NoError(t, err)
	assert.False(t, seen, "a free key")
	_, err = d.Store.StartCancelRefund(ctx, c, func(domain.Booking) (int64, error) { return 20000, nil })
	require.NoError(t, err)
	seen, err = d.Store.MoneyCommandSeen(ctx, c)
	require.NoError(t, err)
	assert.True(t, seen, "the same cancel again")
	_, err = d.Store.MoneyCommandSeen(ctx, db.CancelRefundCommand(b.ID, "C", 25000, "EUR", "fin-1"))
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "another amount")
	_, err = d.Store.MoneyCommandSeen(ctx, db.StaffRefundCommand(goodwill(b, "C", 20000)))
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "another kind")
	assert.Equal(t, int64(20000), booking(t, d, b.ID).RefundDue)

	// A booking already refunding for another cancel spends no key on it.
	_, err = d.Store.StartCancelRefund(ctx, db.CancelRefundCommand(b.ID, "C2", 20000, "EUR", "fin-1"),
		func(domain.Booking) (int64, error) { return 20000, nil })
	assert.ErrorIs(t, err, domain.ErrConflict)
	assert.Zero(t, count(t, d, `SELECT count(*) FROM money_commands WHERE booking_id = $1 AND key = 'C2'`, b.ID))
}

// TestTheKeysOfCommandsRecordedBeforeTheKeySpaceAreClaimedByItsMigration: a desk deposit, a
// goodwill refund, a reversal and an amendment, then 00034 undone and applied again (the rows as
// the previous release left them): it claims each key as the store claims it.
func TestTheKeysOfCommandsRecordedBeforeTheKeySpaceAreClaimedByItsMigration(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 10)
	b := depositPaid(t, d, "g1")
	require.NoError(t, moneyPaths[1].run(ctx, d, b, "gw", 1000))  // goodwill
	require.NoError(t, moneyPaths[2].run(ctx, d, b, "rev", 1000)) // a reversal
	require.NoError(t, moneyPaths[5].run(ctx, d, b, "amend", 5000))
	claimed := func() []string {
		rows, err := d.Pool.Query(ctx, `SELECT key || ' ' || kind || ' ' || body::text || ' ' || COALESCE(actor, '-')
			FROM money_commands WHERE booking_id = $1 ORDER BY key`, b.ID)
		require.NoError(t, err)
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rows.Err())
		return out
	}
	byStore := claimed()
	require.Len(t, byStore, 4)

	require.NoError(t, db.RedoMigration(ctx, d.Pool, 34))
	assert.Equal(t, byStore, claimed())
}
