package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Money changes racing on one booking are one after the other under its row lock, and each
// judges the amount from what the one before it left. Each race has a deterministic twin (the
// booking's lock held by a transaction doing the other change's writes while the store's call
// waits for it) and a control: the same steps without the lock, which lets both through.

const moneyRounds = 20

// withoutPaidBackstop drops bookings.paid's CHECK (paid >= 0) from the test's own database, so
// that what keeps a refund within what was paid is the store's guard, not the constraint.
func withoutPaidBackstop(t *testing.T, d *testsuite.Database) {
	t.Helper()
	_, err := d.Pool.Exec(context.Background(), `ALTER TABLE bookings DROP CONSTRAINT bookings_paid_check`)
	require.NoError(t, err)
}

// bookingLocked opens a transaction holding booking id's row lock, as a money change in flight
// on it would; the test does that change's writes in it and commits or rolls it back.
func bookingLocked(t *testing.T, d *testsuite.Database, id string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(ctx) })
	_, err = tx.Exec(ctx, `SELECT 1 FROM bookings WHERE id = $1 FOR UPDATE`, id)
	require.NoError(t, err)
	return tx
}

// retriedPastLockTimeouts runs call again while it ran out of lock_timeout waiting for the
// other's lock (a slow machine under -race), as the activity's retry policy would.
func retriedPastLockTimeouts(call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		var pg *pgconn.PgError
		if attempt == 4 || !errors.As(err, &pg) || pg.Code != "55P03" {
			return err
		}
	}
}

// exec runs a statement in tx and requires it to succeed.
func exec(t *testing.T, tx pgx.Tx, sql string, args ...any) {
	t.Helper()
	_, err := tx.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

// staffRefunded is what the staff refunds of booking id gave back.
func staffRefunded(t *testing.T, d *testsuite.Database, id string) int64 {
	t.Helper()
	var sum int64
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT COALESCE(sum(amount), 0) FROM staff_refunds
		WHERE booking_id = $1`, id).Scan(&sum))
	return sum
}

// TestTwoStaffRefundsRacingPastWhatWasPaidGiveBackOnlyWhatWasPaid: 120.00 and 150.00 of a
// booking that kept 200.00, at once: one is given, the other refused as more than is kept.
func TestTwoStaffRefundsRacingPastWhatWasPaidGiveBackOnlyWhatWasPaid(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	withoutPaidBackstop(t, d)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, moneyRounds)
	amounts := [2]int64{12000, 15000}
	wins := map[int64]int{}
	for r := range moneyRounds {
		b := providerPaid(t, d, fmt.Sprintf("g%d", r))
		var errs [2]error
		testsuite.Race(2, func(i int) {
			errs[i] = retriedPastLockTimeouts(func() error {
				_, _, err := d.Store.StartStaffRefund(ctx, goodwill(b, fmt.Sprintf("k%d", i), amounts[i]))
				return err
			})
		})
		require.True(t, (errs[0] == nil) != (errs[1] == nil), "round %d: exactly one is given: %v", r, errs)
		winner := 0
		if errs[0] != nil {
			winner = 1
		}
		require.ErrorIs(t, errs[1-winner], domain.ErrConflict, "round %d", r)
		wins[amounts[winner]]++
		assert.Equal(t, twoNights-amounts[winner], booking(t, d, b.ID).Paid, "round %d", r)
		assert.Equal(t, amounts[winner], staffRefunded(t, d, b.ID), "round %d", r)
	}
	t.Logf("refunds given over %d rounds: %v", moneyRounds, wins)
}

// TestAStaffRefundWaitingForTheBookingsLockJudgesWhatTheRefundBeforeItLeft: a refund of 120.00
// is in flight (it holds the lock and lowered paid); a refund of 150.00 waits for it and is
// refused once it commits.
func TestAStaffRefundWaitingForTheBookingsLockJudgesWhatTheRefundBeforeItLeft(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	withoutPaidBackstop(t, d)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	first := bookingLocked(t, d, b.ID)
	exec(t, first, `INSERT INTO staff_refunds (id, booking_id, kind, amount, currency, reason, actor, parts)
		VALUES ($1, $2, 'goodwill', 12000, 'EUR', 'first', 'desk-1', '[]')`, db.StaffRefundID(b.ID, "first"), b.ID)
	exec(t, first, `UPDATE bookings SET paid = paid - 12000 WHERE id = $1`, b.ID)

	done := make(chan error, 1)
	go func() {
		_, _, err := d.Store.StartStaffRefund(context.Background(), goodwill(b, "second", 15000))
		done <- err
	}()
	waitForLockWaiters(t, d, 1)
	require.NoError(t, first.Commit(context.Background()))

	assert.ErrorIs(t, <-done, domain.ErrConflict, "80.00 is kept; 150.00 is more")
	assert.Equal(t, int64(twoNights-12000), booking(t, d, b.ID).Paid)
	assert.Equal(t, int64(12000), staffRefunded(t, d, b.ID))
}

// TestControlStaffRefundsWithoutTheBookingsLockGiveBackMoreThanWasPaid is the control: the
// store's steps (read what is kept, check the amount, record, lower paid) in two transactions
// that do not lock the booking first both pass the check, and 270.00 of 200.00 is given back.
func TestControlStaffRefundsWithoutTheBookingsLockGiveBackMoreThanWasPaid(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	withoutPaidBackstop(t, d)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	amounts := [2]int64{12000, 15000}
	var txs [2]pgx.Tx
	for i := range txs {
		tx, err := d.Pool.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback(ctx) })
		var paid int64
		require.NoError(t, tx.QueryRow(ctx, `SELECT paid FROM bookings WHERE id = $1`, b.ID).Scan(&paid))
		require.LessOrEqual(t, amounts[i], paid, "refund %d passes the amount check", i)
		txs[i] = tx
	}
	for i, tx := range txs {
		exec(t, tx, `INSERT INTO staff_refunds (id, booking_id, kind, amount, currency, reason, actor, parts)
			VALUES ($1, $2, 'goodwill', $3, 'EUR', 'control', 'desk-1', '[]')`, db.StaffRefundID(b.ID, fmt.Sprint(i)), b.ID, amounts[i])
		exec(t, tx, `UPDATE bookings SET paid = paid - $2 WHERE id = $1`, b.ID, amounts[i])
		require.NoError(t, tx.Commit(ctx))
	}
	assert.Equal(t, int64(27000), staffRefunded(t, d, b.ID), "more than the 200.00 paid was given back")
	assert.Equal(t, int64(twoNights-27000), booking(t, d, b.ID).Paid)
}

// TestTwoBalancePaymentsRacingConfirmTheBookingOnce: after a deposit, two desks take the rest at
// once: one is taken and confirms the booking, the other is refused as more than is due.
func TestTwoBalancePaymentsRacingConfirmTheBookingOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, moneyRounds)
	for r := range moneyRounds {
		b := hold(t, d, fmt.Sprintf("g%d", r), nights(dec10, 2), 1)
		takeDesk(t, d, deskPayment(b.ID, "deposit", 5000))
		var got [2]domain.Booking
		var errs [2]error
		testsuite.Race(2, func(i int) {
			errs[i] = retriedPastLockTimeouts(func() (err error) {
				got[i], err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, fmt.Sprintf("balance%d", i), twoNights-5000))
				return err
			})
		})
		require.True(t, (errs[0] == nil) != (errs[1] == nil), "round %d: exactly one is taken: %v", r, errs)
		winner := 0
		if errs[0] != nil {
			winner = 1
		}
		assert.ErrorIs(t, errs[1-winner], domain.ErrConflict, "round %d", r)
		assert.Equal(t, domain.StatusConfirmed, got[winner].Status, "round %d", r)
		stored := booking(t, d, b.ID)
		assert.Equal(t, domain.StatusConfirmed, stored.Status, "round %d", r)
		assert.Equal(t, int64(twoNights), stored.Paid, "round %d", r)
		assert.Equal(t, 2, payments(t, d, b.ID), "round %d: the deposit and one balance", r)
		assert.Equal(t, 1, confirmations(t, d, b.ID), "round %d", r)
	}
	d.AssertMoneyBalances(t)
}

// TestADeskBalanceAndACheckoutPaymentOfTheRestRacingConfirmTheBookingOnce: after a deposit the
// desk takes the rest while the guest's checkout payment of the rest arrives: one of them pays it.
func TestADeskBalanceAndACheckoutPaymentOfTheRestRacingConfirmTheBookingOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, moneyRounds)
	wins := map[string]int{}
	for r := range moneyRounds {
		b := hold(t, d, fmt.Sprintf("g%d", r), nights(dec10, 2), 1)
		takeDesk(t, d, deskPayment(b.ID, "deposit", 5000))
		pay := domain.Payment{ID: fmt.Sprintf("pi_%d", r), Amount: twoNights - 5000, Currency: "EUR"}
		recordPayment(t, d, b.ID, pay.ID, pay.Amount)
		var errs [2]error
		testsuite.Race(2, func(i int) {
			if i == 0 {
				errs[0] = retriedPastLockTimeouts(func() (err error) {
					_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "balance", twoNights-5000))
					return err
				})
			} else {
				errs[1] = retriedPastLockTimeouts(func() (err error) {
					_, err = d.Store.Confirm(ctx, b.ID, &pay)
					return err
				})
			}
		})
		require.True(t, (errs[0] == nil) != (errs[1] == nil), "round %d: exactly one pays the rest: %v", r, errs)
		stored := booking(t, d, b.ID)
		assert.Equal(t, domain.StatusConfirmed, stored.Status, "round %d", r)
		assert.Equal(t, int64(twoNights), stored.Paid, "round %d", r)
		assert.Equal(t, 1, confirmations(t, d, b.ID), "round %d", r)
		if errs[0] == nil {
			assert.ErrorIs(t, errs[1], domain.ErrConflict, "round %d", r)
			wins["desk"]++
		} else {
			assert.ErrorIs(t, errs[0], domain.ErrConflict, "round %d", r)
			assert.Equal(t, pay.ID, stored.PaymentID, "round %d", r)
			wins["checkout"]++
		}
		assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: twoNights}, summary(t, d, b.ID), "round %d", r)
	}
	t.Logf("winners over %d rounds: %v", moneyRounds, wins)
}

// TestABalancePaymentWaitingForTheBookingsLockJudgesWhatThePaymentBeforeItLeft: one balance is
// being taken (it holds the lock and wrote its payment); the other waits for it and is refused.
func TestABalancePaymentWaitingForTheBookingsLockJudgesWhatThePaymentBeforeItLeft(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	takeDesk(t, d, deskPayment(b.ID, "deposit", 5000))
	first := bookingLocked(t, d, b.ID)
	exec(t, first, `INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at, method, taken_by)
		VALUES ($1, $2, $3, 'EUR', 'succeeded', now(), 'cash', 'desk-1')`, domain.DeskPaymentID(b.ID, "first"), b.ID, twoNights-5000)
	exec(t, first, `UPDATE bookings SET paid = paid + $2, status = 'CONFIRMED' WHERE id = $1`, b.ID, twoNights-5000)

	done := make(chan error, 1)
	go func() {
		_, err := d.Store.TakeDeskPayment(context.Background(), deskPayment(b.ID, "second", twoNights-5000))
		done <- err
	}()
	waitForLockWaiters(t, d, 1)
	require.NoError(t, first.Commit(context.Background()))

	assert.ErrorIs(t, <-done, domain.ErrConflict, "nothing is due any more")
	assert.Equal(t, int64(twoNights), booking(t, d, b.ID).Paid)
	assert.Equal(t, 2, payments(t, d, b.ID))
	assert.Equal(t, 1, confirmations(t, d, b.ID))
}

// TestControlBalancePaymentsWithoutTheBookingsLockAreBothTaken is the control: two desks that
// read what is due without locking the booking both find the rest due, and both take it.
func TestControlBalancePaymentsWithoutTheBookingsLockAreBothTaken(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	takeDesk(t, d, deskPayment(b.ID, "deposit", 5000))
	var txs [2]pgx.Tx
	for i := range txs {
		tx, err := d.Pool.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback(ctx) })
		var due int64
		require.NoError(t, tx.QueryRow(ctx, `SELECT b.total - (SELECT sum(amount) FROM payments p WHERE p.booking_id = b.id)
			FROM bookings b WHERE b.id = $1`, b.ID).Scan(&due))
		require.Equal(t, int64(twoNights-5000), due, "desk %d finds the rest due", i)
		txs[i] = tx
	}
	for i, tx := range txs {
		exec(t, tx, `INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at, method, taken_by)
			VALUES ($1, $2, $3, 'EUR', 'succeeded', now(), 'cash', 'desk-1')`, domain.DeskPaymentID(b.ID, fmt.Sprint(i)), b.ID, twoNights-5000)
		exec(t, tx, `UPDATE bookings SET paid = paid + $2, status = 'CONFIRMED' WHERE id = $1`, b.ID, twoNights-5000)
		require.NoError(t, tx.Commit(ctx))
	}
	assert.Equal(t, int64(2*twoNights-5000), booking(t, d, b.ID).Paid, "the balance was taken twice")
}

// TestAPriceChangeRacingAPaymentOfTheOldPriceHasOneOutcome: each round a price change and the
// payment of the old price race on a hold: either it is confirmed at the old price and the
// change refused, or the new price stands and the payment does not confirm it.
func TestAPriceChangeRacingAPaymentOfTheOldPriceHasOneOutcome(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	const rounds = 40
	d.SetInventory(t, "h1", "double", dec10, dec13, rounds)
	wins := map[string]int{}
	for r := range rounds {
		b := hold(t, d, fmt.Sprintf("g%d", r), nights(dec10, 2), 1)
		pay := &domain.Payment{ID: fmt.Sprintf("pi_%d", r), Amount: twoNights, Currency: "EUR"}
		var errs [2]error
		testsuite.Race(2, func(i int) {
			if i == 0 {
				errs[0] = retriedPastLockTimeouts(func() (err error) {
					_, err = d.Store.Confirm(ctx, b.ID, pay)
					return err
				})
			} else {
				_, errs[1] = d.Store.ChangePrice(ctx, db.PriceChange{BookingID: b.ID, Total: 15000, Currency: "EUR",
					Reason: "discount", Actor: "desk-1"})
			}
		})
		require.True(t, (errs[0] == nil) != (errs[1] == nil), "round %d: exactly one outcome: %v", r, errs)
		stored := booking(t, d, b.ID)
		changes, err := d.Store.PriceChangeCount(ctx, b.ID)
		require.NoError(t, err)
		if errs[0] == nil {
			assert.ErrorIs(t, errs[1], domain.ErrConflict, "round %d", r)
			assert.Equal(t, []any{domain.StatusConfirmed, int64(twoNights), int64(twoNights), pay.ID, 0},
				[]any{stored.Status, stored.Price.Total, stored.Paid, stored.PaymentID, changes}, "round %d", r)
			wins["payment"]++
		} else {
			assert.ErrorIs(t, errs[0], domain.ErrConflict, "round %d", r)
			assert.Equal(t, []any{domain.StatusHold, int64(15000), int64(0), "", 1},
				[]any{stored.Status, stored.Price.Total, stored.Paid, stored.PaymentID, changes}, "round %d", r)
			wins["price change"]++
		}
	}
	t.Logf("winners over %d rounds: %v", rounds, wins)
}

// TestControlAConfirmThatDoesNotCheckThePriceConfirmsAChangedPrice is the control: a confirm
// that checks only the hold (as Confirm did before prices could change) after the price change
// confirms the booking at the old amount: both outcomes at once.
func TestControlAConfirmThatDoesNotCheckThePriceConfirmsAChangedPrice(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	_, err := d.Store.ChangePrice(ctx, db.PriceChange{BookingID: b.ID, Total: 15000, Currency: "EUR",
		Reason: "discount", Actor: "desk-1"})
	require.NoError(t, err)
	tag, err := d.Pool.Exec(ctx, `UPDATE bookings SET status = 'CONFIRMED', payment_id = 'pi_old', paid = $2
		WHERE id = $1 AND status = 'HOLD' AND expires_at > now()`, b.ID, twoNights)
	require.NoError(t, err)
	assert.EqualValues(t, 1, tag.RowsAffected(), "the payment of the old price confirmed it")
	stored := booking(t, d, b.ID)
	assert.Equal(t, []any{domain.StatusConfirmed, int64(15000), int64(twoNights)},
		[]any{stored.Status, stored.Price.Total, stored.Paid}, "confirmed at a price it no longer has")
}

// TestTwoRefundsSettledByHandRacingPastAPaymentRecordAtMostItsAmount: two finance clerks record
// 120.00 and 150.00 given back of the same 200.00 payment, both while the payment's lock is
// held (by a third record, say): one is recorded, the other refused as more than is left.
func TestTwoRefundsSettledByHandRacingPastAPaymentRecordAtMostItsAmount(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	recordPayment(t, d, b.ID, "pi_second", twoNights) // kept by no booking
	held, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = held.Rollback(ctx) })
	exec(t, held, `SELECT 1 FROM payments WHERE payment_id = 'pi_second' FOR UPDATE`)

	amounts := [2]int64{12000, 15000}
	errs := make(chan error, 2)
	for i, amount := range amounts {
		go func() {
			_, err := d.Store.RecordManualRefund(ctx, manualRefund("pi_second", fmt.Sprint(i), amount))
			errs <- err
		}()
	}
	waitForLockWaiters(t, d, 2)
	require.NoError(t, held.Commit(ctx))
	got := []error{<-errs, <-errs}

	var sum int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT COALESCE(sum(amount), 0) FROM refunds WHERE payment_id = 'pi_second'`).Scan(&sum))
	assert.LessOrEqual(t, sum, int64(twoNights), "no more than the payment was recorded as given back")
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_second'`), "one is recorded")
	assert.True(t, errors.Is(got[0], domain.ErrConflict) != errors.Is(got[1], domain.ErrConflict),
		"the other is refused: %v", got)
}

// TestADepositRacingTheHoldsExpiryIsTakenOrRefusedWithIt: the desk takes a deposit as the hold
// timer releases the hold: either the deposit is taken and the unpaid release refused, or the
// hold is gone and the deposit refused. Never an expired booking that kept money.
func TestADepositRacingTheHoldsExpiryIsTakenOrRefusedWithIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, moneyRounds)
	wins := map[string]int{}
	for r := range moneyRounds {
		b := hold(t, d, fmt.Sprintf("g%d", r), nights(dec10, 2), 1)
		var errs [2]error
		testsuite.Race(2, func(i int) {
			if i == 0 {
				errs[0] = retriedPastLockTimeouts(func() (err error) {
					_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "deposit", 5000))
					return err
				})
			} else {
				errs[1] = retriedPastLockTimeouts(func() (err error) {
					_, err = d.Store.Release(ctx, b.ID, domain.StatusExpired)
					return err
				})
			}
		})
		require.True(t, (errs[0] == nil) != (errs[1] == nil), "round %d: exactly one: %v", r, errs)
		stored := booking(t, d, b.ID)
		if errs[0] == nil {
			assert.ErrorIs(t, errs[1], domain.ErrConflict, "round %d", r)
			assert.Equal(t, []any{domain.StatusConfirmed, int64(5000), 1}, []any{stored.Status, stored.Paid, payments(t, d, b.ID)}, "round %d", r)
			wins["deposit"]++
		} else {
			assert.ErrorIs(t, errs[0], domain.ErrConflict, "round %d", r)
			assert.Equal(t, []any{domain.StatusExpired, int64(0), 0}, []any{stored.Status, stored.Paid, payments(t, d, b.ID)}, "round %d", r)
			wins["expiry"]++
		}
	}
	t.Logf("winners over %d rounds: %v", moneyRounds, wins)
	d.AssertInventoryMatchesBookings(t)
}

// TestAStaffRefundRacingACancelGivesBackAtMostWhatWasPaid: a goodwill refund of 120.00 and a
// cancel refunding all that is kept, at once: either the goodwill is given and the cancel
// refunds the 80.00 left, or the cancel refunds all and the goodwill is refused.
func TestAStaffRefundRacingACancelGivesBackAtMostWhatWasPaid(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, moneyRounds)
	wins := map[string]int{}
	for r := range moneyRounds {
		b := providerPaid(t, d, fmt.Sprintf("g%d", r))
		var errs [2]error
		testsuite.Race(2, func(i int) {
			if i == 0 {
				errs[0] = retriedPastLockTimeouts(func() (err error) {
					_, _, err = d.Store.StartStaffRefund(ctx, goodwill(b, "k", 12000))
					return err
				})
			} else {
				_, errs[1] = d.Store.StartRefund(ctx, b.ID, nil, func(b domain.Booking) (int64, error) { return twoNights, nil })
			}
		})
		require.NoError(t, errs[1], "round %d: the cancel is refunded", r)
		stored := booking(t, d, b.ID)
		assert.Equal(t, domain.StatusRefunding, stored.Status, "round %d", r)
		assert.Equal(t, int64(twoNights), staffRefunded(t, d, b.ID)+stored.RefundDue, "round %d: all that was paid, no more", r)
		if errs[0] == nil {
			wins["goodwill first"]++
		} else {
			assert.ErrorIs(t, errs[0], domain.ErrConflict, "round %d", r)
			wins["cancel first"]++
		}
	}
	t.Logf("winners over %d rounds: %v", moneyRounds, wins)
}
