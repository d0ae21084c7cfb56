package chaos

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestEveryFaultLosesNothing runs each fault once under load against the whole system (real
// Temporal server, worker and API processes, PostgreSQL), then shows that the counters it relies
// on do see a loss: each control plants one and expects its counter to move.
func TestEveryFaultLosesNothing(t *testing.T) {
	if os.Getenv("BOOKFLOW_CHAOS") != "1" {
		t.Skip("restarts PostgreSQL and takes its connections, so it runs alone: scripts/test runs it " +
			"after the rest (or BOOKFLOW_CHAOS=1 go test ./testsuite/chaos)")
	}
	cli, err := testsuite.TemporalCLI()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "bookflow")
	build := exec.Command("go", "build", "-o", bin, "github.com/bookflow/bookflow/cmd/bookflow")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// CHAOS_PG_RESTART restarts the server TEST_DATABASE_URL is on (scripts/test sets both).
	h, err := start(ctx, Options{LoadFor: 6 * time.Second, Clients: 6, Bookflow: bin, TemporalCLI: cli,
		AdminDBURL: testsuite.AdminURL(), PGRestart: os.Getenv("CHAOS_PG_RESTART"), Out: os.Stdout})
	require.NoError(t, err)
	defer h.close()

	for run, f := range faults {
		lost, findings, injected, err := h.runOnce(ctx, run, f)
		require.NoError(t, err, f.name)
		if !injected {
			t.Logf("%s: skipped (CHAOS_PG_RESTART is not set)", f.name)
		}
		require.Zero(t, lost, f.name)
		require.Empty(t, findings, f.name)
	}
	require.NotEmpty(t, h.l.paid, "the load paid for nothing")
	require.NotEmpty(t, h.provider.Refunded(), "the load refunded nothing")

	counts := func() Counters {
		c, _, err := count(ctx, h.s, h.store, h.l)
		require.NoError(t, err)
		return c
	}
	exec := func(sql string, args ...any) {
		_, err := h.store.Pool().Exec(ctx, sql, args...)
		require.NoError(t, err)
	}
	require.Zero(t, counts())

	t.Run("a booking the API granted and nobody has", func(t *testing.T) {
		h.l.book("booking-control-lost", 20000)
		defer func() { delete(h.l.booked, "booking-control-lost") }()
		require.Equal(t, 1, counts().LostBookings)
	})
	t.Run("a payment the API acknowledged and did not record", func(t *testing.T) {
		h.l.pay("pi_control_lost", "booking-control", 20000)
		h.l.acked("pi_control_lost")
		defer func() { delete(h.l.paid, "pi_control_lost") }()
		require.Equal(t, 1, counts().LostPayments)
	})
	t.Run("a unit counted that no booking holds", func(t *testing.T) {
		exec(`UPDATE inventory SET reserved = reserved + 1 WHERE reserved < total`)
		defer exec(`UPDATE inventory SET reserved = reserved - 1 WHERE reserved > 0`)
		require.Positive(t, counts().Oversold)
	})
	t.Run("money kept that no booking is owed", func(t *testing.T) {
		var booking string
		require.NoError(t, h.store.Pool().QueryRow(ctx, `SELECT id FROM bookings WHERE status = 'EXPIRED' LIMIT 1`).Scan(&booking))
		exec(`INSERT INTO payments (payment_id, booking_id, amount, currency, status) VALUES ('pi_control_kept', $1, 500, 'EUR', 'succeeded')`, booking)
		defer exec(`DELETE FROM payments WHERE payment_id = 'pi_control_kept'`)
		require.Equal(t, 500, counts().DoubleCharges)
	})
	t.Run("a booking held after settling", func(t *testing.T) {
		var booking string
		require.NoError(t, h.store.Pool().QueryRow(ctx, `SELECT id FROM bookings WHERE status = 'EXPIRED' LIMIT 1`).Scan(&booking))
		exec(`UPDATE bookings SET status = 'REFUNDING' WHERE id = $1`, booking)
		defer exec(`UPDATE bookings SET status = 'EXPIRED' WHERE id = $1`, booking)
		require.Positive(t, counts().Stuck)
	})
	// Last: the provider cannot take a refund back.
	t.Run("a payment refunded twice", func(t *testing.T) {
		amounts, err := paymentAmounts(ctx, h.store.Pool())
		require.NoError(t, err)
		refunded := h.provider.Refunded()
		var pi string
		for p := range amounts {
			if refunded[p] == 0 && amounts[p] == 20000 {
				pi = p
			}
		}
		require.NotEmpty(t, pi, "no payment without a refund")
		res, err := http.Post(h.provider.URL+"/v1/refunds", "application/x-www-form-urlencoded",
			strings.NewReader(url.Values{"payment_intent": {pi}, "amount": {"20000"}}.Encode()))
		require.NoError(t, err)
		_ = res.Body.Close()
		require.Equal(t, 20000, counts().DoubleRefunds)
	})
}
