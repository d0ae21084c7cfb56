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

// TestACustomerCannotAmendACheckedInVenueOrderDownForARefund: a venue order starting within the
// hour is checked in (COMPLETED). Its free cancellation (24 hours) is long over: its customer can
// neither cancel it (409 checked_in) nor, as a CONFIRMED order, change it (409
// amendment_closed). Taking the rackets off it must be refused as well, not applied with their
// whole price refunded by the policy judged from the order's start.
func TestACustomerCannotAmendACheckedInVenueOrderDownForARefund(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	desk := sys.As(t, domain.Principal{Subject: "desk", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-ci"}})

	next := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	closes := next.Add(time.Hour).Format("15:04")
	if closes == "00:00" {
		closes = "24:00"
	}
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-ci", map[string]any{"timeZone": "UTC", "freeCancelHours": 24})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	for r, body := range map[string]map[string]any{
		"court-1": {"kind": "exclusive_slot", "sport": "badminton"},
		"rackets": {"kind": "equipment", "unit": "hour", "capacity": 2},
	} {
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/v-ci/resources/"+r, body)
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/v-ci/resources/"+r+"/schedule", map[string]any{
			"from": domain.DateOf(next, time.UTC), "to": domain.DateOf(next, time.UTC).AddDays(1),
			"opens": next.Format("15:04"), "closes": closes, "slotMinutes": 60,
			"price": map[string]any{"amount": 2000, "currency": "EUR"}})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	guest := sys.Customer("guest")
	court := map[string]any{"resourceId": "court-1", "start": next, "end": next.Add(time.Hour), "quantity": 1}
	rackets := map[string]any{"resourceId": "rackets", "start": next, "end": next.Add(time.Hour), "quantity": 2}
	order := placeOrder(t, sys, "v-ci", guest, "o1", court, rackets)
	require.Equal(t, http.StatusCreated, order.Status, order.Raw)
	id := order.Body["id"].(string)
	payAndConfirm(t, sys, id, 6000, "evt_ci_"+sys.ID, "pi_ci_"+sys.ID)

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "COMPLETED", res.Body["status"])
	res = sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, "checked_in", res.ErrorCode(), "the customer cannot cancel it: %s", res.Raw)

	res = sys.Guest(t, guest).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/amendments",
		map[string]string{"Idempotency-Key": "a1"}, map[string]any{"lines": []any{court}})
	assert.Equal(t, http.StatusConflict, res.Status, "a checked-in order past its free cancellation: %s", res.Raw)
	assert.Empty(t, amendments(t, sys, id), "nothing was written")
	assert.EqualValues(t, 6000, staffView(t, sys, id).Body["paid"], "nothing went back")
}
