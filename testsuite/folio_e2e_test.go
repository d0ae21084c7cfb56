package testsuite_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheFolioChargesExtrasTheDeskTakesPaymentFor (issue 39, the folio): a paid one-night stay,
// checked in, is charged the minibar and a late check-out. Sent twice, the minibar is charged
// once. The folio lists them with the payment and the due; the desk's cash pays exactly that,
// and the guest checks out owing nothing. A paid charge is not voided (refund it first); the
// late check-out, waived before it is paid, is voided with its reason and is no longer due.
// Another site's desk may not charge it; finance reads the folio but charges nothing.
func TestTheFolioChargesExtrasTheDeskTakesPaymentFor(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	night := testsuite.TestRate.Amount
	stay := stayFromNow(0, 1)
	openRooms(t, sys, "h-folio", "double", stay, 1)
	id, total := holdRoom(t, sys, "h-folio", "k-folio", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_folio", "pi_folio")
	desk := sys.As(t, domain.Principal{Subject: "desk-folio", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-folio"}})
	require.Equal(t, http.StatusOK, desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil).Status)

	minibar := map[string]any{"kind": "minibar", "description": "2 waters", "quantity": 2, "unitAmount": 350, "currency": "EUR"}
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/charges", keyed("mb"), minibar)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	charge := res.Body["charge"].(map[string]any)
	assert.Equal(t, []any{float64(700), "desk-folio"}, []any{charge["amount"], charge["addedBy"]})
	assert.Equal(t, float64(700), res.Body["money"].(map[string]any)["due"])
	again := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/charges", keyed("mb"), minibar)
	require.Equal(t, http.StatusCreated, again.Status, again.Raw)
	assert.Equal(t, charge["id"], again.Body["charge"].(map[string]any)["id"], "sent twice, charged once")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/charges", keyed("late"),
		map[string]any{"kind": "late_check_out", "quantity": 1, "unitAmount": 2000, "currency": "EUR"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	late := res.Body["charge"].(map[string]any)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/charges", keyed("bad"),
		map[string]any{"kind": "other", "quantity": 1, "unitAmount": 100, "currency": "EUR"})
	require.Equal(t, http.StatusBadRequest, res.Status, "other says what it was: %s", res.Raw)

	folio := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/folio", nil, nil)
	require.Equal(t, http.StatusOK, folio.Status, folio.Raw)
	assert.Len(t, folio.Body["charges"], 2)
	assert.Len(t, folio.Body["payments"], 1)
	money := folio.Body["money"].(map[string]any)
	assert.Equal(t, []any{float64(night), float64(2700), float64(2700)}, []any{money["paid"], money["extras"], money["due"]})

	// The guest stays on time: the late check-out is waived before it is paid.
	res = desk.Do(t, http.MethodPost, fmt.Sprintf("/api/v1/staff/bookings/%s/charges/%v/void", id, late["id"]), nil,
		map[string]any{"reason": "left at eleven after all"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "left at eleven after all", res.Body["charge"].(map[string]any)["voidReason"])
	assert.Equal(t, float64(700), res.Body["money"].(map[string]any)["due"])

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("pay-mb"),
		map[string]any{"amount": 701, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusConflict, res.Status, "never more than is due: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("pay-mb"),
		map[string]any{"amount": 700, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(0), res.Body["money"].(map[string]any)["due"])
	res = desk.Do(t, http.MethodPost, fmt.Sprintf("/api/v1/staff/bookings/%s/charges/%v/void", id, charge["id"]), nil,
		map[string]any{"reason": "not ours"})
	require.Equal(t, http.StatusConflict, res.Status, "a paid charge is refunded first: %s", res.Raw)

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(0), res.Body["departure"].(map[string]any)["due"])

	other := sys.As(t, domain.Principal{Subject: "desk-other", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-else"}})
	res = other.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/charges", keyed("x"), minibar)
	assert.Equal(t, http.StatusForbidden, res.Status, res.Raw)
	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	assert.Equal(t, http.StatusOK, finance.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/folio", nil, nil).Status)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'folio-charge'
		AND details->>'kind' = 'minibar'`, id), "audited once")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'folio-void'`, id))
	checkInvariants(t, sys)
}
