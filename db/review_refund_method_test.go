package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestReviewAClientKeyNamedLikeADerivedStepHijacksItsMethod: Idempotency-Key allows "-" (so
// "no-show" is a valid client key). A goodwill refund under the client key "no-show" handed over
// in cash makes chosenRefundMethod read the no-show's own refund (key "no-show@<checkIn>", its
// attempts "<id>/staff-no-show@<checkIn>/<n>", cut at the first "@") as that goodwill's: the
// no-show refund of an online payment is recorded as cash handed over at the desk, succeeded,
// never sent to the provider.
func TestReviewAClientKeyNamedLikeADerivedStepHijacksItsMethod(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	b := reviewConfirmedPaid(t, d, "c-hijack")
	pay := "pi_c-hijack"

	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "no-show"), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: 1000, Currency: "EUR", Reason: "goodwill", Actor: "desk-1", Method: domain.MethodCash})
	require.NoError(t, err)

	key := db.NoShowKey(b.CheckIn) // the no-show's derived refund, as the workflow makes it (no method: as paid)
	_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, key), BookingID: b.ID,
		Kind: db.RefundNoShow, Amount: 2000, Currency: "EUR", Reason: "no-show terms", Actor: db.ActorNoShow})
	require.NoError(t, err)
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep(key, 0, pay) + "/1",
		BookingID: b.ID, PaymentID: pay, Amount: 2000, Currency: "EUR", Reason: "no-show terms"})
	require.NoError(t, err)
	assert.Equal(t, []string{"requested", domain.MethodProvider}, []string{a.Status, a.Method},
		"the no-show's refund of an online payment goes to the provider, not as the goodwill's cash")
}

// TestReviewAReversalIsGivenBackByItsPaymentsMethod: a 30.00 cash payment entered by mistake is
// reversed with method card_terminal (the API and StartStaffRefund accept a method with
// reverses). The reversal is recorded as a card_terminal refund of a cash payment: the cashier's
// cash-up counts 30.00 cash in and 30.00 out on the terminal, and the drawer is 30.00 over.
func TestReviewAReversalIsGivenBackByItsPaymentsMethod(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 9)
	b := hold(t, d, "g-rev", nights(dec10, 2), 1)
	wrong := deskTakes(t, d, b.ID, "typo", domain.MethodCash, "desk-1", 3000)
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "rev"), BookingID: b.ID,
		Kind: db.RefundReversal, Amount: 3000, Currency: "EUR", Reason: "entered by mistake", Actor: "desk-1",
		Parts: []domain.Payment{{ID: wrong, Amount: 3000, Currency: "EUR"}}, Method: domain.MethodCardTerminal})
	if err != nil {
		return // refused: sound
	}
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep("rev", 0, wrong) + "/1",
		BookingID: b.ID, PaymentID: wrong, Amount: 3000, Currency: "EUR", Reason: "entered by mistake", RecordedBy: "desk-1"})
	require.NoError(t, err)
	assert.Equal(t, domain.MethodCash, a.Method, "a reversal undoes the cash payment it reverses: it cannot be given back on the terminal")
}

// TestReviewAnEarlyDepartureIsNoNoShowInTheDatabase: a confirmed stay nobody checked in, whose
// guest left early on its first day (DepartEarly: it stays CONFIRMED, the nights after go back,
// the early departure's refund is recorded). Only the workflow's memory (booking.departed) keeps
// it from being a no-show, and a resumed workflow (worker/resume.go builds Resume without
// Departed) has lost it: the API's noShowable and the validator let the desk's no-show by hand
// through, and MarkNoShow marks the departed booking NO_SHOW (and computes a no-show refund on top
// of the departure's). The database step should answer it as it is.
func TestReviewAnEarlyDepartureIsNoNoShowInTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	b := reviewConfirmedPaid(t, d, "c-left")
	left, err := d.Store.DepartEarly(ctx, b.ID, dec10.Time().Add(20*time.Hour))
	require.NoError(t, err)
	require.True(t, left.Begun)
	if left.Refund > 0 {
		_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, db.EarlyDepartureKey(left.Booking.CheckOut)),
			BookingID: b.ID, Kind: db.RefundEarlyDeparture, Amount: left.Refund, Currency: "EUR", Reason: "the guest left early",
			Actor: "desk", Parts: []domain.Payment{{ID: "pi_c-left", Amount: left.Refund, Currency: "EUR"}}})
		require.NoError(t, err)
	}
	out, err := d.Store.MarkNoShow(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, out.Booking.Status, "a guest who stayed and left early is no no-show")
	assert.Zero(t, out.Refund)
}

// TestReviewAReversalByAnotherStaffDuringTheTakersCloseIsInNoCashUp (535e135): a reversal's money
// is counted in the cash-up of the payment's taker (cashierOf), but its attempt takes the lock of
// who records it (cashierMoney(a.RecordedBy)). fin-1 reverses desk-1's 30.00 cash entered by
// mistake while desk-1's shift is being closed: the attempt's transaction has begun (dated inside
// the shift) and waits on the payment's row; desk-1's close does not wait for it (another
// cashier's lock), and the reversal commits dated inside the closed shift. It is in neither
// desk-1's closed cash-up nor the next one: the very race the lock was added for.
func TestReviewAReversalByAnotherStaffDuringTheTakersCloseIsInNoCashUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 9)
	from := dbNow(t, d)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	wrong := deskTakes(t, d, b.ID, "typo", domain.MethodCash, "desk-1", 3000)
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "rev"), BookingID: b.ID,
		Kind: db.RefundReversal, Amount: 3000, Currency: "EUR", Reason: "entered by mistake", Actor: "fin-1",
		Parts: []domain.Payment{{ID: wrong, Amount: 3000, Currency: "EUR"}}})
	require.NoError(t, err)

	other, err := d.Pool.Begin(ctx) // another writer holds the payment's row a moment
	require.NoError(t, err)
	defer other.Rollback(ctx) //nolint:errcheck
	_, err = other.Exec(ctx, `SELECT 1 FROM payments WHERE payment_id = $1 FOR UPDATE`, wrong)
	require.NoError(t, err)
	given := make(chan error, 1)
	go func() {
		_, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep("rev", 0, wrong) + "/1",
			BookingID: b.ID, PaymentID: wrong, Amount: 3000, Currency: "EUR", Reason: "entered by mistake", RecordedBy: "fin-1"})
		given <- err
	}()
	waitForLockWaiters(t, d, 1)

	to := dbNow(t, d)
	shift := db.CashUpShift{Site: db.Site{HotelID: "h1"}, Cashier: "desk-1", From: from, To: to}
	done := make(chan error, 1)
	var closed db.CashUp
	go func() {
		var err error
		closed, _, err = d.Store.CloseCashUp(ctx, db.CloseCashUp{CashUpShift: shift, Key: "close-1", ClosedBy: "desk-1",
			Counted: []db.CashCount{{Method: "cash", Currency: "EUR", Amount: 0}}})
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(3 * time.Second):
		require.NoError(t, other.Commit(ctx))
		require.NoError(t, <-done)
	}
	_ = other.Commit(ctx)
	if err := <-given; err != nil {
		// Fixed: the attempt holds the taker's lock, so the close waited for it; the attempt gave up
		// waiting for the payment's row (lock_timeout) and its activity tries again, after the close.
		require.ErrorContains(t, err, "lock timeout")
		_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep("rev", 0, wrong) + "/1",
			BookingID: b.ID, PaymentID: wrong, Amount: 3000, Currency: "EUR", Reason: "entered by mistake", RecordedBy: "fin-1"})
		require.NoError(t, err)
	}

	var inClosed int64
	for _, l := range closed.Lines {
		if l.Method == "cash" {
			inClosed += l.GivenBack
		}
	}
	next, err := d.Store.CashUpExpected(ctx, db.CashUpShift{Site: shift.Site, Cashier: "desk-1", From: to, To: to.Add(time.Hour)})
	require.NoError(t, err)
	var inNext int64
	for _, l := range next {
		inNext += l.GivenBack
	}
	whole, err := d.Store.CashUpExpected(ctx, db.CashUpShift{Site: shift.Site, Cashier: "desk-1", From: from, To: to.Add(time.Hour)})
	require.NoError(t, err)
	var inWhole int64
	for _, l := range whole {
		inWhole += l.GivenBack
	}
	require.Equal(t, int64(3000), inWhole, "control: desk-1's cash-up over both shifts counts the reversal")
	assert.Equal(t, int64(3000), inClosed+inNext, "the 30.00 reversed is in desk-1's closed cash-up or the next one")
}

// TestReviewACashRefundOfAnOnlinePaymentIsInTheCashUp: 50.00 of a stay paid online handed over
// in cash by desk-1 leaves their drawer: their cash-up counts it given back in cash.
func TestReviewACashRefundOfAnOnlinePaymentIsInTheCashUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	from := dbNow(t, d)
	online := reviewConfirmedPaid(t, d, "c-cashup")
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(online.ID, "gw-cash"), BookingID: online.ID,
		Kind: db.RefundGoodwill, Amount: 5000, Currency: "EUR", Reason: "noisy room", Actor: "desk-1", Method: domain.MethodCash})
	require.NoError(t, err)
	staffAttempt(t, d, online, "gw-cash", 0, "pi_c-cashup", 5000)
	lines, err := d.Store.CashUpExpected(ctx, db.CashUpShift{Site: db.Site{HotelID: "h1"}, Cashier: "desk-1", From: from,
		To: dbNow(t, d).Add(time.Second)})
	require.NoError(t, err)
	var cash int64
	for _, l := range lines {
		if l.Method == domain.MethodCash {
			cash += l.GivenBack
		}
	}
	assert.Equal(t, int64(5000), cash)
	d.AssertLedgerAgrees(t)
}
