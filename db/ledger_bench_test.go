package db_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkMoneyPathsWithTheLedger measures the database time of a payment's confirmation (its
// webhook recorded, then the booking confirmed) and of a partial refund (a goodwill refund, its
// attempt sent and succeeded), on a database with the ledger's triggers and on one without them
// (the release before the ledger, dropped in the same run), and reports the ratio (issue 34's
// goal: a confirmation at most 1.2x): of the wall time, and of the CPU time the database's
// backends spent (backendCPU), which a loaded machine's waits for a core do not swell:
//
//	go test -run '^$' -bench MoneyPathsWithTheLedger -benchtime 500x -count 3 ./db/
func BenchmarkMoneyPathsWithTheLedger(b *testing.B) {
	ctx := context.Background()
	setup := func(ledger bool) *testsuite.Database {
		d := testsuite.NewDatabase(b)
		require.NoError(b, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
			From: dec10, To: dec10.AddDays(30), TotalRooms: 1_000_000_000, Rate: &testsuite.TestRate}))
		if !ledger {
			_, err := d.Pool.Exec(ctx, `DROP TRIGGER _ledger_payment ON payments; DROP TRIGGER _ledger_booking ON bookings;
				DROP TRIGGER _ledger_staff_refund ON staff_refunds; DROP TRIGGER _ledger_refund ON refunds`)
			require.NoError(b, err)
		}
		return d
	}
	type spent struct{ confirm, refund, confirmCPU, refundCPU time.Duration }
	// one booking's confirmation and partial refund on d, timed.
	one := func(d *testsuite.Database, customer string, s *spent) {
		backends := backendsOf(b, d)
		h, err := d.Store.Reserve(ctx, holdParams(customer, "k", nights(dec10, 2), 1))
		require.NoError(b, err)
		pay := domain.Payment{ID: "pi_" + customer, Amount: h.Price.Total, Currency: h.Price.Currency}
		cpu, start := backendCPU(backends), time.Now()
		_, err = d.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_" + pay.ID, Type: "payment_intent.succeeded",
			BookingID: h.ID, PaymentID: pay.ID, Succeeded: true, Amount: pay.Amount, Currency: pay.Currency}, []byte(`{}`))
		require.NoError(b, err)
		bk, err := d.Store.Confirm(ctx, h.ID, &pay)
		require.NoError(b, err)
		s.confirm += time.Since(start)
		s.confirmCPU += backendCPU(backends) - cpu
		cpu, start = backendCPU(backends), time.Now()
		gw := goodwill(bk, "gw", 1000)
		gw.Currency, gw.Parts[0].Currency = pay.Currency, pay.Currency
		_, _, err = d.Store.StartStaffRefund(ctx, gw)
		require.NoError(b, err)
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: h.ID + "/staff-gw/1", BookingID: h.ID, PaymentID: pay.ID,
			Amount: 1000, Currency: pay.Currency, Reason: gw.Reason})
		require.NoError(b, err)
		require.NoError(b, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+a.ID, "succeeded", ""))
		s.refund += time.Since(start)
		s.refundCPU += backendCPU(backends) - cpu
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
	b.ReportMetric(per(with.confirmCPU)/per(without.confirmCPU), "confirm-pgcpu-x")
	b.ReportMetric(per(with.refundCPU)/per(without.refundCPU), "refund-pgcpu-x")
	b.Logf("confirmation %.0f µs without the ledger, %.0f µs with it (backends' CPU %.0f µs, %.0f µs); partial refund "+
		"%.0f µs, %.0f µs (CPU %.0f µs, %.0f µs)", per(without.confirm), per(with.confirm), per(without.confirmCPU),
		per(with.confirmCPU), per(without.refund), per(with.refund), per(without.refundCPU), per(with.refundCPU))
}

// backendsOf lists the backends of d's pool (pg_stat_activity, asked on a connection of its own
// so that it is not one of them).
func backendsOf(b *testing.B, d *testsuite.Database) []int {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, d.URL)
	require.NoError(b, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()
		AND pid <> pg_backend_pid() AND backend_type = 'client backend'`)
	require.NoError(b, err)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	require.NoError(b, err)
	return pids
}

// backendCPU is the CPU time the processes pids spent so far (/proc/<pid>/schedstat, in ns; 0
// for one that cannot be read: another system, a process gone).
func backendCPU(pids []int) time.Duration {
	var sum time.Duration
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if f := strings.Fields(string(stat)); err == nil && len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

// The daily report and the checker's ledger and money checks over a million ledger entries: each
// must take under a second (issue 34). 100,000 bookings of one hotel, each with ten entries over a year: a deposit
// and the rest captured and kept, a refund of part of the rest asked, declined, asked again and
// given back, and a price set by hand.
//
//	go test -run '^$' -bench 'OverAMillionLedgerEntries' -benchtime 5x ./db/
func BenchmarkOverAMillionLedgerEntries(b *testing.B) {
	ctx := context.Background()
	// The bookings are copies of one hold (the report reads their hotel; the check, their row),
	// written without their triggers' history: only their money is measured.
	d, bk := hotelOfBookings(b, 100_000)
	year := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := d.Pool.Exec(ctx, `INSERT INTO money_ledger (at, booking_id, payment_id, kind, debit, credit, amount, currency, ref,
			method)
		SELECT $2::timestamptz + random() * interval '365 days', b.id, CASE WHEN e.payment = '' THEN '' ELSE b.id || e.payment END,
			e.kind, e.debit, e.credit, e.amount, 'EUR', b.id || e.ref, CASE WHEN e.payment <> '' THEN 'provider' END
		FROM bookings b CROSS JOIN (VALUES
			('/deposit', 'captured', 'paid_in', 'received', 5000, '/deposit'),
			('/deposit', 'kept', 'received', 'kept', 5000, '/deposit'),
			('/rest', 'captured', 'paid_in', 'received', 15000, '/rest'),
			('/rest', 'kept', 'received', 'kept', 15000, '/rest'),
			('/rest', 'refund_asked', 'kept', 'owed', 2500, '/gw@rest'),
			('/rest', 'attempt_sent', 'owed', 'refunding', 2500, '/staff-gw/1'),
			('/rest', 'refund_failed', 'refunding', 'owed', 2500, '/staff-gw/1'),
			('/rest', 'attempt_sent', 'owed', 'refunding', 2500, '/staff-gw/2'),
			('/rest', 'refund_succeeded', 'refunding', 'paid_back', 2500, '/staff-gw/2'),
			('', 'price_set', 'price', 'sales', 1000, '/price-change')) e(payment, kind, debit, credit, amount, ref)
		WHERE b.id LIKE $1 || '%'`, bk.ID, year)
	require.NoError(b, err)
	// The balances and what each booking keeps, as ledger_post keeps them with each entry, summed
	// at once here.
	_, err = d.Pool.Exec(ctx, `INSERT INTO money_balances (payment_id, account, booking_id, balance)
		SELECT payment_id, account, min(booking_id), sum(change) FROM (
			SELECT payment_id, booking_id, credit AS account, amount AS change FROM money_ledger WHERE payment_id <> ''
			UNION ALL SELECT payment_id, booking_id, debit, -amount FROM money_ledger WHERE payment_id <> '') m
		GROUP BY payment_id, account;
		INSERT INTO money_kept_by_booking (booking_id, kept)
		SELECT booking_id, COALESCE(sum(balance) FILTER (WHERE account = 'kept'), 0) FROM money_balances GROUP BY booking_id;
		ANALYZE money_ledger; ANALYZE money_balances; ANALYZE money_kept_by_booking; ANALYZE bookings`)
	require.NoError(b, err)
	require.Equal(b, 1_000_000, count(b, d, `SELECT count(*) FROM money_ledger`))
	day := domain.Span{Start: year.Add(100 * 24 * time.Hour), End: year.Add(101 * 24 * time.Hour)}
	b.Run("daily_report", func(b *testing.B) {
		for b.Loop() {
			r, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, day)
			require.NoError(b, err)
			require.NotEmpty(b, r.Items)
		}
	})
	b.Run("ledger_check", func(b *testing.B) {
		for b.Loop() {
			found, err := d.Store.LedgerMismatches(ctx)
			require.NoError(b, err)
			require.Len(b, found, 1, "the one booking whose money the benchmark did not write")
		}
	})
	// The checker's money checks: every booking's money, and every payment captured (the entries
	// are in 2030: the age reaches past them).
	b.Run("money_mismatch", func(b *testing.B) {
		for b.Loop() {
			_, err := d.Store.MoneyMismatches(ctx)
			require.NoError(b, err)
		}
	})
	b.Run("unmatched_payment", func(b *testing.B) {
		for b.Loop() {
			_, err := d.Store.UnmatchedPayments(ctx, -10*365*24*time.Hour)
			require.NoError(b, err)
		}
	})
}
