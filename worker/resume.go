package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// A confirmed or checked-in booking whose workflow is gone (terminated from the UI,
// failed on a replay, lost) has nothing left to cancel or refund it. Resuming starts a booking
// workflow again, under the booking's own id, that takes the booking up in the state the
// database holds, as a run continued as new would: payments, cancels and refunds then work as
// they did.

// ErrWorkflowRunning is the refusal to resume a booking whose workflow runs.
var ErrWorkflowRunning = errors.New("the booking's workflow is running")

// Resumable reports whether a booking in status s may be resumed: confirmed or checked in, a
// state its workflow still looks after. A HOLD is released by the invariant checker, a
// REFUNDING one gets a refund recovery, and a NO_SHOW has nothing left that its workflow does:
// staff refunds its lost workflow had not given back are given by its StaffRefund workflow
// (GiveStaffRefunds), as any refund once the booking's workflow has closed.
func Resumable(s domain.Status) bool {
	return s == domain.StatusConfirmed || s == domain.StatusCompleted
}

// ResumeOptions are the settings a resumed workflow runs with (zero: the workflow's defaults).
type ResumeOptions struct {
	TaskQueue         string
	LateWindow        time.Duration
	MaxRefundAttempts int
	RefundBackoff     time.Duration
	Now               func() time.Time
	// BookingIDKey (BOOKING_ID_KEY) keys the customer's search key in the CustomerId search
	// attribute; without it a resumed booking has no CustomerId, never the customer's id.
	BookingIDKey []byte
}

// ResumeBooking starts the workflow of booking b, whose own is gone, in b's current state; why
// is the reason the workflow shows. It fails with ErrWorkflowRunning when a run of it is under
// way. A no-show deadline that passed while no workflow watched is not applied: whether the
// guest came is for staff to say.
func ResumeBooking(ctx context.Context, c client.Client, store *db.Store, b domain.Booking, why string, opts ResumeOptions) error {
	if !Resumable(b.Status) {
		return fmt.Errorf("%w: booking %s is %s: only a CONFIRMED or COMPLETED booking is resumed", domain.ErrConflict, b.ID, b.Status)
	}
	in, err := resumeInput(ctx, store, b, why, opts)
	if err != nil {
		return err
	}
	// The id of a run that ended is taken up again: it is this booking's.
	err = startBookingRun(ctx, c, b, in, opts, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("%w: booking %s", ErrWorkflowRunning, b.ID)
	}
	return err
}

// startBookingRun starts a booking workflow of b with in, under b's id, with its start search
// attributes; a run of that id already going fails it (WorkflowExecutionAlreadyStarted).
func startBookingRun(ctx context.Context, c client.Client, b domain.Booking, in workflows.BookingInput, opts ResumeOptions,
	reuse enumspb.WorkflowIdReusePolicy) error {
	if opts.TaskQueue == "" {
		opts.TaskQueue = workflows.TaskQueue
	}
	customerKey := ""
	if len(opts.BookingIDKey) > 0 {
		customerKey = domain.CustomerSearchKey(opts.BookingIDKey, b.CustomerID)
	}
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: b.ID, TaskQueue: opts.TaskQueue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		WorkflowIDReusePolicy:                    reuse,
		TypedSearchAttributes:                    workflows.GiveStartAttributes(&in, customerKey),
	}, workflows.BookingWorkflowName, in)
	return err
}

func resumeInput(ctx context.Context, store *db.Store, b domain.Booking, why string, opts ResumeOptions) (workflows.BookingInput, error) {
	in := workflows.BookingInput{BookingID: b.ID, CreatedBy: b.CreatedBy, ChannelID: b.ChannelID, AgentID: b.AgentID,
		SupplierID: b.SupplierID, LateWindow: opts.LateWindow, MaxRefundAttempts: opts.MaxRefundAttempts,
		RefundBackoff: opts.RefundBackoff,
		Resume:        &workflows.Resume{State: workflows.BookingState{Booking: b, Reason: why}}}
	if b.VenueID != "" {
		order := &domain.OrderRequest{CustomerID: b.CustomerID, VenueID: b.VenueID}
		for _, l := range b.Price.Lines {
			order.Lines = append(order.Lines, l.OrderLine)
		}
		v, _, err := store.GetVenue(ctx, b.VenueID)
		if err != nil {
			return in, err
		}
		in.Order, in.NoShowAt = order, order.Ends().Add(time.Duration(v.NoShowGraceMinutes)*time.Minute).UTC()
	} else {
		in.Request = domain.HoldRequest{CustomerID: b.CustomerID, HotelID: b.HotelID, RoomTypeID: b.RoomTypeID,
			Stay: b.Stay, Quantity: b.Quantity}
		if b.RatePlan != domain.DefaultRatePlan {
			in.Request.RatePlan = b.RatePlan // the request's fingerprint names the plan it named
		}
		h, err := store.GetHotel(ctx, b.HotelID)
		if err != nil {
			return in, err
		}
		in.NoShowAt = domain.HotelNoShowAt(b.CheckIn, h.Location)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if !in.NoShowAt.After(now()) {
		in.NoShowAt = time.Time{}
	}
	// An amendment waiting for its balance goes on waiting (or lapses at once, past its window).
	// What the booking keeps of each payment is the ledger's: the resumed run reads its refunds'
	// draws from there.
	// One still waiting for its supplier is refused (the resumed run does not ask again), and
	// the hold the supplier may have made for it cancelled.
	cancels, err := store.EndSupplierPending(ctx, b.ID, "the booking's workflow was resumed before its supplier answered")
	if err != nil {
		return in, err
	}
	in.Resume.SupplierCancels = cancels
	owed, err := store.UnfinishedAmendmentRefunds(ctx, b.ID)
	if err != nil {
		return in, err
	}
	for _, r := range owed {
		in.Resume.Restart = append(in.Resume.Restart, &workflows.Saga{Step: r.Step, Kind: workflows.SagaPart, Payment: r.Payment,
			Reason: "the amendment lowered the price (resumed)", FirstAttempt: r.FirstAttempt})
	}
	staff, err := store.UnfinishedStaffRefunds(ctx, b.ID)
	if err != nil {
		return in, err
	}
	in.Resume.Restart = append(in.Resume.Restart, staffRefundSagas(staff)...)
	// The payments the booking keeps, and those asked back, were acted on: a redelivery of one's
	// event (its webhook never marked delivered, say) is neither a second payment to give back nor
	// an amendment's balance.
	if in.Resume.Seen, err = store.ActedOnPaymentIDs(ctx, b.ID); err != nil {
		return in, err
	}
	// The payments it does not keep that its lost workflow was giving back: the resumed run gives
	// them back, from the attempt the lost one had reached.
	unkept, err := store.UnfinishedUnkeptRefunds(ctx, b.ID)
	if err != nil {
		return in, err
	}
	for _, u := range unkept {
		in.Resume.Restart = append(in.Resume.Restart, &workflows.Saga{Step: db.ExtraRefundStep(u.Payment.ID), Kind: workflows.SagaExtra,
			Payment: u.Payment, Reason: "a payment the booking does not keep (resumed)", FirstAttempt: u.FirstAttempt})
	}
	st := &in.Resume.State
	st.Pending, st.LastAmendment, err = store.AmendmentState(ctx, b.ID)
	return in, err
}

// endedActive lists the bookings whose latest workflow run was terminated, failed or timed out:
// Temporal's visibility lists every such run (its BookingStatus may say PAYMENT_STUCK, or a state
// it had not published yet, so the database judges the booking), and the booking is kept only when
// its latest run is one of them (not one that resumed it and ran, or ended, since).
func endedActive(ctx context.Context, c client.Client) ([]string, error) {
	ids, err := listWorkflowIDs(ctx, c, fmt.Sprintf(`WorkflowType = %q AND ExecutionStatus IN ("Terminated", "Failed", "TimedOut")`,
		workflows.BookingWorkflowName))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		d, err := c.DescribeWorkflow(ctx, id, "")
		var gone *serviceerror.NotFound
		if errors.As(err, &gone) {
			continue // past the namespace's retention since it was listed
		}
		if err != nil {
			return nil, fmt.Errorf("describe workflow %s: %w", id, err)
		}
		switch d.RawResponse.GetWorkflowExecutionInfo().GetStatus() {
		case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED,
			enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
			out = append(out, id)
		}
	}
	return out, nil
}

// listWorkflowIDs lists the ids of the workflows, running or closed, that match a visibility
// query, each once.
func listWorkflowIDs(ctx context.Context, c client.Client, query string) ([]string, error) {
	req := &workflowservice.ListWorkflowExecutionsRequest{Query: query}
	seen := map[string]bool{}
	var ids []string
	for {
		res, err := c.ListWorkflow(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, ex := range res.Executions {
			if id := ex.GetExecution().GetWorkflowId(); !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		if req.NextPageToken = res.NextPageToken; len(req.NextPageToken) == 0 {
			return ids, nil
		}
	}
}
