package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Money staff steer (issue 21), on the store alone: desk payments, prices set by hand, refunds
// that keep the units, and the bound the store puts on every refund. The races are in
// staff_money_race_test.go. Every booking here is two nights of h1/double: 200.00 EUR.

const twoNights = 20000

// deskPayment is a cash payment of amount the desk took for booking id under key.
func deskPayment(id, key string, amount int64) db.DeskPayment {
	return db.DeskPayment{BookingID: id, Key: key, Amount: amount, Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"}
}

// takeDesk takes desk payment p and requires it to be taken.
func takeDesk(t *testing.T, d *testsuite.Database, p db.DeskPayment) domain.Booking {
	t.Helper()
	b, err := d.Store.TakeDeskPayment(context.Background(), p)
	require.NoError(t, err)
	return b
}

// heldDeposit takes desk payment p as the release before issue 39 did, leaving a hold its
// payment does not cover on hold: such holds were in the database when it was upgraded, and
// the workflows still end them (the rest paid, the hold run out).
func heldDeposit(t *testing.T, d *testsuite.Database, p db.DeskPayment) domain.Booking {
	t.Helper()
	b, err := d.Store.TakeDeskDepositKeepingTheHold(context.Background(), p)
	require.NoError(t, err)
	return b
}

// providerPaid is a customer's two nights confirmed by a provider payment its webhook recorded.
func providerPaid(t *testing.T, d *testsuite.Database, customer string) domain.Booking {
	t.Helper()
	b := paidBooking(t, d, customer, nights(dec10, 2), 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	return b
}

// goodwill is a goodwill refund of amount on booking b under key, drawn on its payment.
func goodwill(b domain.Booking, key string, amount int64) db.StaffRefund {
	return db.StaffRefund{ID: db.StaffRefundID(b.ID, key), BookingID: b.ID, Kind: db.RefundGoodwill, Amount: amount,
		Currency: "EUR", Reason: "the air conditioning was broken", Actor: "desk-1",
		Parts: []domain.Payment{{ID: b.PaymentID, Amount: amount, Currency: "EUR"}}}
}

// count runs a count(*) query.
func count(t testing.TB, d *testsuite.Database, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// confirmations is how many times booking id went from HOLD to CONFIRMED.
func confirmations(t *testing.T, d *testsuite.Database, id string) int {
	t.Helper()
	return count(t, d, `SELECT count(*) FROM booking_changes WHERE booking_id = $1
		AND from_status = 'HOLD' AND to_status = 'CONFIRMED'`, id)
}

func payments(t *testing.T, d *testsuite.Database, id string) int {
	t.Helper()
	return count(t, d, `SELECT count(*) FROM payments WHERE booking_id = $1`, id)
}

// A deposit taken at the desk keeps the booking (issue 39): it confirms the hold, and the rest
// is due at the desk, with no date that lapses it.
func TestADepositThenTheBalanceTakenAtTheDeskConfirmTheBookingOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	require.Equal(t, int64(twoNights), b.Price.Total)

	deposit := takeDesk(t, d, deskPayment(b.ID, "deposit", 5000))
	assert.Equal(t, domain.StatusConfirmed, deposit.Status, "a deposit keeps the booking")
	assert.Equal(t, int64(5000), deposit.Paid)
	assert.True(t, deposit.BalanceDueAt.IsZero(), "the rest is due at the desk: nothing lapses")
	assert.Equal(t, domain.DeskPaymentID(b.ID, "deposit"), deposit.PaymentID, "the first payment names the booking's")
	_, err := d.Store.Release(context.Background(), b.ID, domain.StatusExpired)
	assert.ErrorIs(t, err, domain.ErrConflict, "a deposit's booking does not run out as a hold")

	p := deskPayment(b.ID, "balance", twoNights-5000)
	p.Method, p.TakenBy = domain.MethodCardTerminal, "desk-2"
	paid := takeDesk(t, d, p)
	assert.Equal(t, domain.StatusConfirmed, paid.Status)
	assert.Equal(t, int64(twoNights), paid.Paid)
	assert.Equal(t, deposit.PaymentID, paid.PaymentID)
	assert.Equal(t, 1, confirmations(t, d, b.ID))

	_, err = d.Store.TakeDeskPayment(context.Background(), deskPayment(b.ID, "more", 1))
	assert.ErrorIs(t, err, domain.ErrConflict, "nothing is due any more")
	pays, _, err := d.Store.BookingMoney(context.Background(), b.ID)
	require.NoError(t, err)
	require.Len(t, pays, 2)
	assert.Equal(t, []string{domain.MethodCash, domain.MethodCardTerminal}, []string{pays[0].Method, pays[1].Method})
	assert.Equal(t, []string{"desk-1", "desk-2"}, []string{pays[0].TakenBy, pays[1].TakenBy})
	assert.Equal(t, 1, confirmations(t, d, b.ID))
	d.AssertMoneyBalances(t)
}

func TestADeskPaymentUnderTheSameKeyIsTakenOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	first := takeDesk(t, d, deskPayment(b.ID, "k", 5000))

	again := takeDesk(t, d, deskPayment(b.ID, "k", 5000))
	assert.Equal(t, first, again, "the same payment again changes nothing")
	assert.Equal(t, 1, payments(t, d, b.ID), "no second row")

	other := deskPayment(b.ID, "k", 6000)
	_, err := d.Store.TakeDeskPayment(ctx, other)
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "another amount under the key")
	other = deskPayment(b.ID, "k", 5000)
	other.Method = domain.MethodBankTransfer
	_, err = d.Store.TakeDeskPayment(ctx, other)
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "another method under the key")
	assert.Equal(t, 1, payments(t, d, b.ID))
	assert.Equal(t, int64(5000), booking(t, d, b.ID).Paid)
}

func TestADeskPaymentIsRefusedAboveTheDueInAnotherCurrencyOrOnAnExpiredHold(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)

	_, err := d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "k", twoNights+1))
	assert.ErrorIs(t, err, domain.ErrConflict, "more than the price")
	usd := deskPayment(b.ID, "k", 5000)
	usd.Currency = "USD"
	_, err = d.Store.TakeDeskPayment(ctx, usd)
	assert.ErrorIs(t, err, domain.ErrInvalid, "another currency")
	crypto := deskPayment(b.ID, "k", 5000)
	crypto.Method = "bitcoin"
	_, err = d.Store.TakeDeskPayment(ctx, crypto)
	assert.ErrorIs(t, err, domain.ErrInvalid, "not a desk method")
	_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "k", 0))
	assert.ErrorIs(t, err, domain.ErrInvalid, "nothing")
	assert.Zero(t, payments(t, d, b.ID))

	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET expires_at = now() - interval '1 second' WHERE id = $1`, b.ID)
	require.NoError(t, err)
	_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "k", 5000))
	assert.ErrorIs(t, err, domain.ErrConflict, "the hold expired by the database's clock")
	_, err = d.Store.Release(ctx, b.ID, domain.StatusExpired)
	require.NoError(t, err)
	_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "k", 5000))
	assert.ErrorIs(t, err, domain.ErrConflict, "an expired booking takes no payment")
	assert.Zero(t, payments(t, d, b.ID))
	assert.Zero(t, booking(t, d, b.ID).Paid)
}

// TestADeskConfirmedBookingTakesWhatIsDueAndNoMore: confirmed by the desk with nothing paid
// (Confirm(nil)), the booking still has its price due; the desk takes it, in parts, and no more.
func TestADeskConfirmedBookingTakesWhatIsDueAndNoMore(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	b, err := d.Store.Confirm(ctx, b.ID, nil)
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, b.Status)
	require.Zero(t, b.Paid)

	_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "k1", twoNights+1))
	assert.ErrorIs(t, err, domain.ErrConflict)
	part := takeDesk(t, d, deskPayment(b.ID, "k1", 12000))
	assert.Equal(t, domain.StatusConfirmed, part.Status)
	assert.Equal(t, int64(12000), part.Paid)
	_, err = d.Store.TakeDeskPayment(ctx, deskPayment(b.ID, "k2", twoNights-12000+1))
	assert.ErrorIs(t, err, domain.ErrConflict, "one cent above the due")
	rest := takeDesk(t, d, deskPayment(b.ID, "k2", twoNights-12000))
	assert.Equal(t, int64(twoNights), rest.Paid)
	assert.Equal(t, 1, confirmations(t, d, b.ID))
	sum, err := d.Store.BookingMoneySummary(ctx, rest)
	require.NoError(t, err)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: twoNights}, sum)
	d.AssertMoneyBalances(t)
}

func TestAPriceSetByHandIsRecordedAndAPaymentOfTheOldPriceNoLongerConfirms(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)

	changed, err := d.Store.ChangePrice(ctx, db.PriceChange{BookingID: b.ID, Total: 15000, Currency: "EUR",
		Reason: "the air conditioning is broken", Actor: "desk-1"})
	require.NoError(t, err)
	assert.Equal(t, int64(15000), changed.Price.Total)
	assert.Equal(t, domain.StatusHold, changed.Status)
	var before, after int64
	var currency, reason, actor string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT before, after, currency, reason, actor FROM price_changes
		WHERE booking_id = $1`, b.ID).Scan(&before, &after, &currency, &reason, &actor))
	assert.Equal(t, []any{int64(twoNights), int64(15000), "EUR", "the air conditioning is broken", "desk-1"},
		[]any{before, after, currency, reason, actor})
	n, err := d.Store.PriceChangeCount(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	_, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_old", Amount: twoNights, Currency: "EUR"})
	assert.ErrorIs(t, err, domain.ErrConflict, "a payment of the old price")
	assert.NotContains(t, err.Error(), "expired", "the hold is live: the refusal says why, for the operator")
	assert.Contains(t, err.Error(), "15000 EUR")
	assert.Equal(t, domain.StatusHold, booking(t, d, b.ID).Status)
	confirmed, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_new", Amount: 15000, Currency: "EUR"})
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, confirmed.Status)
	assert.Equal(t, int64(15000), confirmed.Paid)
}

func TestAPriceChangeIsRefusedBelowZeroInAnotherCurrencyWithoutAReasonOrOncePaid(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	change := func(total int64, currency, reason string) error {
		_, err := d.Store.ChangePrice(ctx, db.PriceChange{BookingID: b.ID, Total: total, Currency: currency,
			Reason: reason, Actor: "desk-1"})
		return err
	}

	assert.ErrorIs(t, change(-1, "EUR", "discount"), domain.ErrInvalid, "below zero")
	assert.ErrorIs(t, change(15000, "USD", "discount"), domain.ErrInvalid, "another currency")
	assert.ErrorIs(t, change(15000, "EUR", ""), domain.ErrInvalid, "no reason")
	takeDesk(t, d, deskPayment(b.ID, "deposit", 5000))
	assert.ErrorIs(t, change(15000, "EUR", "discount"), domain.ErrConflict, "after a deposit")
	n, err := d.Store.PriceChangeCount(ctx, b.ID)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing recorded")
	assert.Equal(t, int64(twoNights), booking(t, d, b.ID).Price.Total)

	confirmed := hold(t, d, "g2", nights(dec10, 2), 1)
	_, err = d.Store.Confirm(ctx, confirmed.ID, nil)
	require.NoError(t, err)
	_, err = d.Store.ChangePrice(ctx, db.PriceChange{BookingID: confirmed.ID, Total: 15000, Currency: "EUR",
		Reason: "discount", Actor: "desk-1"})
	assert.ErrorIs(t, err, domain.ErrConflict, "a confirmed booking")
	expired := hold(t, d, "g3", nights(dec10, 2), 1)
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET expires_at = now() - interval '1 second' WHERE id = $1`, expired.ID)
	require.NoError(t, err)
	_, err = d.Store.ChangePrice(ctx, db.PriceChange{BookingID: expired.ID, Total: 15000, Currency: "EUR",
		Reason: "discount", Actor: "desk-1"})
	assert.ErrorIs(t, err, domain.ErrConflict, "an expired hold")
}

// TestTheStoreNeverRefundsMoreThanWasPaidNorLessThanNothing: whatever refundDue says, the refund
// due StartRefund stores is within [0, what the booking keeps], and what it keeps is lowered by
// a refund that kept the units.
func TestTheStoreNeverRefundsMoreThanWasPaidNorLessThanNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	cases := []struct {
		customer string
		goodwill int64
		asked    int64
		want     int64
	}{
		{"more", 0, twoNights + 5000, twoNights},
		{"negative", 0, -5000, 0},
		{"after-goodwill", 6000, twoNights, twoNights - 6000},
	}
	for _, c := range cases {
		b := providerPaid(t, d, c.customer)
		if c.goodwill > 0 {
			_, _, err := d.Store.StartStaffRefund(ctx, goodwill(b, "g", c.goodwill))
			require.NoError(t, err)
		}
		got, err := d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return c.asked, nil })
		require.NoError(t, err, c.customer)
		assert.Equal(t, domain.StatusRefunding, got.Status, c.customer)
		assert.Equal(t, c.want, got.RefundDue, "%s: asked for %d", c.customer, c.asked)
		assert.Equal(t, c.want, booking(t, d, b.ID).RefundDue, c.customer)
	}
}

func TestADeskPaymentsRefundIsMadeAtTheDeskAndAProvidersIsRequested(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	desk := hold(t, d, "g1", nights(dec10, 2), 1)
	p := deskPayment(desk.ID, "deposit", 5000)
	p.Method = domain.MethodCardTerminal
	takeDesk(t, d, p)
	provider := providerPaid(t, d, "g2")

	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: "r-desk", BookingID: desk.ID,
		PaymentID: domain.DeskPaymentID(desk.ID, "deposit"), Amount: 5000, Currency: "EUR", Reason: "goodwill", RecordedBy: "desk-1"})
	require.NoError(t, err)
	assert.Equal(t, "succeeded", a.Status, "given back at the desk, at once, by the staff member who asked")
	assert.Equal(t, domain.MethodCardTerminal, a.Method, "by the payment's method")

	cash := hold(t, d, "g3", nights(dec10, 2), 1)
	takeDesk(t, d, deskPayment(cash.ID, "deposit", 5000))
	a, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: "r-cash", BookingID: cash.ID,
		PaymentID: domain.DeskPaymentID(cash.ID, "deposit"), Amount: 5000, Currency: "EUR", Reason: "goodwill", RecordedBy: "desk-1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"succeeded", domain.MethodCash}, []string{a.Status, a.Method})

	a, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: "r-provider", BookingID: provider.ID,
		PaymentID: provider.PaymentID, Amount: 5000, Currency: "EUR", Reason: "goodwill"})
	require.NoError(t, err)
	assert.Equal(t, []string{"requested", domain.MethodProvider}, []string{a.Status, a.Method})
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, "r-desk", "re_late", "failed", "late answer"))
	a, err = d.Store.GetRefundAttempt(ctx, "r-desk")
	require.NoError(t, err)
	assert.Equal(t, "succeeded", a.Status, "a desk refund's success is final")
}

func summary(t *testing.T, d *testsuite.Database, id string) db.MoneySummary {
	t.Helper()
	m, err := d.Store.BookingMoneySummary(context.Background(), booking(t, d, id))
	require.NoError(t, err)
	return m
}

func TestABookingsMoneySummaryShowsPaidRefundedRefundingAndDue(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)

	// A hold with a deposit.
	deposit := hold(t, d, "g1", nights(dec10, 2), 1)
	takeDesk(t, d, deskPayment(deposit.ID, "deposit", 5000))
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: 5000, Due: twoNights - 5000}, summary(t, d, deposit.ID))

	// A confirmed booking given 60.00 back in goodwill: refunding until its refund succeeds.
	b := providerPaid(t, d, "g2")
	_, _, err := d.Store.StartStaffRefund(ctx, goodwill(b, "g", 6000))
	require.NoError(t, err)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: twoNights, Refunding: 6000}, summary(t, d, b.ID))
	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: "r-g2", BookingID: b.ID, PaymentID: b.PaymentID,
		Amount: 6000, Currency: "EUR", Reason: "goodwill"})
	require.NoError(t, err)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: twoNights, Refunding: 6000}, summary(t, d, b.ID),
		"requested is not given back yet")
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, "r-g2", "re_g2", "succeeded", ""))
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: twoNights, Refunded: 6000}, summary(t, d, b.ID))
	assert.Equal(t, domain.StatusConfirmed, booking(t, d, b.ID).Status, "a goodwill refund keeps the booking")

	// A booking refunded with a fee of 30.00 kept.
	r := providerPaid(t, d, "g3")
	_, err = d.Store.StartRefund(ctx, r.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid - 3000, nil })
	require.NoError(t, err)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: twoNights, Refunding: twoNights - 3000}, summary(t, d, r.ID))
	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: "r-g3", BookingID: r.ID, PaymentID: r.PaymentID,
		Amount: twoNights - 3000, Currency: "EUR", Reason: "cancelled"})
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, "r-g3", "re_g3", "succeeded", ""))
	_, err = d.Store.FinishRefund(ctx, r.ID)
	require.NoError(t, err)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Paid: twoNights, Refunded: twoNights - 3000}, summary(t, d, r.ID))
}

func manualRefund(paymentID, key string, amount int64) db.ManualRefund {
	return db.ManualRefund{PaymentID: paymentID, Key: key, Amount: amount, Currency: "EUR", Method: domain.MethodBankTransfer,
		Reference: "TRF-" + key, Reason: "paid back by transfer", Actor: "finance-1"}
}

// TestARefundSettledByHandIsRecordedAgainstAPaymentNoBookingKeeps: a payment that came for an
// expired hold and a second payment for a confirmed booking are kept by no booking; finance
// records what it gave back of them by hand, never more than is left of each.
func TestARefundSettledByHandIsRecordedAgainstAPaymentNoBookingKeeps(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	expired := hold(t, d, "g1", nights(dec10, 2), 1)
	_, err := d.Store.Release(ctx, expired.ID, domain.StatusExpired)
	require.NoError(t, err)
	recordPayment(t, d, expired.ID, "pi_late", twoNights)

	a, err := d.Store.RecordManualRefund(ctx, manualRefund("pi_late", "k1", 12000))
	require.NoError(t, err)
	assert.Equal(t, db.ManualRefundID("pi_late", "k1"), a.ID)
	assert.Equal(t, []any{"succeeded", domain.MethodBankTransfer, "TRF-k1", "finance-1", int64(12000), expired.ID},
		[]any{a.Status, a.Method, a.Reference, a.RecordedBy, a.Amount, a.BookingID})
	log := mustAudit(t, d, expired.ID)
	require.Len(t, log, 1)
	assert.Equal(t, "manual-refund", log[0].Action)
	assert.Equal(t, "finance-1", log[0].Actor)
	assert.EqualValues(t, 12000, log[0].Details["refundedAfter"])

	again, err := d.Store.RecordManualRefund(ctx, manualRefund("pi_late", "k1", 12000))
	require.NoError(t, err)
	assert.Equal(t, a.ID, again.ID, "the same key again records nothing")
	_, err = d.Store.RecordManualRefund(ctx, manualRefund("pi_late", "k1", 11000))
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch)
	_, err = d.Store.RecordManualRefund(ctx, manualRefund("pi_late", "k2", twoNights-12000+1))
	assert.ErrorIs(t, err, domain.ErrConflict, "above what is left of the payment")
	_, err = d.Store.RecordManualRefund(ctx, manualRefund("pi_late", "k2", twoNights-12000))
	require.NoError(t, err, "exactly what is left")
	assert.Equal(t, 2, count(t, d, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_late'`))
	assert.Len(t, mustAudit(t, d, expired.ID), 2)

	// A refund that failed leaves its amount to give back.
	confirmed := providerPaid(t, d, "g2")
	recordPayment(t, d, confirmed.ID, "pi_second", twoNights)
	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: "r-second", BookingID: confirmed.ID,
		PaymentID: "pi_second", Amount: twoNights, Currency: "EUR", Reason: "second payment"})
	require.NoError(t, err)
	_, err = d.Store.RecordManualRefund(ctx, manualRefund("pi_second", "k1", 1))
	assert.ErrorIs(t, err, domain.ErrConflict, "a refund under way counts")
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, "r-second", "", "failed", "card closed"))
	_, err = d.Store.RecordManualRefund(ctx, manualRefund("pi_second", "k1", twoNights))
	require.NoError(t, err, "a failed refund does not")

	_, err = d.Store.RecordManualRefund(ctx, manualRefund(confirmed.PaymentID, "k1", 1000))
	assert.ErrorIs(t, err, domain.ErrConflict, "a payment a confirmed booking keeps")
	_, err = d.Store.RecordManualRefund(ctx, manualRefund("pi_nobody", "k1", 1000))
	assert.ErrorIs(t, err, domain.ErrNotFound)
	assert.Len(t, mustAudit(t, d, confirmed.ID), 1)
}

func mustAudit(t *testing.T, d *testsuite.Database, bookingID string) []db.AuditEntry {
	t.Helper()
	log, err := d.Store.AuditLog(context.Background(), bookingID)
	require.NoError(t, err)
	return log
}

// TestTheDeskTakesTheBalanceOfAnAmendmentOfABookingPaidAtTheDesk: a booking paid at the desk
// (cash deposit and card-terminal balance) is extended by a night. Its payment_id names its first
// desk payment, so Amend takes it for a booking with a provider payment and waits for a provider
// balance (BALANCE_DUE); its price is not raised, so a desk payment of the balance is refused as
// more than the 0 due. The guest at the desk cannot pay for the night, and the amendment lapses.
func TestTheDeskTakesTheBalanceOfAnAmendmentOfABookingPaidAtTheDesk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut.AddDays(1), 5)
	b := deskPaid(t, d, "extend-guest")
	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: soonStay.CheckOut.AddDays(1)}))
	require.Greater(t, a.Difference, int64(0))

	got, err := d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "extra-night", Amount: a.Difference,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err, "the amendment is %s: the desk takes its balance of %d", a.Status, a.Difference)
	assert.Equal(t, soonStay.CheckOut.AddDays(1), got.CheckOut, "the night paid for is the booking's")
	assert.Equal(t, got.Price.Total, got.Paid)
}

// TestADeskPaymentReversedOnANoShowCanBeTakenAgain: a booking paid at the desk (a cash deposit
// of 5000 and a card-terminal balance) is a no-show. The deposit was in fact paid by card: staff
// reverse it (a reversal is allowed on a NO_SHOW booking), and what it gave back is due again so
// that the payment it stood for is taken. deskPayable refuses any payment of a NO_SHOW booking,
// so the card payment can never be recorded: the books lose 5000 the guest paid.
func TestADeskPaymentReversedOnANoShowCanBeTakenAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := deskPaid(t, d, "noshow-guest")
	_, err := d.Store.NoShow(ctx, b.ID)
	require.NoError(t, err)
	deposit := domain.DeskPaymentID(b.ID, "deposit")
	_, after, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "rev"), BookingID: b.ID,
		Kind: db.RefundReversal, Amount: 5000, Currency: "EUR", Reason: "entered as cash, paid by card", Actor: "desk-1",
		Parts: []domain.Payment{{ID: deposit, Amount: 5000, Currency: "EUR"}}})
	require.NoError(t, err, "a reversal on a no-show is allowed")
	require.Equal(t, domain.StatusNoShow, after.Status)

	_, err = d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "deposit-card", Amount: 5000, Currency: "EUR",
		Method: domain.MethodCardTerminal, TakenBy: "desk-1"})
	assert.NoError(t, err, "what the reversal gave back is due again: the payment it stood for is taken")
}

// TestADeskPaymentReversedByARefundCanBeTakenAgain: "a desk payment that was entered by mistake
// is reversed by a refund, never deleted". The desk records 300.00 in cash for a card payment;
// the hold is confirmed. The cash is reversed (a refund of 300.00 at the desk) and the card
// payment entered: TakeDeskPayment computes what is due from what the payments brought before
// any refund (300.00), so it refuses it, and the booking stays CONFIRMED keeping nothing, with
// nothing due.
func TestADeskPaymentReversedByARefundCanBeTakenAgain(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	b, err := d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "cash", Amount: 30000,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, b.Status)
	_, b, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "reverse"), BookingID: b.ID,
		Kind: db.RefundReversal, Amount: 30000, Currency: "EUR", Reason: "entered as cash by mistake: it was a card",
		Actor: "desk-1", Parts: []domain.Payment{{ID: domain.DeskPaymentID(b.ID, "cash"), Amount: 30000, Currency: "EUR"}}})
	require.NoError(t, err)
	require.Zero(t, b.Paid)

	b, err = d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "card", Amount: 30000,
		Currency: "EUR", Method: domain.MethodCardTerminal, TakenBy: "desk-1"})
	require.NoError(t, err, "the card payment the cash stood for")
	assert.Equal(t, int64(30000), b.Paid)
}
