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

// An adversarial review of the money ledger's SQL functions and the store paths around them
// (issue 34). Each test showed a defect and failed on the code it was written against; all are
// fixed:
//
//	go test -count=1 -run 'TestReview34' ./db/

// review34PendingGoodwill is g1's two nights paid by card, with a goodwill refund of amount under
// the key gw whose first attempt the provider left pending (its refund re_gw).
func review34PendingGoodwill(t *testing.T, d *testsuite.Database, amount int64) domain.Booking {
	t.Helper()
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	b := providerPaid(t, d, "g1")
	_, b, err := d.Store.StartStaffRefund(ctx, goodwill(b, "gw", amount))
	require.NoError(t, err)
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/staff-gw/1", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: amount, Currency: "EUR", Reason: "goodwill"})
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_gw", "pending", ""))
	return b
}

// review34Resolve records an operator's resolution of booking b's step staff-gw as made by hand.
func review34Resolve(t *testing.T, d *testsuite.Database, b domain.Booking, amount int64) {
	t.Helper()
	require.NoError(t, d.Store.RecordResolvedRefund(context.Background(), db.RefundAttempt{ID: b.ID + "/staff-gw/0",
		BookingID: b.ID, PaymentID: b.PaymentID, Amount: amount, Currency: "EUR", Reason: "made by hand", RecordedBy: "op-1"}))
}

// review34GivenOnce requires booking b's ledger to say amount of its card payment was given back
// once and nothing more is owed, and the checker to find the ledger agreeing with its rows.
func review34GivenOnce(t *testing.T, d *testsuite.Database, b domain.Booking, amount int64) {
	t.Helper()
	m, err := d.Store.LedgerMoney(context.Background(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, db.LedgerMoney{Paid: twoNights, Kept: twoNights - amount, Refunded: amount}, m,
		"given back once; nothing left owed")
	d.AssertLedgerAgrees(t)
}

// A refund step whose attempt the provider gave back (its webhook arrived while the saga waited
// for an operator: the refund was pending past RefundWait) is resolved by an operator as made by
// hand. The step was given back already: its resolution must record nothing, as
// BeginRefundAttempt answers an attempt of a step given back. RecordResolvedRefund records it
// anyway, and the ledger asks the same 50.00 back a second time from what the booking keeps
// (unplanned), settles it by hand, and the checker reports the step paid twice.
func TestReview34AResolutionOfAStepAnAttemptGaveBackRecordsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	b := review34PendingGoodwill(t, d, 5000)
	require.NoError(t, d.Store.SettleRefund(ctx, "re_gw", true, ""), "the provider's webhook: given back")

	// The operator resolves the stuck step as made by hand (the workflow's RecordResolvedRefund).
	review34Resolve(t, d, b, 5000)

	assert.Zero(t, count(t, d, `SELECT count(*) FROM refunds WHERE id = $1`, b.ID+"/staff-gw/0"),
		"a step given back takes no resolution")
	twice, err := d.Store.RefundsPaidTwice(ctx)
	require.NoError(t, err)
	assert.Empty(t, twice)
	review34GivenOnce(t, d, b, 5000)
}

// The same resolution while the step's attempt is still pending at the provider (the saga waited
// past RefundWait and handed the step to an operator, who gave the money back by hand); the
// provider then declines the pending attempt. The guest was given 50.00 once, by hand. The
// resolution finds nothing owed on the payment (the step's 50.00 is refunding), so ledger_owe asks
// 50.00 more of what the booking keeps (unplanned) and settles that; the decline then puts the
// step's own 50.00 back in owed, where nothing will ever send it: the ledger keeps 100.00 where the
// booking keeps 150.00, and the booking's money shows 50.00 on its way back for ever. Now the
// resolution is refused while the attempt is pending; once the provider declined it, it is taken.
func TestReview34AResolutionWhileTheStepsAttemptIsPendingKeepsTheBooksRight(t *testing.T) {
	// The workflow does not ask this (its resolve is refused while its own attempt is in flight:
	// workflows' TestAResolutionWhileTheProviderMayStillGiveTheRefundBackIsRefused), and the store
	// refuses it too, whichever saga's attempt is under way.
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	b := review34PendingGoodwill(t, d, 5000)

	err := d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: b.ID + "/staff-gw/0", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: 5000, Currency: "EUR", Reason: "made by hand", RecordedBy: "op-1"})
	require.ErrorIs(t, err, db.ErrRefundInFlight, "refused while the attempt is pending")
	require.NoError(t, d.Store.SettleRefund(ctx, "re_gw", false, "declined"), "the provider declines the pending attempt")
	review34Resolve(t, d, b, 5000)

	review34GivenOnce(t, d, b, 5000)
}

// A database used before the ledger holds a cancelled booking whose refund an operator resolved
// as made by hand before resolutions were recorded: REFUNDED, its refund due given back, and no
// refund row says so (owedUnrecorded in staff_money.go names such bookings). The upgrade's
// backfill replayed the cancel through ledger_on_booking with the booking's row as it is now,
// REFUNDED, and ledger_on_booking draws a refund due only for REFUNDING: the ledger kept the whole
// payment, the booking's money said nothing was on its way back where its rows said 150.00 was,
// and the checker's ledger_mismatch reported the booking. The backfill now draws it as for
// REFUNDING. A REFUNDED booking whose attempts gave its refund back (their asks were unplanned
// when the cancel drew nothing) finds it drawn once, by the cancel: nothing is asked twice.
func TestReview34TheBackfillDrawsTheRefundOfABookingAlreadyRefunded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewEmptyDatabase(t)
	require.NoError(t, db.MigrateToForTodaysStore(ctx, d.Pool, 34))
	d.SetInventory(t, "h1", "double", dec10, dec14, 20)
	refunded := func(customer, payment string, attempts ...string) domain.Booking {
		b := hold(t, d, customer, nights(dec10, 2), 1)
		recordPayment(t, d, b.ID, payment, twoNights)
		b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: payment, Amount: twoNights, Currency: "EUR"})
		require.NoError(t, err)
		_, err = d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return 15000, nil })
		require.NoError(t, err)
		for i, outcome := range attempts {
			a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: fmt.Sprintf("%s/refund/%d", b.ID, i+1),
				BookingID: b.ID, PaymentID: payment, Amount: 15000, Currency: "EUR", Reason: "cancelled"})
			require.NoError(t, err)
			require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+a.ID, outcome, ""))
		}
		_, err = d.Store.FinishRefund(ctx, b.ID)
		require.NoError(t, err)
		return b
	}
	// Its refund's first step never got as far as an attempt row (the database refused it while
	// it was down), and an operator of the release before resolutions were recorded resolved it
	// as made by hand.
	byHand := refunded("resolved-before", "pi_before")
	byAttempts := refunded("refunded-before", "pi_attempts", "failed", "succeeded")
	before := map[string]db.MoneySummary{byHand.ID: oldMoney(t, d, byHand.ID), byAttempts.ID: oldMoney(t, d, byAttempts.ID)}
	require.Equal(t, int64(15000), before[byHand.ID].Refunding, "the rows: 150.00 given back no row records")
	require.Equal(t, int64(15000), before[byAttempts.ID].Refunded, "the rows: 150.00 given back by its second attempt")

	require.NoError(t, db.Migrate(ctx, d.Pool))

	for id, want := range before {
		after, err := d.Store.BookingMoneySummary(ctx, booking(t, d, id))
		require.NoError(t, err)
		assert.Equal(t, want, after, "the booking's money after the upgrade is what its rows said (%s)", id)
		assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM money_ledger WHERE kind = 'refund_asked' AND cause = 'cancel'
			AND booking_id = $1`, id), "the cancel's refund due is drawn, as it is for a REFUNDING booking")
	}
	assert.Zero(t, count(t, d, `SELECT count(*) FROM money_ledger WHERE cause = 'unplanned'`),
		"the attempts find the cancel's refund owed and ask nothing more")
	d.AssertLedgerAgrees(t)
}

// The lock order of migration 00032 says no transaction holds a booking's 'booking-events:'
// advisory lock while it waits for a lock that a transaction waiting for it holds; ledger_post
// (00036) says posts on one booking wait in one order (its money_kept_by_booking row, then the
// balances). The amendments' triggers broke both: booking_amendments_queue_event fired before
// ledger_amendment (triggers fire in name order), so an amendment applied with money took the
// booking's advisory lock first and its money_kept_by_booking row second, while a refund's
// webhook (SettleRefund: ledger_refund, then refunds_queue_event) took them the other way round.
// With a subscriber to both events, a balance paid while a refund of the same booking settled
// deadlocked, and PostgreSQL aborted one of the two. The ledger's triggers are now named to fire
// first on their tables (_ledger_*): the money's lock, then the events'.
func TestReview34AnAmendmentAndARefundsWebhookOfOneBookingDoNotDeadlock(t *testing.T) {
	t.Parallel()
	d, ctx := subscribed(t, "booking.amended", "booking.refunded")
	b := review34PendingGoodwill(t, d, 2500)
	am, _ := amend(t, d, amendParams(b, "longer", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentBalanceDue, am.Status)
	recordPayment(t, d, b.ID, "pi_balance", am.Difference)

	// Another post on the booking (any entry of its payments) holds its ledger row a moment, so
	// both transactions arrive while it does: the webhook first, then the balance.
	blocker, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = blocker.Rollback(ctx) }()
	_, err = blocker.Exec(ctx, `SELECT 1 FROM money_kept_by_booking WHERE booking_id = $1 FOR UPDATE`, b.ID)
	require.NoError(t, err)

	webhook, balance := make(chan error, 1), make(chan error, 1)
	go func() { webhook <- d.Store.SettleRefund(ctx, "re_gw", true, "") }()
	waitForLockWaiters(t, d, 1)
	go func() {
		_, _, err := d.Store.SettleAmendment(ctx, b.ID, am.ID, domain.Payment{ID: "pi_balance", Amount: am.Difference,
			Currency: "EUR"})
		balance <- err
	}()
	waitForLockWaiters(t, d, 2)
	require.NoError(t, blocker.Commit(ctx))

	assert.NoError(t, <-webhook, "the refund's webhook")
	assert.NoError(t, <-balance, "the balance paid")
}

// The ledger's triggers fire before every other AFTER ROW trigger of their tables (a table's
// triggers of one timing fire in name order), so a transaction takes a booking's money before its
// events' lock whichever table it writes; a trigger added later whose name sorts before them
// fails this.
func TestTheLedgersTriggersFireFirstOnTheirTables(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	rows, err := d.Pool.Query(context.Background(), `SELECT t.tgrelid::regclass::text, t.tgname, p.proname LIKE 'ledger\_%'
		FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
		WHERE NOT t.tgisinternal AND t.tgtype & 1 = 1 AND t.tgtype & 66 = 0
			AND t.tgrelid IN (SELECT tgrelid FROM pg_trigger l JOIN pg_proc f ON f.oid = l.tgfoid WHERE f.proname LIKE 'ledger\_after\_%')
		ORDER BY 1, t.tgname COLLATE "C"`)
	require.NoError(t, err)
	order := map[string][]string{}
	others := map[string]bool{}
	for rows.Next() {
		var table, name string
		var ledger bool
		require.NoError(t, rows.Scan(&table, &name, &ledger))
		if ledger {
			assert.False(t, others[table], "%s: %s fires after %v", table, name, order[table])
		} else {
			others[table] = true
		}
		order[table] = append(order[table], name)
	}
	require.NoError(t, rows.Err())
	for _, table := range []string{"bookings", "booking_amendments", "payments", "refunds", "staff_refunds", "price_changes"} {
		assert.NotEmpty(t, order[table], "%s has the ledger's trigger", table)
	}
	assert.Equal(t, []string{"_ledger_amendment", "_ledger_channel_amendment", "booking_amendments_queue_event"},
		order["booking_amendments"], "one of each, the ledger's first")
	t.Logf("AFTER ROW triggers in firing order: %v", order)
}
