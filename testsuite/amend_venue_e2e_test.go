package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAVenueOrderMovesAnHourLaterAndAddsARacketThroughItsBalance: a held court moves an hour
// later at once; paid, adding a racket waits for its balance, paid through the checkout; a move
// onto a court hour someone else holds is refused naming the slot.
func TestAVenueOrderMovesAnHourLaterAndAddsARacketThroughItsBalance(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-amend", day, 24)
	guest := sys.Customer("guest")
	res := placeOrder(t, sys, "v-amend", guest, "o1", hourLine("court-1", day, 8, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	other := placeOrder(t, sys, "v-amend", sys.Customer("other"), "o1", hourLine("court-1", day, 10, 1, 1))
	require.Equal(t, http.StatusCreated, other.Status, other.Raw)

	moved := amendment(t, amend(t, sys, id, "a1", map[string]any{"lines": []any{hourLine("court-1", day, 9, 1, 1)}}))
	assert.Equal(t, "APPLIED", moved["status"])
	assert.EqualValues(t, 0, moved["difference"], "the same price an hour later")
	taken := amend(t, sys, id, "a2", map[string]any{"lines": []any{hourLine("court-1", day, 10, 1, 1)}})
	assert.Equal(t, http.StatusConflict, taken.Status, taken.Raw)
	assert.Equal(t, "unavailable", taken.ErrorCode())
	assert.Contains(t, taken.Raw, "the slot of court-1 at ")
	cut := amend(t, sys, id, "a3", map[string]any{"lines": []any{map[string]any{"resourceId": "court-1",
		"start": day.Time().Add(9*time.Hour + 30*time.Minute), "end": day.Time().Add(10*time.Hour + 30*time.Minute), "quantity": 1}}})
	assert.Equal(t, http.StatusBadRequest, cut.Status, "half a slot: %s", cut.Raw)

	payAndConfirm(t, sys, id, 2000, "evt_court", "pi_court")
	up := amendment(t, amend(t, sys, id, "a4", map[string]any{"lines": []any{hourLine("court-1", day, 9, 1, 1),
		hourLine("rackets", day, 9, 1, 1)}}))
	assert.Equal(t, "BALANCE_DUE", up["status"])
	assert.EqualValues(t, 2000, up["difference"], "a racket-hour")
	checkout := sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	require.Equal(t, http.StatusOK, checkout.Status, checkout.Raw)
	assert.EqualValues(t, 2000, checkout.Body["amount"])
	// The balance equals the order's price: its metadata, not its amount, tells it from a second payment.
	res = sys.Webhook(t, testsuite.BalancePaymentEvent("evt_racket", checkout.Body["paymentId"].(string), id,
		int64(up["id"].(float64)), 2000, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		lines, _ := staffView(t, sys, id).Body["price"].(map[string]any)["lines"].([]any)
		return len(lines) == 2
	}, 20*time.Second, 50*time.Millisecond, "the racket is the order's once its balance is paid")
	b := staffView(t, sys, id).Body
	assert.EqualValues(t, 4000, b["paid"])
	assert.EqualValues(t, 4000, b["price"].(map[string]any)["total"])
	rackets := placeOrder(t, sys, "v-amend", sys.Customer("late"), "o1", hourLine("rackets", day, 9, 1, 2))
	assert.Equal(t, "unavailable", rackets.ErrorCode(), "one of the two rackets is the guest's: %s", rackets.Raw)
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "amend-venue-moved-then-racket-balance-paid")
}
