package testsuite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// review36Temporal stands in for the Temporal server: the offer's workflow does not run until
// starterRuns is called (by the first signal when interleave is set: the starter started the
// workflow and recorded it between the webhook's signal and its look at the offer's start).
type review36Temporal struct {
	client.Client
	store      *db.Store
	offer      string
	interleave bool
	running    bool
	executed   []string
}

func (f *review36Temporal) SignalWorkflow(ctx context.Context, id, _, _ string, _ any) error {
	if f.running {
		return nil
	}
	if f.interleave {
		f.running = true // the starter's StartOffer, then its OfferStarted
		if err := f.store.OfferStarted(ctx, f.offer); err != nil {
			return err
		}
	}
	return serviceerror.NewNotFound("workflow not found for ID: " + id)
}

func (f *review36Temporal) ExecuteWorkflow(_ context.Context, _ client.StartWorkflowOptions, wf any, _ ...any) (client.WorkflowRun, error) {
	name, _ := wf.(string)
	f.executed = append(f.executed, name)
	if name == "Booking" {
		f.running = true
	}
	return nil, nil
}

// TestAnOfferPaidWhileItsStarterStartsItIsNotRefunded: a payment webhook for an offer
// whose workflow the starter starts just after the webhook's signal found none must reach that
// workflow, not start a LatePayment refund. The control (no starter between) passes.
func TestAnOfferPaidWhileItsStarterStartsItIsNotRefunded(t *testing.T) {
	t.Parallel()
	for _, interleave := range []bool{false, true} {
		d := testsuite.NewDatabase(t)
		ctx := context.Background()
		in, out := domain.NewDate(2030, 12, 10), domain.NewDate(2030, 12, 12)
		stay := domain.Stay{CheckIn: in, CheckOut: out}
		d.SetInventory(t, "h1", "double", in, out, 1)
		req := domain.HoldRequest{CustomerID: "c0", HotelID: "h1", RoomTypeID: "double", Stay: stay, Quantity: 1}
		held, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: "booking-r36-c0", IdempotencyKey: "k", Request: req,
			CreatedBy: "c0", HoldTTL: 10 * time.Minute})
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, held.Status)
		e, _, err := d.Store.JoinWaitlist(ctx, db.WaitlistJoin{CreatedBy: "bea", Request: domain.WaitlistRequest{
			CustomerID: "bea", HotelID: "h1", RoomTypeID: "double", Stay: stay, Quantity: 1}})
		require.NoError(t, err)
		_, err = d.Store.Release(ctx, held.ID, domain.StatusCancelled)
		require.NoError(t, err)
		e, err = d.Store.WaitlistEntry(ctx, e.ID)
		require.NoError(t, err)
		require.Equal(t, domain.WaitlistOffered, e.Status)

		fake := &review36Temporal{store: d.Store, offer: e.OfferBookingID, interleave: interleave}
		err = worker.Deliverer{Temporal: fake, Store: d.Store}.Deliver(ctx, domain.PaymentEvent{EventID: "evt_1",
			BookingID: e.OfferBookingID, PaymentID: "pi_bea", Succeeded: true, Amount: 20000, Currency: "EUR"})
		require.NoError(t, err)
		assert.NotContains(t, fake.executed, "LatePayment", "interleave %v: the offer's payment was sent to be refunded", interleave)
	}
}
