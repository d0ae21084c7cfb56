package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheRestOfADeskDepositArrivingAsTheHoldEndsIsGivenBack: the desk took part of a deposit
// plan's deposit; the rest of the deposit, paid online, reaches the database only after the hold
// ran out (its confirmation is retried, as on a failover). It is not the rest of the price, so
// it cannot be taken as a late payment: what the desk took and the payment go back, and the
// booking's workflow goes on (before, Retake's refusal failed it, and the hold stayed HOLD).
func TestTheRestOfADeskDepositArrivingAsTheHoldEndsIsGivenBack(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{HoldTTL: 6 * time.Second})
	_, err := sys.DB.Pool.Exec(context.Background(), `CREATE FUNCTION failover() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the database is failing over'; END $$;
		CREATE TRIGGER failover BEFORE UPDATE ON bookings FOR EACH ROW
			WHEN (OLD.status = 'HOLD' AND NEW.status = 'CONFIRMED') EXECUTE FUNCTION failover()`)
	require.NoError(t, err)
	id := depositPlanHold(t, sys, "h-dep-desk-late", "dep-desk-late", stayFromNow(40, 2))
	admin := sys.As(t, domain.Principal{Subject: "admin-" + sys.ID, Roles: []domain.Role{domain.RoleAdmin}})
	res := admin.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("desk-part"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "HOLD", res.Body["status"], res.Raw)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_rest_dep", "pi_rest_dep", id, 400, "EUR"), time.Now()).Status)
	time.Sleep(7 * time.Second) // the hold runs out while the confirmation is retried
	_, err = sys.DB.Pool.Exec(context.Background(), `DROP TRIGGER failover ON bookings`)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return bookingStatus(t, sys, id) == "REFUNDED" }, 30*time.Second, 200*time.Millisecond,
		"what the desk took goes back (is %s)", bookingStatus(t, sys, id))
	assert.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_rest_dep' AND status = 'succeeded'`) == 1
	}, 20*time.Second, 200*time.Millisecond, "the rest of the deposit goes back")
}
