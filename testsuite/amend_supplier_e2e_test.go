package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/testsuite/suppliersim"
)

// TestASupplierBookingIsAmendedAsANewHoldTheSupplierConfirmsOrRefuses: the supplier protocol
// cannot change a hold, so an agent's booking at a supplier's hotel is amended as a new hold
// the supplier confirms (the old one then cancelled); when the supplier refuses, nothing
// changes, here or at the supplier. Both supplier modes: the hotel's stock kept here
// (direct_procure), or held by the supplier alone (direct_connect).
func TestASupplierBookingIsAmendedAsANewHoldTheSupplierConfirmsOrRefuses(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"direct_procure", "direct_connect"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newSupplierWorld(t, mode, testsuite.SystemOptions{})
			res := w.book(t, "b1", 1)
			require.Equal(t, http.StatusCreated, res.Status, res.Raw)
			id := res.Body["id"].(string)
			awaitStatus(t, w.sys, id, "CONFIRMED")
			agentAmend := func(key string, change map[string]any) testsuite.Response {
				return w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/amendments",
					map[string]string{"Idempotency-Key": key}, change)
			}

			quote := w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/amendments/quote", nil,
				map[string]any{"quantity": 2})
			q := amendment(t, quote)
			assert.Equal(t, "QUOTE", q["status"], "priced as the amendment would be (a direct_connect one by the supplier's quote)")
			assert.Positive(t, q["difference"])
			assert.Nil(t, q["supplierHoldRef"], "a quote asks no supplier to hold anything")

			a := amendment(t, agentAmend("a1", map[string]any{"quantity": 2}))
			assert.Equal(t, q["difference"], a["difference"])
			assert.Equal(t, "APPLIED", a["status"], "the supplier confirmed the new hold")
			assert.Equal(t, id+"/amendment/a1", a["supplierHoldRef"])
			held, asked := w.sim.Hold(id + "/amendment/a1")
			require.True(t, asked)
			assert.Equal(t, "confirmed", held.Status)
			require.Eventually(t, func() bool { return w.sim.Cancelled(id) }, 20*time.Second, 50*time.Millisecond,
				"the hold the booking left is cancelled")
			b := staffView(t, w.sys, id).Body
			assert.EqualValues(t, 2, b["quantity"])
			assert.Equal(t, held.Confirmation, b["supplierRef"], "the booking goes by the new hold's confirmation")
			if mode == "direct_procure" {
				assert.Equal(t, 8, roomsLeft(t, w.sys, w.hotel, "double", w.stay), "two rooms of the hotel's stock")
			}
			w.notified(t, id, "amended")

			w.sim.Set(suppliersim.Behaviour{Reject: true})
			refused := agentAmend("a2", map[string]any{"quantity": 3})
			assert.Equal(t, http.StatusConflict, refused.Status, refused.Raw)
			assert.Equal(t, "unavailable", refused.ErrorCode())
			assert.Contains(t, refused.Raw, "the supplier refused the new stay")
			after := staffView(t, w.sys, id).Body
			assert.EqualValues(t, 2, after["quantity"], "nothing changed")
			assert.Equal(t, held.Confirmation, after["supplierRef"])
			assert.False(t, w.sim.Cancelled(id+"/amendment/a1"), "the hold the booking has stays")
			if mode == "direct_procure" {
				assert.Equal(t, 8, roomsLeft(t, w.sys, w.hotel, "double", w.stay), "the third room went back")
			}

			// Cancelled, the booking's hold at the supplier is the amendment's: that one is cancelled.
			w.sim.Set(suppliersim.Behaviour{})
			res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/cancel", nil, nil)
			require.Equal(t, http.StatusOK, res.Status, res.Raw)
			require.Eventually(t, func() bool { return w.sim.Cancelled(id + "/amendment/a1") }, 20*time.Second, 50*time.Millisecond)
			checkInvariants(t, w.sys)
			testsuite.ReplayAndRecord(t, w.sys.Temporal, id, "amend-supplier-"+mode+"-confirmed-refused-cancelled")
		})
	}
}
