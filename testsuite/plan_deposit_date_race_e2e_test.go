package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestADepositConfirmedAfterItsBalanceDateLeavesTheHoldHeld: the workflow takes a deposit as one
// before the balance date by its clock, but its confirmation reaches the database after the date
// (here its first attempts fail, as on a database failover, until the date has passed). The
// database's refusal is not an expired hold: the hold, minutes from its end, is not released and
// the guest may still pay its whole price (7277b57's intent; before, it expired and was refunded).
func TestADepositConfirmedAfterItsBalanceDateLeavesTheHoldHeld(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	balanceDueIn(t, sys, "4 seconds")
	_, err := sys.DB.Pool.Exec(context.Background(), `CREATE FUNCTION failover() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'the database is failing over'; END $$;
		CREATE TRIGGER failover BEFORE UPDATE ON bookings FOR EACH ROW
			WHEN (OLD.status = 'HOLD' AND NEW.status = 'CONFIRMED') EXECUTE FUNCTION failover()`)
	require.NoError(t, err)
	id := depositPlanHold(t, sys, "h-dep-race", "dep-race", stayFromNow(40, 2))
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_race", "pi_race", id, 5400, "EUR"), time.Now()).Status)
	time.Sleep(5 * time.Second) // the balance date passes while the confirmation is retried
	_, err = sys.DB.Pool.Exec(context.Background(), `DROP TRIGGER failover ON bookings`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_race'`) == 1
	}, 40*time.Second, 100*time.Millisecond, "the deposit, too late, goes back")
	assert.Equal(t, "HOLD", bookingStatus(t, sys, id), "the hold has minutes left: it waits for its whole price")
}
