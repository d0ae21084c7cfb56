package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	temporaltest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/workflows"
)

// TestReviewANoShowsCashRefundWaitsAtTheDeskEndToEnd (review of 4fe2372): the desk takes a
// booking's whole price (3 nights, 300.00) in cash; its plan keeps the first night of a
// no-show. Nobody checks in: the workflow gives 200.00 back. The commit says a no-show's refund
// of desk money waits at the desk, pending, until someone hands it over; but the no-show's
// refund saga carries the actor system:no-show (refundKeeping's startSaga, Actor: req.Actor),
// so the cash is recorded as handed over at once, succeeded, "by" system:no-show, while it is
// still in the drawer and no guest ever came.
func TestReviewANoShowsCashRefundWaitsAtTheDeskEndToEnd(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{NoShowAfter: 3 * time.Second})
	stay := stayFromNow(20, 3)
	const hotel = "h-rv-ns"
	openRooms(t, sys, hotel, "double", stay, 1)
	putPlans(t, sys, hotel, planDef{"FIRST", map[string]any{"name": "Flexible", "policy": map[string]any{"noShow": "first_night"}}})
	for i := range 3 {
		night := stay.CheckIn.AddDays(i)
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/rate-plans/FIRST/room-types/double/rates",
			map[string]any{"from": night, "to": night.AddDays(1), "rate": 10000, "currency": "EUR"})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	body := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
	body["ratePlan"] = "FIRST"
	res := hold(t, sys, "k-rv-ns", body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	desk := deskOf(t, sys, []string{hotel}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("all"),
		map[string]any{"amount": 30000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, id, "NO_SHOW")

	var r map[string]any
	require.Eventually(t, func() bool {
		refunds, _ := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", nil, nil).Body["refunds"].([]any)
		if len(refunds) == 1 {
			r = refunds[0].(map[string]any)
		}
		return r != nil
	}, 30*time.Second, 100*time.Millisecond, "the no-show's refund is asked")
	assert.Equal(t, []any{float64(20000), domain.MethodCash, "pending", nil}, []any{r["amount"], r["method"], r["status"], r["recordedBy"]},
		"the no-show's cash refund waits at the desk, named by nobody: %v", r)
}

// TestReviewAHandOverAfterTheWaitEndsTheRefundWithoutAnOperator (review of 4fe2372, fixed by
// versionStuckWakesOnAnswer): a guest cancelled a
// booking held by a 100.00 cash deposit; its refund waits at the desk (RequestRefund answers
// pending under desk:<attempt>, as activities.Refunds does). Nobody hands it over within
// RefundWait (24h): the saga parks, PAYMENT_STUCK, with the attempt in flight. The guest comes
// by on the second day (a guest who cancelled a stay weeks away rarely comes within 24 hours)
// and the desk hands the cash over (db.HandOverRefund succeeds it; the route signals the
// workflow under desk:<attempt>). The doc says the saga is told at once, "as by a provider's
// webhook"; but awaitOperator waits for an operator's round only and never looks at b.settled:
// two days later the booking is still PAYMENT_STUCK, REFUNDING, although the money went back,
// and only an operator's retry (or resolve) ends it. Shown with RecoverRefundWorkflow (the same
// refundFrom/awaitRefund/awaitOperator as a booking's), activities mocked, time skipped.
func TestReviewAHandOverAfterTheWaitEndsTheRefundWithoutAnOperator(t *testing.T) {
	var ts temporaltest.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	env.RegisterWorkflowWithOptions(workflows.RecoverRefundWorkflow, workflow.RegisterOptions{Name: workflows.RecoverRefundWorkflowName})
	checks, acts, money := &activities.Checks{}, &activities.Bookings{}, &activities.Refunds{}
	env.RegisterActivity(checks)
	env.RegisterActivity(acts)
	env.RegisterActivity(money)

	id := "booking-review-hand-over"
	pay := domain.DeskPaymentID(id, "deposit")
	stay := domain.Stay{CheckIn: domain.NewDate(2030, 12, 10), CheckOut: domain.NewDate(2030, 12, 12)}
	b := domain.Booking{ID: id, CustomerID: "c1", HotelID: "h1", RoomTypeID: "double", Stay: stay, Quantity: 1,
		Status: domain.StatusRefunding, PaymentID: pay, Paid: 10000, RefundDue: 10000,
		Price: domain.Price{Currency: "EUR", Total: 10000}}
	env.OnActivity(checks.LoadRefund, mock.Anything, id).Return(
		activities.RefundToResume{Booking: b, Currency: "EUR", FirstAttempt: 1}, nil)
	env.OnActivity(acts.RefundParts, mock.Anything, mock.Anything).Return(
		[]domain.Payment{{ID: pay, Amount: 10000, Currency: "EUR"}}, nil).Maybe()
	done := b
	done.Status = domain.StatusRefunded
	var finishedAt time.Time // when the saga ended the refund: REFUNDED
	env.OnActivity(acts.FinishRefund, mock.Anything, id).Return(func(context.Context, string) (domain.Booking, error) {
		finishedAt = env.Now()
		return done, nil
	}).Maybe()
	env.OnActivity(money.RecordPaymentStuck, mock.Anything, mock.Anything).Return(nil).Maybe()
	env.OnActivity(money.RecordRefundOutcome, mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()
	handed := false // the desk handed it over: the database says succeeded from then on
	var key string
	env.OnActivity(money.RequestRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (activities.RefundOutcome, error) {
			key = in.Key
			if handed {
				return activities.RefundOutcome{Status: activities.RefundSucceeded}, nil
			}
			return activities.RefundOutcome{Status: activities.RefundPending, ProviderRefundID: domain.DeskRefundID(in.Key),
				Error: db.DueAtTheDesk}, nil
		})

	state := func() workflows.BookingState {
		var st workflows.BookingState
		v, err := env.QueryWorkflow(workflows.QueryState)
		require.NoError(t, err)
		require.NoError(t, v.Get(&st))
		return st
	}
	var parked workflows.BookingState
	start := env.Now()
	env.RegisterDelayedCallback(func() { parked = state() }, 26*time.Hour)
	env.RegisterDelayedCallback(func() { // the guest comes by on the second day: the desk hands it over
		handed = true
		env.SignalWorkflow(workflows.SignalRefund, domain.PaymentEvent{BookingID: id, PaymentID: pay, IsRefund: true,
			Succeeded: true, RefundID: domain.DeskRefundID(key), Amount: 10000, Currency: "EUR"})
	}, 30*time.Hour)
	env.RegisterDelayedCallback(func() { // the control: only an operator's retry ended it before

		env.UpdateWorkflow(workflows.UpdateRetryRefund, "retry", &temporaltest.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(error) {}, OnComplete: func(any, error) {}},
			workflows.OperatorAction{Actor: "ops", Reason: "the desk handed it over"})
	}, 80*time.Hour)

	env.ExecuteWorkflow(workflows.RecoverRefundWorkflowName, id)

	require.True(t, parked.Stuck, "nobody handed it over within RefundWait: parked for an operator")
	assert.Contains(t, parked.Reason, "still pending after 24h0m0s: due at the desk", "the operator reads why, not failures")
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	took := finishedAt.Sub(start)
	assert.True(t, took >= 30*time.Hour && took < 31*time.Hour,
		"handed over at the desk on the second day, the refund ends then, not at the operator's retry (80 h): ended after %s", took)
}
