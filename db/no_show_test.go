package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// noShowPlan writes plan code of hotel h1, derived from BAR at 10% off, keeping noShow (with
// percent) of a no-show.
func noShowPlan(t *testing.T, d *testsuite.Database, code, noShow string, percent int) {
	t.Helper()
	p := flexible(code, domain.DefaultRatePlan)
	p.Policy.NoShow, p.Policy.NoShowPercent = noShow, percent
	_, err := d.Store.PutRatePlan(context.Background(), p)
	require.NoError(t, err)
}

// planHold holds one double of h1 for stay3 under plan, for customer.
func planHold(t *testing.T, d *testsuite.Database, customer, plan string) domain.Booking {
	t.Helper()
	p := holdParams(customer, "k-"+customer, stay3, 1)
	p.Request.RatePlan = plan
	b, err := d.Store.Reserve(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status, b.Refusal)
	return b
}

// paidInFull confirms hold b paid whole by the provider (payment pi_<customer>).
func paidInFull(t *testing.T, d *testsuite.Database, b domain.Booking) domain.Booking {
	t.Helper()
	pi := "pi_" + b.CustomerID
	recordPayment(t, d, b.ID, pi, b.Price.Total)
	b, err := d.Store.Confirm(context.Background(), b.ID, &domain.Payment{ID: pi, Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	return b
}

// settledRefund records staff refund r and the provider's success of each of its parts, as the booking
// workflow and its refund saga do, and returns the booking it leaves.
func settledRefund(t *testing.T, d *testsuite.Database, r db.StaffRefund) domain.Booking {
	t.Helper()
	ctx := context.Background()
	r, after, err := d.Store.StartStaffRefund(ctx, r)
	require.NoError(t, err)
	key := strings.TrimPrefix(r.ID, r.BookingID+"/")
	for i, part := range r.Parts {
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: r.BookingID + "/" + db.StaffRefundStep(key, i, part.ID) + "/1",
			BookingID: r.BookingID, PaymentID: part.ID, Amount: part.Amount, Currency: "EUR", Reason: r.Reason})
		require.NoError(t, err)
		require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+a.ID, "succeeded", ""))
	}
	return after
}

// giveNoShowRefund gives a no-show's refund back as the booking workflow does (the database draws
// its parts).
func giveNoShowRefund(t *testing.T, d *testsuite.Database, out db.NoShowOutcome) {
	t.Helper()
	after := settledRefund(t, d, db.StaffRefund{ID: db.StaffRefundID(out.Booking.ID, db.NoShowKey(out.Booking.CheckIn)),
		BookingID: out.Booking.ID, Kind: db.RefundNoShow, Amount: out.Refund, Currency: "EUR",
		Reason: "nobody checked in: the rate plan keeps the first night", Actor: db.ActorNoShow})
	require.Equal(t, out.Booking.Paid-out.Refund, after.Paid)
	assert.Equal(t, out.Booking.Price, after.Price, "a no-show's refund leaves the price")
}

// noShowChecksQuiet requires the checker's money, ledger and owed-refund checks to find nothing.
func noShowChecksQuiet(t *testing.T, d *testsuite.Database) {
	t.Helper()
	assert.Empty(t, checkerMoneyFindings(t, d))
	noLedgerFindings(t, d)
	owed, err := d.Store.OwedStaffRefunds(context.Background())
	require.NoError(t, err)
	assert.Empty(t, owed)
}

// TestANoShowGivesBackWhatItsPlanDoesNotKeep: three nights of different prices under a plan 10%
// off BAR (90.00, 135.00, 108.00). A first_night no-show keeps the first night (90.00) and gives
// back the rest, 243.00; asked again before the refund is recorded, the same; after, nothing. A
// percent plan keeping 50% of an odd total (3 x 111.11 = 333.33) keeps 166.66 and gives back
// 166.67 (rounded in the guest's favour). BAR keeps everything, as before. The units go back;
// the refund, recorded under no-show@<check-in> with kind no_show and given back, leaves the
// checker quiet, and the ledger asked it back with cause no_show.
func TestANoShowGivesBackWhatItsPlanDoesNotKeep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	_, err := d.Store.SetRates(ctx, "h1", "double", dec10.AddDays(1), dec10.AddDays(2), domain.Money{Amount: 15000, Currency: "EUR"}, false)
	require.NoError(t, err)
	_, err = d.Store.SetRates(ctx, "h1", "double", dec10.AddDays(2), dec13, domain.Money{Amount: 12000, Currency: "EUR"}, false)
	require.NoError(t, err)
	noShowPlan(t, d, "FIRST", domain.NoShowKeepsFirstNight, 0)
	pct := flexible("HALF", "")
	pct.Policy.NoShow, pct.Policy.NoShowPercent = domain.NoShowKeepsPercent, 50
	_, err = d.Store.PutRatePlan(ctx, pct)
	require.NoError(t, err)
	_, err = d.Store.SetPlanRates(ctx, "h1", "HALF", "double", dec10, dec13, domain.Money{Amount: 11111, Currency: "EUR"})
	require.NoError(t, err)

	first := paidInFull(t, d, planHold(t, d, "g-first", "FIRST"))
	require.Equal(t, int64(9000+13500+10800), first.Paid)
	out, err := d.Store.MarkNoShow(ctx, first.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusNoShow, out.Booking.Status)
	assert.Equal(t, int64(13500+10800), out.Refund, "all but the first night")
	assert.Equal(t, first.Paid, out.Booking.Paid, "the refund is the workflow's to make")
	again, err := d.Store.MarkNoShow(ctx, first.ID)
	require.NoError(t, err)
	assert.Equal(t, out, again, "asked again before the refund is recorded")
	giveNoShowRefund(t, d, out)
	again, err = d.Store.MarkNoShow(ctx, first.ID)
	require.NoError(t, err)
	assert.Zero(t, again.Refund, "refunded already")
	assert.Equal(t, int64(9000), again.Booking.Paid, "the first night is kept")

	half := paidInFull(t, d, planHold(t, d, "g-half", "HALF"))
	require.Equal(t, int64(33333), half.Paid)
	out, err = d.Store.MarkNoShow(ctx, half.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(16667), out.Refund, "half of 333.33 is 166.665: the odd cent goes back")
	giveNoShowRefund(t, d, out)

	bar := paidInFull(t, d, planHold(t, d, "g-bar", domain.DefaultRatePlan))
	out, err = d.Store.MarkNoShow(ctx, bar.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusNoShow, out.Booking.Status)
	assert.Zero(t, out.Refund, "the default plan keeps everything")

	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", stay3), "the units are back")
	var asked int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT COALESCE(sum(amount), 0) FROM money_ledger
		WHERE kind = 'refund_asked' AND cause = 'no_show'`).Scan(&asked))
	assert.Equal(t, int64(24300+16667), asked)
	noShowChecksQuiet(t, d)
	d.AssertInventoryMatchesBookings(t)

	// Migration 00048 goes down over the no_show rows (its checks are put back NOT VALID) and up again.
	require.NoError(t, db.RedoMigration(ctx, d.Pool, 48))
	var kinds int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM staff_refunds s JOIN money_commands m
		ON m.booking_id = s.booking_id AND s.id = m.booking_id || '/' || m.key WHERE s.kind = 'no_show' AND m.kind = 'no_show'`).Scan(&kinds))
	assert.Equal(t, 2, kinds, "each no-show's refund holds its key as a no_show command")
}

// TestANoShowGivesBackOnlyWhatItStillKeeps: a first_night booking given 50.00 back by staff
// before its no-show gives back what it keeps less the first night (333.00 - 50.00 - 90.00); one
// whose price was set by hand before payment keeps its first night as the total scaled it; one
// confirmed by staff without money keeps nothing and gives nothing back; one checked in is no
// no-show. The checker stays quiet.
func TestANoShowGivesBackOnlyWhatItStillKeeps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	noShowPlan(t, d, "FIRST", domain.NoShowKeepsFirstNight, 0)

	partly := paidInFull(t, d, planHold(t, d, "g-partly", "FIRST"))
	require.Equal(t, int64(3*9000-5000), settledRefund(t, d, goodwill(partly, "sorry", 5000)).Paid)
	out, err := d.Store.MarkNoShow(ctx, partly.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(3*9000-5000-9000), out.Refund)
	giveNoShowRefund(t, d, out)

	byHand := planHold(t, d, "g-hand", "FIRST")
	byHand, err = d.Store.ChangePrice(ctx, db.PriceChange{BookingID: byHand.ID, Total: 20000, Currency: "EUR",
		Reason: "a regular", Actor: "desk-1"})
	require.NoError(t, err)
	byHand = paidInFull(t, d, byHand)
	out, err = d.Store.MarkNoShow(ctx, byHand.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(20000-6666), out.Refund, "the first night as the total set by hand scaled it (9000 x 20000 / 27000)")
	giveNoShowRefund(t, d, out)

	unpaid := planHold(t, d, "g-staff", "FIRST")
	unpaid, err = d.Store.Confirm(db.WithActor(ctx, "desk-1"), unpaid.ID, nil)
	require.NoError(t, err)
	require.Zero(t, unpaid.Paid)
	out, err = d.Store.MarkNoShow(ctx, unpaid.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusNoShow, out.Booking.Status)
	assert.Zero(t, out.Refund, "paid nothing: nothing back")

	in := paidInFull(t, d, planHold(t, d, "g-in", "FIRST"))
	_, err = d.Store.CheckIn(ctx, in.ID)
	require.NoError(t, err)
	out, err = d.Store.MarkNoShow(ctx, in.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusCompleted, out.Booking.Status, "checked in meanwhile: left as it is")
	assert.Zero(t, out.Refund)

	noShowChecksQuiet(t, d)
	d.AssertInventoryMatchesBookings(t)
}
