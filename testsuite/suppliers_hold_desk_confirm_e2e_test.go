package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDeskCannotConfirmASuppliersHoldWithoutItsPayment: a guest's hold at a supplier's hotel,
// confirmed by the supplier, is paid through the checkout, never at the desk. The desk's
// confirm "without taking money" (the guest to pay at the desk later) is the same route around
// the checkout: it must be refused and the hold left waiting for its payment, not CONFIRMED
// with a balance due that no desk payment may ever take.
func TestTheDeskCannotConfirmASuppliersHoldWithoutItsPayment(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	res := hold(t, w.sys, "supplied", holdBody(w.sys.Customer("guest"), w.hotel, "double", w.stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	require.Eventually(t, func() bool { return staffView(t, w.sys, id).Body["supplierRef"] != nil },
		20*time.Second, 50*time.Millisecond, "the supplier never confirmed the hold")

	desk := deskOf(t, w.sys, []string{w.hotel}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/confirm", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "supplier_booking")
	view := staffView(t, w.sys, id).Body
	assert.Equal(t, "HOLD", view["status"], "the desk does not confirm a supplier's hold")
}
