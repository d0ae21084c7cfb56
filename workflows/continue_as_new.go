package workflows

import (
	"fmt"
	"sort"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/domain"
)

// A booking's workflow can live for months (a confirmed stay is cancellable until it ends) and
// a stuck refund waits for operators for as long as it takes. Temporal caps what one run may
// hold: about 2,000 accepted updates, 50,000 history events. Past a cap, updates are refused for
// good, an operator's retry and resolve included. So when the server suggests it (it does well
// before either cap) a run hands over to a new one, with the same workflow id, at the first
// moment nothing is in flight: no step of the main loop running, no request queued or being
// answered, every refund saga waiting for an operator. Sagas waiting for an operator are handed
// over and go on waiting in the new run.

// Resume is where a run left off, for the run that continues it.
type Resume struct {
	State    BookingState
	StayOver bool
	// Departed: an early departure ended the stay's wait for a check-in (no no-show).
	Departed    bool      `json:",omitempty"`
	Excused     bool      `json:",omitempty"` // a slot it holds was closed: never a no-show
	LingerUntil time.Time `json:",omitempty"`
	// Seen are the payment ids already acted on; Settled the provider's final word on refunds.
	Seen    []string                       `json:",omitempty"`
	Settled map[string]domain.PaymentEvent `json:",omitempty"`
	// Sagas are the refunds waiting for an operator.
	Sagas []*Saga `json:",omitempty"`
	// SagasOnly: the run had no booking of its own to look after (a late payment's or a
	// recovery's workflow); the next one finishes the sagas and closes.
	SagasOnly bool `json:",omitempty"`
	// StaffRefunds: the run was a StaffRefund workflow's; the next one takes staff refunds too.
	StaffRefunds bool `json:",omitempty"`
	// SupplierCancels are holds at the supplier to cancel (a resumed booking's amendment that
	// was waiting for its supplier).
	SupplierCancels []string `json:",omitempty"`
	// Restart are refund sagas a resumed booking's lost workflow had running (an amendment's
	// refund the provider had not given back): they run again from their last attempt.
	Restart []*Saga `json:",omitempty"`
	// Offered: the run starts a waitlist offer, a hold the database made in a give-back's
	// transaction (db/waitlist_offers.go). It goes on as a reservation's outcome would: an
	// agent's is confirmed on its channel's account, a customer's waits for payment.
	Offered bool `json:",omitempty"`
}

// versionContinueAsNew, with the history length appended, marks the moment a run continued as
// new. A history from before runs could continue as new has no such marker: replayed, the run
// does not hand over at that moment, and asks again at the next one, where a live run may.
const versionContinueAsNew = "continue-as-new"

// continueAsNewDue reports whether the server suggests a new run and nothing is in flight.
func (b *booking) continueAsNewDue(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	if b.continuing || !info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength()+1 == b.refusedAt {
		return false
	}
	if !b.sagasOnly {
		// A cancel requested of the workflow is carried out first, unless it would change nothing.
		cancelPending := !b.cancelSeen && b.root.Err() != nil && b.status().HoldsInventory() && !b.stayOver
		if !b.reserved || b.refused != nil || b.busy || cancelPending || b.commands.Len() > 0 || b.payments.Len() > 0 {
			return false
		}
	}
	return !b.opBusy && b.sagas == len(b.waiting) && workflow.AllHandlersFinished(ctx)
}

// shouldContinueAsNew reports whether the run hands over now: it is due, and the run is not
// replaying a history from before runs could.
func (b *booking) shouldContinueAsNew(ctx workflow.Context) bool {
	if !b.continueAsNewDue(ctx) {
		return false
	}
	at := workflow.GetInfo(ctx).GetCurrentHistoryLength()
	if !b.takes(ctx, fmt.Sprintf("%s/%d", versionContinueAsNew, at)) {
		b.refusedAt = at + 1
		return false
	}
	return true
}

// watchForContinueAsNew wakes the main loop when a new run is due, so it hands over between
// steps.
func (b *booking) watchForContinueAsNew(ctx workflow.Context) {
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			_ = workflow.Await(ctx, func() bool { return b.continueAsNewDue(ctx) })
			b.wake.SendAsync(true)
			_ = workflow.Await(ctx, func() bool { return !b.continueAsNewDue(ctx) })
		}
	})
}

// continueAsNew ends the run, handing what it knows to the next one.
func (b *booking) continueAsNew(ctx workflow.Context) error {
	var ev domain.PaymentEvent
	for b.refundEvents.ReceiveAsync(&ev) {
		b.settled[ev.RefundID] = ev
	}
	// The next run draws its refunds where the ledger drew them: the draw of a run recorded before
	// it is not carried over (see versionLedgerDraws).
	state := b.state
	state.Kept = nil
	r := &Resume{State: state, StayOver: b.stayOver, Departed: b.departed, Excused: b.excused, LingerUntil: b.lingerUntil, Settled: b.settled,
		SagasOnly: b.sagasOnly, StaffRefunds: b.staffRefunds}
	for id := range b.seen {
		r.Seen = append(r.Seen, id)
	}
	sort.Strings(r.Seen)
	ids := make([]int, 0, len(b.waiting))
	for id := range b.waiting {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r.Sagas = append(r.Sagas, b.waiting[id])
	}
	in := b.in
	in.Resume = r
	info := workflow.GetInfo(ctx)
	b.logger.Info("Continuing as new", "historyLength", info.GetCurrentHistoryLength(),
		"historySize", info.GetCurrentHistorySize(), "sagasWaiting", len(r.Sagas))
	return workflow.NewContinueAsNewError(ctx, BookingWorkflowName, in)
}

// restore takes up where the run before left off. The sagas handed over are marked waiting
// for the run's first operator action before any handler is registered, so an action arriving
// in the run's first task finds them.
func (b *booking) restore() {
	r := b.in.Resume
	if r == nil {
		return
	}
	b.state, b.reserved, b.stayOver, b.departed, b.lingerUntil = r.State, true, r.StayOver, r.Departed, r.LingerUntil
	b.excused = r.Excused
	b.counted = r.State.Booking.Status
	b.supplierCancels = r.SupplierCancels
	for _, id := range r.Seen {
		b.seen[id] = true
	}
	for id, ev := range r.Settled {
		b.settled[id] = ev
	}
	for _, s := range r.Sagas {
		b.stuck[s.ID], b.waiting[s.ID] = b.opRound+1, s
		b.lastSagaID = max(b.lastSagaID, s.ID)
	}
}

// resumeWaitingSagas starts the sagas handed over, each waiting for an operator as it was.
func (b *booking) resumeWaitingSagas(ctx workflow.Context) {
	if b.in.Resume == nil {
		return
	}
	for _, s := range b.in.Resume.Sagas {
		b.startSaga(ctx, s, nil)
	}
	for _, s := range b.in.Resume.Restart {
		b.startSaga(ctx, s, nil) // not waiting for an operator: it runs
	}
}

// resumeSagas is a run continuing a late payment's or a recovery's workflow: it finishes the
// sagas handed over, then closes.
func (b *booking) resumeSagas(ctx workflow.Context) (BookingState, error) {
	b.in = withDefaults(b.in)
	b.reserved, b.closing, b.sagasOnly = true, true, true
	b.logger = log.With(workflow.GetLogger(ctx), "bookingId", b.in.BookingID)
	b.wake = workflow.NewBufferedChannel(ctx, 1)
	b.seen = map[string]bool{}
	b.listenForRefunds(ctx)
	b.restore()
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (BookingState, error) { return b.state, nil }); err != nil {
		return b.state, err
	}
	if err := b.setOperatorHandlers(ctx); err != nil {
		return b.state, err
	}
	if b.in.Resume.StaffRefunds {
		if err := b.takeStaffRefunds(ctx, func() bool { return true }); err != nil {
			return b.state, err
		}
	}
	b.resumeWaitingSagas(ctx)
	return b.state, b.awaitSagas(ctx)
}

// awaitSagas waits, in a workflow with no booking of its own to look after, for its sagas and
// handlers to finish, handing over to a new run when one is due.
func (b *booking) awaitSagas(ctx workflow.Context) error {
	done := func() bool { return b.sagas == 0 && workflow.AllHandlersFinished(ctx) }
	for {
		if err := workflow.Await(ctx, func() bool { return done() || b.continueAsNewDue(ctx) }); err != nil {
			return err
		}
		if done() {
			return nil
		}
		if b.shouldContinueAsNew(ctx) {
			return b.continueAsNew(ctx)
		}
	}
}
