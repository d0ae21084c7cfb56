package chaos

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestEveryFaultLosesNothing runs each fault once under load against the whole system (real
// Temporal server, worker and API processes, PostgreSQL), then shows that the counting sees a
// loss: each control plants one and expects its counter to move.
func TestEveryFaultLosesNothing(t *testing.T) {
	if os.Getenv("BOOKFLOW_CHAOS") != "1" {
		t.Skip("restarts PostgreSQL and takes its connections, so it runs alone: scripts/test runs it " +
			"after the rest (or BOOKFLOW_CHAOS=1 go test ./testsuite/chaos)")
	}
	cli, err := testsuite.TemporalCLI()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "bookflow")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/bookflow/bookflow/cmd/bookflow").CombinedOutput()
	require.NoError(t, err, "%s", out)

	ctx, cancel := context.WithTimeout(context.Background(), 28*time.Minute)
	defer cancel()
	// CHAOS_PG_RESTART restarts the server TEST_DATABASE_URL is on (scripts/test sets both).
	h, err := start(ctx, Options{LoadFor: 6 * time.Second, Clients: 6, MoneyClients: 3, Bookflow: bin, TemporalCLI: cli,
		AdminDBURL: testsuite.AdminURL(), PGRestart: os.Getenv("CHAOS_PG_RESTART"), Out: os.Stdout})
	require.NoError(t, err)
	failed := true
	defer func() {
		if logs := h.close(failed); logs != "" {
			t.Logf("the processes' logs: %s", logs)
		}
	}()

	for run, f := range faults {
		lost, findings, injected, err := h.runOnce(ctx, run, f)
		require.NoError(t, err, f.name)
		if !injected {
			t.Logf("%s: skipped (CHAOS_PG_RESTART is not set)", f.name)
		}
		require.Zero(t, lost, "%s: %v", f.name, findings)
		require.Empty(t, findings, f.name)
	}
	failed = false
	h.controls(t, ctx)
}

// controls plants each kind of loss by hand in what the suite left, and undoes it.
func (h *harness) controls(t *testing.T, ctx context.Context) {
	counts := func(t *testing.T) (Counters, []domain.Finding) {
		c, findings, err := h.count(ctx)
		require.NoError(t, err)
		return c, findings
	}
	exec := func(t *testing.T, sql string, args ...any) {
		_, err := h.store.Pool().Exec(ctx, sql, args...)
		require.NoError(t, err)
	}
	one := func(t *testing.T, sql string, args ...any) (id string, status string) {
		require.NoError(t, h.store.Pool().QueryRow(ctx, sql, args...).Scan(&id, &status), sql)
		return id, status
	}
	c, findings := counts(t)
	require.Zero(t, c)
	require.Empty(t, findings)
	require.NotEmpty(t, h.provider.Refunded(), "the load refunded nothing")

	t.Run("a booking granted and not stored", func(t *testing.T) {
		h.l.book("booking-control-lost", &granted{hotel: h.hotels[1]})
		defer delete(h.l.booked, "booking-control-lost")
		c, _ := counts(t)
		require.Equal(t, Counters{LostBookings: 1}, c)
	})
	t.Run("a booking paid in time, never cancelled, and refunded", func(t *testing.T) {
		var id string
		for bid, g := range h.l.booked {
			if g.hotel != h.hotels[0] && g.cancelled && h.paidInTime(bid) {
				id = bid
				break
			}
		}
		require.NotEmpty(t, id, "no booking was paid in time and then cancelled")
		h.l.booked[id].cancelled, h.l.booked[id].cancelTried = false, false // as if nobody had cancelled it
		defer func() { h.l.booked[id].cancelled, h.l.booked[id].cancelTried = true, true }()
		c, _ := counts(t)
		require.Equal(t, Counters{LostBookings: 1}, c)
	})
	t.Run("a payment acknowledged and not recorded", func(t *testing.T) {
		h.l.pay("pi_control_lost", &paid{bookingID: "booking-control", ackedAt: time.Now()})
		defer delete(h.l.paid, "pi_control_lost")
		c, _ := counts(t)
		require.Equal(t, Counters{LostPayments: 1}, c)
	})
	t.Run("a payment never acknowledged", func(t *testing.T) {
		h.l.pay("pi_control_unacked", &paid{bookingID: "booking-control"})
		defer delete(h.l.paid, "pi_control_unacked")
		c, _ := counts(t)
		require.Equal(t, Counters{LostPayments: 1}, c)
	})
	t.Run("a night sold twice", func(t *testing.T) {
		// A booking of the full hotel that holds nothing holding its nights, uncounted.
		id, status := one(t, `SELECT b.id, b.status FROM bookings b JOIN resources r ON r.id = b.resource_id
			WHERE b.status IN ('EXPIRED', 'CANCELLED', 'REJECTED') AND b.payment_id IS NULL AND r.hotel_id = $1 LIMIT 1`, h.hotels[0])
		exec(t, `UPDATE bookings SET status = 'CONFIRMED' WHERE id = $1`, id)
		defer exec(t, `UPDATE bookings SET status = $2 WHERE id = $1`, id, status)
		c, _ := counts(t)
		require.Positive(t, c.Oversold)
	})
	t.Run("a booking left refunding", func(t *testing.T) {
		id, _ := one(t, `SELECT id, status FROM bookings WHERE status = 'EXPIRED' AND payment_id IS NULL LIMIT 1`)
		exec(t, `UPDATE bookings SET status = 'REFUNDING' WHERE id = $1`, id)
		defer exec(t, `UPDATE bookings SET status = 'EXPIRED' WHERE id = $1`, id)
		c, _ := counts(t)
		require.Positive(t, c.Stuck)
	})
	t.Run("a payment refunded twice", func(t *testing.T) {
		var pi string
		var amount int64
		for p, got := range h.provider.Refunded() {
			if g := h.l.booked[h.l.paid[p].bookingID]; got > 0 && got == h.provider.Paid()[p] && g.story == "" {
				pi, amount = p, got
				break
			}
		}
		require.NotEmpty(t, pi, "no payment was refunded in full")
		h.provider.mu.Lock()
		h.provider.refunded[pi] += amount
		h.provider.mu.Unlock()
		defer func() {
			h.provider.mu.Lock()
			h.provider.refunded[pi] -= amount
			h.provider.mu.Unlock()
		}()
		c, _ := counts(t)
		require.Equal(t, Counters{DoubleRefunds: int(amount), MoneyMismatches: 1}, c)
	})
	h.moneyControls(t, ctx, counts)
	// Last: the ledger keeps these planted payments' entries (append-only), and the money count
	// keeps counting them.
	t.Run("a finding of the invariant checker", func(t *testing.T) {
		exec(t, `INSERT INTO payments (payment_id, booking_id, amount, currency, status) VALUES ('pi_control_unmatched', 'booking-nobody', 700, 'EUR', 'succeeded')`)
		defer exec(t, `DELETE FROM payments WHERE payment_id = 'pi_control_unmatched'`)
		c, findings := counts(t)
		// The ledger keeps the payment's entry: 700 received, neither kept nor given back.
		require.Equal(t, Counters{MoneyMismatches: 1}, c, "%v", findings)
		require.Equal(t, domain.CheckUnmatchedPay, findings[0].Check)
	})
	t.Run("money kept that is owed back", func(t *testing.T) {
		id := h.plainBooking(t, ctx, "EXPIRED")
		h.provider.Pay("pi_control_kept", 500)
		h.l.pay("pi_control_kept", &paid{bookingID: id, amount: 500, ackedAt: time.Now()})
		exec(t, `INSERT INTO payments (payment_id, booking_id, amount, currency, status) VALUES ('pi_control_kept', $1, 500, 'EUR', 'succeeded')`, id)
		defer func() {
			exec(t, `DELETE FROM payments WHERE payment_id = 'pi_control_kept'`)
			delete(h.l.paid, "pi_control_kept")
			h.provider.mu.Lock()
			delete(h.provider.paid, "pi_control_kept")
			h.provider.mu.Unlock()
		}()
		c, findings := counts(t)
		require.Equal(t, 500, c.DoubleCharges, "%v", findings)
		require.Equal(t, 2, c.MoneyMismatches, "%v", findings) // received, neither kept nor given back (and the one above)
	})
}

// paidInTime reports whether a booking's first payment was acknowledged before its hold ran out.
func (h *harness) paidInTime(bookingID string) bool {
	for _, p := range h.l.paid {
		if p.bookingID == bookingID && p.first && !p.ackedAt.IsZero() && p.ackedAt.Before(h.l.booked[bookingID].expiresAt) {
			return true
		}
	}
	return false
}

// plainBooking returns a checkout client's booking (no money story) in status.
func (h *harness) plainBooking(t *testing.T, ctx context.Context, status string) string {
	rows, err := h.store.Pool().Query(ctx, `SELECT id FROM bookings WHERE status = $1`, status)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	for _, id := range ids {
		if g := h.l.booked[id]; g != nil && g.story == "" {
			return id
		}
	}
	t.Fatalf("no checkout client's booking is %s", status)
	return ""
}
