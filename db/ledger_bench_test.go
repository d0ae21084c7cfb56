package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkMoneyPathsWithTheLedger measures the database time of a payment's confirmation (its
// webhook recorded, then the booking confirmed) and of a partial refund (a goodwill refund, its
// attempt sent and succeeded), on a database with the ledger's triggers and on one without them
// (the release before the ledger, dropped in the same run), and reports the ratio (issue 34's
// goal: a confirmation at most 1.2x):
//
//	go test -run '^$' -bench MoneyPathsWithTheLedger -benchtime 300x ./db/
func BenchmarkMoneyPathsWithTheLedger(b *testing.B) {
	ctx := context.Background()
	setup := func(ledger bool) *testsuite.Database {
		d := testsuite.NewDatabase(b)
		require.NoError(b, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
			From: dec10, To: dec10.AddDays(30), TotalRooms: 1_000_000_000, Rate: &testsuite.TestRate}))
		if !ledger {
			_, err := d.Pool.Exec(ctx, `DROP TRIGGER ledger_payment ON payments; DROP TRIGGER ledger_booking ON bookings;
				DROP TRIGGER ledger_staff_refund ON staff_refunds; DROP TRIGGER ledger_refund ON refunds`)
			require.NoError(b, err)
		}
		return d
	}
	type spent struct{ confirm, refund time.Duration }
	// one booking's confirmation and partial refund on d, timed.
	one := func(d *testsuite.Database, customer string, s *spent) {
		h, err := d.Store.Reserve(ctx, holdParams(customer, "k", nights(dec10, 2), 1))
		require.NoError(b, err)
		pay := domain.Payment{ID: "pi_" + customer, Amount: h.Price.Total, Currency: h.Price.Currency}
		start := time.Now()
		_, err = d.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_" + pay.ID, Type: "payment_intent.succeeded",
			BookingID: h.ID, PaymentID: pay.ID, Succeeded: true, Amount: pay.Amount, Currency: pay.Currency}, []byte(`{}`))
		require.NoError(b, err)
		bk, err := d.Store.Confirm(ctx, h.ID, &pay)
		require.NoError(b, err)
		s.confirm += time.Since(start)
		start = time.Now()
		gw := goodwill(bk, "gw", 1000)
		gw.Currency, gw.Parts[0].Currency = pay.Currency, pay.Currency
		_, _, err = d.Store.StartStaffRefund(ctx, gw)
		require.NoError(b, err)
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: h.ID + "/staff-gw/1", BookingID: h.ID, PaymentID: pay.ID,
			Amount: 1000, Currency: pay.Currency, Reason: gw.Reason})
		require.NoError(b, err)
		require.NoError(b, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+a.ID, "succeeded", ""))
		s.refund += time.Since(start)
	}
	before, after := setup(false), setup(true)
	var without, with spent
	// The two databases take turns, so the machine's load falls on both alike.
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			one(before, fmt.Sprint("without-", i), &without)
			one(after, fmt.Sprint("with-", i), &with)
		} else {
			one(after, fmt.Sprint("with-", i), &with)
			one(before, fmt.Sprint("without-", i), &without)
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(per(with.confirm), "confirm-µs/op")
	b.ReportMetric(per(with.refund), "refund-µs/op")
	b.ReportMetric(per(with.confirm)/per(without.confirm), "confirm-x")
	b.ReportMetric(per(with.refund)/per(without.refund), "refund-x")
	b.Logf("confirmation %.0f µs without the ledger, %.0f µs with it; partial refund %.0f µs, %.0f µs",
		per(without.confirm), per(with.confirm), per(without.refund), per(with.refund))
}
