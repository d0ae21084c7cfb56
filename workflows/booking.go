package workflows

import (
	"errors"
	"fmt"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// Defaults for BookingInput fields left zero.
const (
	DefaultHoldTTL           = 10 * time.Minute
	DefaultLateWindow        = time.Hour
	DefaultMaxRefundAttempts = 3
	DefaultRefundBackoff     = time.Minute
	DefaultRefundWait        = 24 * time.Hour
)

// BookingInput starts a booking workflow.
type BookingInput struct {
	BookingID      string
	IdempotencyKey string
	Request        domain.HoldRequest
	// Order, when set, makes the booking a venue order instead of a stay (Request is then
	// empty): its lines are reserved together, held for HoldTTL (the venue's payment window),
	// refunded whole when cancelled, and the booking lasts until its last line ends.
	Order *domain.OrderRequest `json:",omitempty"`
	// CreatedBy is who asked for the booking: the customer, or the staff member booking for them.
	CreatedBy string
	// ChannelID and AgentID: the sales channel and agent selling the stay (empty: a direct
	// sale). The hotel's sale rules are judged for them, and a channel sells from its allocation
	// first.
	ChannelID string `json:",omitempty"`
	AgentID   string `json:",omitempty"`
	// SupplierID names the supplier of the hotel: it confirms the stay after the reservation
	// (see supplier.go), and is told when the booking is off. SupplierStuckAfter is how long it
	// may leave the booking unanswered before operators see SUPPLIER_STUCK.
	SupplierID         string        `json:",omitempty"`
	SupplierStuckAfter time.Duration `json:",omitempty"`
	// SupplierTellFor is how long telling the supplier that the booking is off is retried before
	// the booking is flagged supplier_not_told.
	SupplierTellFor time.Duration `json:",omitempty"`
	// MaxActiveHolds, when above zero, refuses the reservation while the customer already has
	// that many holds: nothing is written, the hold update answers ErrTypeTooManyHolds and the
	// workflow closes.
	MaxActiveHolds int
	// HoldTTL is how long the rooms are held for payment.
	HoldTTL time.Duration
	// ReserveTimeout bounds the reservation, retries included, by how long the API waits for
	// it: past it the reservation is abandoned, so a hold never commits after its client left.
	// Zero: no bound.
	ReserveTimeout time.Duration
	// LateWindow is how long a booking that ended (expired, cancelled, rejected, refunded, or
	// past its stay) keeps listening for late payments before the workflow closes.
	LateWindow time.Duration
	// MaxRefundAttempts is how many failed refund attempts make a refund PAYMENT_STUCK.
	MaxRefundAttempts int
	// RefundBackoff is the wait after the first failed refund attempt; it doubles each time.
	RefundBackoff time.Duration
	// RefundWait is how long a pending refund may stay without the provider's final word before
	// it is handed to an operator.
	RefundWait time.Duration
	// NoShowAt is when a confirmed booking nobody checked in becomes a no-show (its units go
	// back, its payment is kept): the end of a venue order's last line plus the venue's grace,
	// or a hotel's check-in cut-off. Zero: never.
	NoShowAt time.Time `json:",omitzero"`
	// ReserveLocally runs the reservation as a local activity (see startReserve); absent in
	// the inputs of workflows started before it existed, which keep the activity.
	ReserveLocally bool `json:",omitempty"`
	// Resume, set when the workflow continued as new, is where the run before it left off.
	Resume *Resume `json:",omitempty"`
}

// BookingState is what the state query and every update answer.
type BookingState struct {
	// Booking is the booking as the database last reported it. Its Status is empty until the
	// reservation outcome is known.
	Booking domain.Booking
	// Reason says why a booking ended as it did (rejected, expired, a refused confirmation).
	Reason string
	// Stuck is set while a refund waits for an operator; Issue flags money that needs a look.
	Stuck bool
	Issue string `json:",omitempty"`
}

// command is a confirm or cancel request from an update handler, carried out by the main loop
// so that every state change happens in one place, one at a time.
type command struct {
	name  string    // UpdateConfirm, UpdateCancel or UpdateCheckIn
	at    time.Time // when the workflow accepted it: a cancellation policy judges this moment
	actor string    // who asked (the caller's token subject), for the booking's history
	done  bool
}

// booking is the workflow's private state.
type booking struct {
	in       BookingInput
	state    BookingState
	reserved bool // the reservation outcome is known
	// busy is set while the main loop carries out a step: the state may be about to change, so
	// validators let updates through for the main loop to decide.
	busy bool
	// refused is the hold update's answer when the reservation ended with nothing held for its
	// client: refused at the active-hold limit, or abandoned past its time bound. The workflow
	// then closes.
	refused  error
	stayOver bool // a confirmed booking is past its stay
	// supplierPending while the supplier is asked to confirm; supplierStuck once it has left
	// the booking unanswered for SupplierStuckAfter.
	supplierPending, supplierStuck bool
	// offPending: the supplier and the agent are yet to hear that the booking is off.
	offPending []offNotice
	departed   bool // an early departure: the guest stayed, so no no-show
	closing    bool // the main loop takes no more commands
	commands   workflow.Channel
	payments   workflow.ReceiveChannel
	seen       map[string]bool // payment ids already acted on
	// cancelled is the workflow's own cancellation; cancelSeen once the booking was cancelled
	// for it.
	cancelled  workflow.ReceiveChannel
	cancelSeen bool
	// Refund sagas run beside the main loop, so a slow or stuck refund never holds up the hold
	// timer or other requests. wake tells the main loop that one moved the booking on.
	sagas int
	wake  workflow.Channel
	// settled holds the provider's final word on refunds, by provider refund id.
	settled map[string]domain.PaymentEvent
	// stuck holds the sagas waiting for an operator, by saga id, with the operator round they
	// wait for; an operator action starts a new round for all of them.
	stuck     map[int]int
	opRound   int
	opResolve bool
	opBusy    bool // an operator action is being taken
	// waiting holds the sagas waiting for an operator, by saga id; lastSagaID numbers them.
	waiting    map[int]*Saga
	lastSagaID int
	// counted is the status last counted in MetricBookings (a run continued as new starts from
	// the status it was handed).
	counted      domain.Status
	refundEvents workflow.ReceiveChannel
	// lingerUntil is when a settled booking stops listening for late payments (zero: not
	// lingering).
	lingerUntil time.Time
	// root is the workflow's own context, which an operator's cancellation reaches.
	root workflow.Context
	// refusedAt is one more than the history length at which the run last found it may not
	// continue as new (replaying a history from before it could); 0: never.
	refusedAt  int
	continuing bool // the main loop hands over to a new run
	// sagasOnly: a workflow with no booking of its own to look after (a late payment's, a
	// recovery's): it finishes its sagas and closes.
	sagasOnly bool
	logger    log.Logger
}

// BookingWorkflow is one booking's life: reserve the rooms; if that fails end REJECTED;
// otherwise hold them until the guest pays (CONFIRMED), cancels (CANCELLED) or the hold timer
// wins (EXPIRED); a confirmed booking may be cancelled until check-out, with a refund by the
// hotel's policy when it was paid. Payments that arrive late or twice are taken or refunded,
// never kept without a booking.
//
// Cancelling the workflow (from the Temporal UI) cancels the booking as a guest's cancel would.
// It never cuts a step short: every step runs on a context the cancellation does not reach, so
// an activity's outcome is always known before the booking moves on.
//
// Its history stays short: when the server suggests it, the workflow continues as new at the
// first moment nothing is in flight (see continue_as_new.go).
func BookingWorkflow(ctx workflow.Context, in BookingInput) (BookingState, error) {
	b := &booking{in: in, cancelled: ctx.Done(), root: ctx}
	work, _ := workflow.NewDisconnectedContext(ctx)
	if in.Resume != nil && in.Resume.SagasOnly {
		return b.resumeSagas(work)
	}
	if err := b.setup(work); err != nil {
		return b.state, err
	}
	return b.run(work)
}

func (b *booking) setup(ctx workflow.Context) error {
	b.in = withDefaults(b.in)
	req := b.in.Request
	b.state.Booking = domain.Booking{ID: b.in.BookingID, CustomerID: req.CustomerID, CreatedBy: b.in.CreatedBy,
		HotelID: req.HotelID, RoomTypeID: req.RoomTypeID, Stay: req.Stay, Quantity: req.Quantity}
	if o := b.in.Order; o != nil {
		b.state.Booking = domain.Booking{ID: b.in.BookingID, CustomerID: o.CustomerID, CreatedBy: b.in.CreatedBy,
			VenueID: o.VenueID}
	}
	// The worker's logger names the booking on every line from its workflow id, which is the
	// booking id (telemetry.TemporalLogger).
	b.logger = workflow.GetLogger(ctx)
	b.commands = workflow.NewBufferedChannel(ctx, 64)
	b.wake = workflow.NewBufferedChannel(ctx, 64)
	b.payments = workflow.GetSignalChannel(ctx, SignalPayment)
	b.seen = map[string]bool{}
	b.listenForRefunds(ctx)
	b.restore() // before the handlers, so an operator's action in the first task finds its saga

	if err := workflow.SetQueryHandler(ctx, QueryState, func() (BookingState, error) {
		return b.state, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateHold, b.awaitReservation,
		workflow.UpdateHandlerOptions{Validator: b.validateHold}); err != nil {
		return err
	}
	// Each takes who asks (absent in updates sent before it was passed: then nobody is named).
	for _, u := range []struct {
		name     string
		validate func() error
	}{{UpdateConfirm, b.validateConfirm}, {UpdateCancel, b.validateCancel}, {UpdateCheckIn, b.validateCheckIn}} {
		handler := func(ctx workflow.Context, actor string) (BookingState, error) { return b.request(ctx, u.name, actor) }
		validator := func(string) error { return u.validate() }
		if err := workflow.SetUpdateHandlerWithOptions(ctx, u.name, handler,
			workflow.UpdateHandlerOptions{Validator: validator}); err != nil {
			return err
		}
	}
	if err := b.setOperatorHandlers(ctx); err != nil {
		return err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, b.searchAttributes()...); err != nil {
		return err
	}
	b.watchForContinueAsNew(ctx)
	b.resumeWaitingSagas(ctx)
	return nil
}

// searchAttributes are the attributes operators find the booking by: its hotel or venue, its
// customer, and when it starts.
func (b *booking) searchAttributes() []temporal.SearchAttributeUpdate {
	if o := b.in.Order; o != nil {
		return []temporal.SearchAttributeUpdate{SearchVenueID.ValueSet(o.VenueID),
			SearchCustomerID.ValueSet(o.CustomerID), SearchCheckIn.ValueSet(o.Starts())}
	}
	req := b.in.Request
	return []temporal.SearchAttributeUpdate{SearchHotelID.ValueSet(req.HotelID),
		SearchCustomerID.ValueSet(req.CustomerID), SearchCheckIn.ValueSet(req.CheckIn.Time())}
}

// fingerprint identifies the request the workflow was started with.
func (in BookingInput) fingerprint() string {
	if in.Order != nil {
		return in.Order.Fingerprint()
	}
	return in.Request.Fingerprint()
}

// ends is when the booking's use is over: the day after check-out, late enough for every time
// zone, or the end of an order's last line.
func (in BookingInput) ends() time.Time {
	if in.Order != nil {
		return in.Order.Ends()
	}
	return in.Request.CheckOut.AddDays(1).Time()
}

func withDefaults(in BookingInput) BookingInput {
	if in.HoldTTL <= 0 {
		in.HoldTTL = DefaultHoldTTL
	}
	if in.LateWindow <= 0 {
		in.LateWindow = DefaultLateWindow
	}
	if in.MaxRefundAttempts <= 0 {
		in.MaxRefundAttempts = DefaultMaxRefundAttempts
	}
	if in.RefundBackoff <= 0 {
		in.RefundBackoff = DefaultRefundBackoff
	}
	if in.RefundWait <= 0 {
		in.RefundWait = DefaultRefundWait
	}
	if in.SupplierStuckAfter <= 0 {
		in.SupplierStuckAfter = DefaultSupplierStuckAfter
	}
	if in.SupplierTellFor <= 0 {
		in.SupplierTellFor = DefaultSupplierTellFor
	}
	return in
}

// run moves the booking through its phases until it is settled and the late window has passed.
func (b *booking) run(ctx workflow.Context) (BookingState, error) {
	if b.in.Resume != nil {
		if err := b.publish(ctx); err != nil {
			return b.state, err
		}
	} else if err := b.reserve(ctx); err != nil {
		return b.state, err
	} else if err := b.afterReserve(ctx); err != nil {
		return b.state, err
	} else if err := b.flushBookingOff(ctx); err != nil {
		return b.state, err
	}
	if b.refused != nil {
		// Nothing is held for the client (refused at the hold limit, or abandoned): there is no
		// booking to keep, so the workflow closes (its key is spent) once what is queued is
		// answered. A payment made while an abandoned hold briefly stood may have taken the
		// units again or started a refund: then the booking goes on like any other.
		again, err := b.finish(ctx)
		if err != nil || !again ||
			workflow.GetVersion(ctx, versionRefusedGoesOn, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return b.state, err
		}
		b.refused = nil // the hold update has its answer; nothing now stops a continue-as-new
	}
	for {
		var err error
		switch {
		case b.continuing:
			return b.state, b.continueAsNew(ctx)
		case b.status() == domain.StatusHold:
			err = b.hold(ctx)
		case b.status().Used() && !b.stayOver:
			err = b.stay(ctx)
		case b.status() == domain.StatusRefunding && b.sagas > 0:
			err = b.serve(ctx, 0, nil) // until the refund saga ends it
		default:
			var again bool
			if again, err = b.linger(ctx); err == nil && !again && !b.continuing {
				if again, err = b.finish(ctx); err == nil && !again && !b.continuing {
					return b.state, nil
				}
			}
			if again {
				b.lingerUntil = time.Time{} // moved on: a late window starts afresh when it settles again
			}
		}
		if err != nil {
			return b.state, err
		}
	}
}

// versionRefusedGoesOn marks the workflows in which a refused or abandoned reservation whose
// queued payment moved the booking on keeps running (before, it closed regardless).
const versionRefusedGoesOn = "refused-goes-on"

func (b *booking) status() domain.Status { return b.state.Booking.Status }

// active reports whether the booking is in one of run's phases rather than settled: held,
// confirmed before the end of its stay, or being refunded.
func (b *booking) active() bool {
	switch b.status() {
	case domain.StatusHold:
		return true
	case domain.StatusConfirmed, domain.StatusCompleted:
		return !b.stayOver
	case domain.StatusRefunding:
		return b.sagas > 0
	}
	return false
}

// validateHold rejects an Update-with-Start whose request differs from the one this workflow
// was started with: the idempotency key was reused for another booking.
//
// Once the outcome is known a repeated request would change nothing, so it is rejected too (a
// rejected update is not written to history, which caps accepted updates): the API then answers
// from the database.
func (b *booking) validateHold(fingerprint string) error {
	if fingerprint != b.in.fingerprint() {
		return temporal.NewApplicationError(fmt.Sprintf("Idempotency-Key %q was first used for a different booking request",
			b.in.IdempotencyKey), ErrTypeIdempotencyMismatch)
	}
	if b.reserved {
		return b.noChange("the reservation outcome is known")
	}
	return nil
}

// validateConfirm rejects a confirm that could change nothing: the booking is not (or not yet
// known to be) on hold.
func (b *booking) validateConfirm() error {
	if (b.closing && !b.busy) || (b.steady() && b.status() != domain.StatusHold) {
		return b.noChange("only a booking on hold is confirmed")
	}
	if b.supplierPending {
		return b.noChange("the supplier has not confirmed it yet")
	}
	return nil
}

// validateCheckIn rejects a check-in that could change nothing: the booking is not (or not yet
// known to be) confirmed.
func (b *booking) validateCheckIn() error {
	if (b.closing && !b.busy) || (b.steady() && b.status() != domain.StatusConfirmed) {
		return b.noChange("only a confirmed booking is checked in")
	}
	return nil
}

// validateCancel rejects a cancel that could change nothing: the booking holds no nights, or
// its stay is over.
func (b *booking) validateCancel() error {
	if (b.closing && !b.busy) || (b.steady() && (!b.status().HoldsInventory() || b.stayOver)) {
		return b.noChange("only a held or confirmed booking before the end of its stay is cancelled")
	}
	return nil
}

// steady reports whether the state is not about to change: the reservation outcome is known and
// the main loop is between steps (a step in flight, such as a late payment taking the nights
// again, may be about to make a cancel meaningful).
func (b *booking) steady() bool { return b.reserved && !b.busy }

// noChange is the rejection of an update that would change nothing.
func (b *booking) noChange(why string) error {
	return temporal.NewApplicationError(fmt.Sprintf("booking %s is %s: %s", b.in.BookingID, b.status(), why), ErrTypeNoChange)
}

// awaitReservation is the hold update: it returns as soon as the reservation outcome is known.
func (b *booking) awaitReservation(ctx workflow.Context, _ string) (BookingState, error) {
	ctx = uncancellable(ctx)
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return b.state, err
	}
	return b.state, b.refused
}

// request hands a confirm or cancel to the main loop and answers with the state it leads to.
// The main loop decides, not the handler: an activity in flight may be about to change the state.
func (b *booking) request(ctx workflow.Context, name, actor string) (BookingState, error) {
	ctx = uncancellable(ctx)
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return b.state, err
	}
	if b.closing && !b.busy {
		return b.state, nil
	}
	cmd := &command{name: name, at: workflow.Now(ctx), actor: actor}
	b.commands.Send(ctx, cmd)
	err := workflow.Await(ctx, func() bool { return cmd.done })
	return b.state, err
}

func (b *booking) reserve(ctx workflow.Context) error {
	defer func() { b.reserved = true }()
	var stored domain.Booking
	in := activities.ReserveInput{
		BookingID: b.in.BookingID, IdempotencyKey: b.in.IdempotencyKey, Request: b.in.Request, Order: b.in.Order,
		CreatedBy: b.in.CreatedBy, MaxActiveHolds: b.in.MaxActiveHolds, HoldTTL: b.in.HoldTTL,
		ChannelID: b.in.ChannelID, AgentID: b.in.AgentID, SupplierID: b.in.SupplierID,
	}
	err := b.startReserve(ctx, in).Get(ctx, &stored)
	var appErr *temporal.ApplicationError
	refusal := errors.As(err, &appErr) && slices.Contains([]string{activities.ErrTypeTooManyHolds,
		activities.ErrTypeAlreadyOrdered, activities.ErrTypeUnavailable, activities.ErrTypeInvalid}, appErr.Type())
	switch {
	case refusal && (appErr.Type() == activities.ErrTypeTooManyHolds || appErr.Type() == activities.ErrTypeAlreadyOrdered):
		// Nothing was written: the hold update answers with the refusal.
		b.logger.Info("Reservation refused", "reason", appErr.Message())
		b.count(ctx, MetricHoldRefusals, map[string]string{"reason": appErr.Type()})
		b.refused = temporal.NewApplicationError(appErr.Message(), appErr.Type())
		b.state.Reason = appErr.Message()
		return nil
	case refusal:
		b.state.Booking.Status = domain.StatusRejected
		b.state.Reason = appErr.Message()
		b.logger.Info("Reservation refused", "reason", appErr.Message())
		return b.publish(ctx)
	case err != nil && b.in.ReserveTimeout > 0:
		// Out of time (the server ended the attempts with a timeout, or with the last failure
		// when no retry fits in the bound): end the reservation, whatever it reached, rather than
		// let a hold commit later for nobody. The hold update answers that nothing is held.
		b.logger.Warn("Reservation did not complete in time; abandoning it", "timeout", b.in.ReserveTimeout, "error", err)
		if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.AbandonReservation, in).Get(ctx, &stored); err != nil {
			return err
		}
		b.state.Booking = stored
		b.state.Reason = "the reservation did not complete in time; nothing is held"
		b.refused = temporal.NewApplicationError(b.state.Reason, ErrTypeReservationAbandoned)
		return b.publish(ctx)
	case err != nil:
		return err
	}
	b.state.Booking = stored
	b.logger.Info("Rooms held", "expiresAt", stored.ExpiresAt, "price", stored.Price.Total, "currency", stored.Price.Currency)
	return b.publish(ctx)
}

// startReserve starts the reservation. Asked to (b.in.ReserveLocally), it runs as a local
// activity: the reservation is one short idempotent transaction, and run by the worker that
// holds the workflow task it answers the hold in that task, without the round trips of an
// activity task through the server. A supplier's hotel keeps the activity: the supplier may be
// asked over the network. The version marker keeps a workflow that a worker of the previous
// release started (ignoring the field) on the activity when a newer worker replays it.
func (b *booking) startReserve(ctx workflow.Context, in activities.ReserveInput) workflow.Future {
	if !b.in.ReserveLocally || b.in.SupplierID != "" ||
		(workflow.GetVersion(ctx, versionLocalReserve, workflow.DefaultVersion, 1) == workflow.DefaultVersion &&
			!workflow.GetInfo(ctx).WorkflowStartTime.Before(localReserveMarkedSince)) {
		return workflow.ExecuteActivity(reserveActivity(ctx, b.in.ReserveTimeout), bookings.Reserve, in)
	}
	opts := workflow.LocalActivityOptions{StartToCloseTimeout: dbStepTimeout, RetryPolicy: dbRetryPolicy()}
	if b.in.ReserveTimeout > 0 {
		// A local activity's bound counts from the workflow task that runs it, and would start
		// again when another worker takes the task over after a failure: count it from the
		// workflow's start instead, as the API's wait does.
		left := b.in.ReserveTimeout - workflow.Now(ctx).Sub(workflow.GetInfo(ctx).WorkflowStartTime)
		if left <= 0 {
			f, settle := workflow.NewFuture(ctx)
			settle.SetError(temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, nil))
			return f
		}
		opts.ScheduleToCloseTimeout = left
		opts.StartToCloseTimeout = min(opts.StartToCloseTimeout, left)
	}
	return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, opts), bookings.Reserve, in)
}

// versionLocalReserve marks workflows whose reservation may run as a local activity.
const versionLocalReserve = "local-reserve"

// localReserveMarkedSince is when the local reservation got its version marker: the builds
// before it (fe5c147 up to 795a2d7, never released) ran the local activity unmarked, so a
// workflow they started replays it. One started since without the marker was started for a
// worker that predates the local activity (an API upgraded first), and keeps the activity.
var localReserveMarkedSince = time.Date(2026, 11, 30, 10, 45, 55, 0, time.UTC)

// hold waits for payment, a confirm or a cancel, raced against the hold timer.
func (b *booking) hold(ctx workflow.Context) error {
	return b.serve(ctx, until(ctx, b.state.Booking.ExpiresAt), func() error {
		if err := b.release(ctx, domain.StatusExpired, "the hold expired before payment was confirmed", ""); err != nil {
			return err
		}
		return b.bookingOff(ctx, EventExpired, b.state.Reason)
	})
}

// stay keeps a confirmed booking cancellable until its use is over. Until its no-show deadline it
// waits to be checked in; past it, a booking still not checked in is a no-show.
func (b *booking) stay(ctx workflow.Context) error {
	if b.status() == domain.StatusConfirmed && !b.in.NoShowAt.IsZero() && !b.departed &&
		workflow.GetVersion(ctx, versionNoShow, workflow.DefaultVersion, 1) == 1 {
		return b.serve(ctx, until(ctx, b.in.NoShowAt), func() error {
			if b.status() != domain.StatusConfirmed || b.departed {
				return nil
			}
			return b.noShow(ctx)
		})
	}
	return b.serve(ctx, until(ctx, b.in.ends()), func() error {
		b.stayOver = true
		return nil
	})
}

// uncancellable detaches an update handler's context from the workflow's cancellation, so a
// request accepted before a cancel still gets its answer.
func uncancellable(ctx workflow.Context) workflow.Context {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	return ctx
}

// until returns the time left until t, at least a millisecond: a deadline already passed (the
// reservation took longer than the hold, say) fires at once rather than never.
func until(ctx workflow.Context, t time.Time) time.Duration {
	return max(t.Sub(workflow.Now(ctx)), time.Millisecond)
}

// linger keeps a settled booking listening for late payments for the late window. It reports
// again when a late payment moved the booking on (confirmed it, or started a refund).
func (b *booking) linger(ctx workflow.Context) (again bool, err error) {
	if b.lingerUntil.IsZero() {
		b.lingerUntil = workflow.Now(ctx).Add(b.in.LateWindow)
	}
	err = b.serve(ctx, until(ctx, b.lingerUntil), func() error { return nil })
	return b.active(), err
}

// serve handles commands and payments in the booking's current phase, until something moves the
// booking on, the phase's timer fires (then it runs onTimer; no timer when d is 0), or the
// workflow is cancelled (then the booking is cancelled as if the guest had asked).
func (b *booking) serve(ctx workflow.Context, d time.Duration, onTimer func() error) error {
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer() // the phase ended another way: the timer is no longer needed
	var timer workflow.Future
	if d != 0 {
		timer = workflow.NewTimer(timerCtx, d)
	}
	phase, stayOver, active := b.status(), b.stayOver, b.active()
	var err error
	fired := false
	for err == nil && !fired && !b.continuing && b.status() == phase && b.stayOver == stayOver && b.active() == active {
		sel := workflow.NewSelector(ctx)
		if timer != nil {
			sel.AddFuture(timer, func(workflow.Future) {
				fired, b.busy = true, true
				err = onTimer()
			})
		}
		sel.AddReceive(b.wake, func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, nil)
			b.continuing = b.shouldContinueAsNew(ctx)
		})
		sel.AddReceive(b.commands, func(c workflow.ReceiveChannel, _ bool) {
			var cmd *command
			c.Receive(ctx, &cmd)
			b.busy = true
			err = b.handle(ctx, cmd)
		})
		sel.AddReceive(b.payments, func(c workflow.ReceiveChannel, _ bool) {
			var ev domain.PaymentEvent
			c.Receive(ctx, &ev)
			b.busy = true
			err = b.onPayment(ctx, ev)
		})
		if !b.cancelSeen {
			sel.AddReceive(b.cancelled, func(workflow.ReceiveChannel, bool) {
				b.cancelSeen, b.busy = true, true
				err = b.cancel(ctx, "the workflow was cancelled by an operator", workflow.Now(ctx), activities.ActorOperator)
			})
		}
		sel.Select(ctx)
		b.busy = false
		if err == nil {
			// Requests are answered first; the supplier and agent hear after.
			err = b.flushBookingOff(ctx)
		}
	}
	return err
}

// handle carries out one command in the booking's current state and marks it done.
func (b *booking) handle(ctx workflow.Context, cmd *command) error {
	defer func() { cmd.done = true }()
	switch {
	case cmd.name == UpdateCancel:
		return b.cancel(ctx, "cancelled at the guest's request", cmd.at, cmd.actor)
	case cmd.name == UpdateConfirm && b.status() == domain.StatusHold:
		return b.confirm(ctx, nil, cmd.actor)
	case cmd.name == UpdateCheckIn && b.status() == domain.StatusConfirmed:
		return b.checkIn(ctx, cmd.actor)
	}
	return nil // confirming a confirmed booking: nothing to do
}

// cancel cancels a booking that holds rooms: a paid one is refunded by the policy it was held
// under, judged at the moment the cancel was accepted; an unpaid one just gives its nights back.
// A confirmed stay that has begun is an early departure instead, and a stay that is over is not
// cancelled.
func (b *booking) cancel(ctx workflow.Context, reason string, at time.Time, actor string) error {
	if !b.status().HoldsInventory() || b.stayOver {
		return nil
	}
	// A venue order has no early departure: it is refunded whole (new in its own workflows, so
	// the version marker is not consulted for it).
	if b.status().Used() && b.in.Order == nil &&
		workflow.GetVersion(ctx, versionEarlyDeparture, workflow.DefaultVersion, 1) == 1 {
		if begun, err := b.departEarly(ctx, at); err != nil || begun {
			return err
		}
	}
	var err error
	if b.state.Booking.Paid > 0 {
		err = b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, ByPolicy: true,
			CancelledAt: at, Actor: actor}, reason)
	} else {
		err = b.release(ctx, domain.StatusCancelled, reason, actor)
	}
	if err != nil || b.status().HoldsInventory() {
		return err // a refund the database refused leaves the booking as it was: the supplier keeps it
	}
	return b.bookingOff(ctx, EventCancelled, reason)
}

// versionNoShow marks the workflows that wait for a check-in until their no-show deadline.
const versionNoShow = "no-show"

// checkIn marks the confirmed booking COMPLETED: staff checked its guest in.
func (b *booking) checkIn(ctx workflow.Context, actor string) error {
	var stored domain.Booking
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.CheckIn, b.in.BookingID, actor).Get(ctx, &stored); err != nil {
		return err
	}
	b.state.Booking, b.state.Reason = stored, "checked in"
	b.logger.Info("Checked in")
	return b.publish(ctx)
}

// noShow marks a confirmed booking nobody checked in by its deadline NO_SHOW: its units go back,
// its payment is kept.
func (b *booking) noShow(ctx workflow.Context) error {
	var stored domain.Booking
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.NoShow, b.in.BookingID).Get(ctx, &stored); err != nil {
		return err
	}
	b.state.Booking, b.state.Reason = stored, "nobody checked in by the deadline"
	b.logger.Info("No-show", "deadline", b.in.NoShowAt)
	return b.publish(ctx)
}

// versionEarlyDeparture marks the workflows in which a cancel of a confirmed stay that has
// begun is an early departure; histories from before it replay without the extra step.
const versionEarlyDeparture = "early-departure"

// departEarly asks the database whether the stay had begun, at the hotel, when the cancel was
// accepted; if so the cancel is an early departure (the nights after that day go back on sale,
// the payment stays: a policy refunds nothing once the stay has begun) and begun is true.
func (b *booking) departEarly(ctx workflow.Context, at time.Time) (begun bool, err error) {
	var out activities.DepartEarlyOutput
	err = workflow.ExecuteActivity(dbActivity(ctx), bookings.DepartEarly, activities.DepartEarlyInput{
		BookingID: b.in.BookingID, At: at}).Get(ctx, &out)
	if err != nil || !out.Begun {
		return false, err
	}
	b.state.Booking, b.departed = out.Booking, true
	b.state.Reason = "left early: the nights from " + out.Booking.CheckOut.String() + " are back on sale"
	b.logger.Info("Early departure", "checkOut", out.Booking.CheckOut)
	return true, b.publish(ctx)
}

// confirm confirms a held booking, with the payment that paid it (nil: without online payment),
// for actor (empty: the payment, or nobody named).
// When the database's clock says the hold ran out, the expiry wins, exactly once: the nights
// are released, and a payment is then handled as a late one.
func (b *booking) confirm(ctx workflow.Context, pay *domain.Payment, actor string) error {
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.Confirm, activities.ConfirmInput{
		BookingID: b.in.BookingID, Payment: pay, Actor: actor}).Get(ctx, &stored)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeConflict {
		b.logger.Info("Confirmation refused", "reason", appErr.Message())
		if err := b.release(ctx, domain.StatusExpired, "payment confirmation arrived after the hold expired", ""); err != nil {
			return err
		}
		if err := b.bookingOff(ctx, EventExpired, b.state.Reason); err != nil {
			return err
		}
		if pay == nil {
			return nil
		}
		return b.latePayment(ctx, *pay)
	}
	if err != nil {
		return err
	}
	b.state.Booking = stored
	b.state.Reason = ""
	b.logger.Info("Booking confirmed", "paid", stored.Paid)
	return b.publish(ctx)
}

// release gives the nights of an unpaid booking back and moves it to status to (the reason of
// a REJECTED one is recorded as its refusal), for actor (empty: an expiry is the hold timer's).
func (b *booking) release(ctx workflow.Context, to domain.Status, reason, actor string) error {
	in := activities.ReleaseInput{BookingID: b.in.BookingID, To: to, Actor: actor}
	if to == domain.StatusRejected {
		in.Refusal = reason
	}
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.Release, in).Get(ctx, &stored)
	if err != nil {
		return err
	}
	b.state.Booking = stored
	b.state.Reason = reason
	b.logger.Info("Rooms released", "status", to, "reason", reason)
	return b.publish(ctx)
}

// finish runs when the late window has passed: it handles what is still queued (a payment that
// raced the end of the window is acted on, never dropped) and lets running refund sagas end. It
// reports again when a queued payment moved the booking on, so its phases go on; otherwise it
// waits for every handler and the workflow completes.
func (b *booking) finish(ctx workflow.Context) (again bool, err error) {
	b.closing = true
	for {
		// Handling what is queued may change the booking (a late payment taking its nights
		// again): updates arriving meanwhile are queued, not turned away.
		b.busy = true
		var ev domain.PaymentEvent
		for b.payments.ReceiveAsync(&ev) {
			if err := b.onPayment(ctx, ev); err != nil {
				return false, err
			}
		}
		var cmd *command
		for b.commands.ReceiveAsync(&cmd) {
			if err := b.handle(ctx, cmd); err != nil {
				return false, err
			}
		}
		b.busy = false
		if err := b.flushBookingOff(ctx); err != nil {
			return false, err
		}
		if b.active() {
			b.closing = false
			return true, nil
		}
		if err := workflow.Await(ctx, func() bool {
			return b.sagas == 0 || b.payments.Len() > 0 || b.commands.Len() > 0 || b.continueAsNewDue(ctx)
		}); err != nil {
			return false, err
		}
		if b.sagas == 0 && b.payments.Len() == 0 && b.commands.Len() == 0 {
			break
		}
		if b.continueAsNewDue(ctx) && b.shouldContinueAsNew(ctx) {
			b.continuing = true
			return false, nil // every saga waits for an operator: the next run waits instead
		}
	}
	return false, workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

// publish keeps the search attributes operators filter on current, and counts the booking's
// new status.
func (b *booking) publish(ctx workflow.Context) error {
	b.countStatus(ctx)
	status := string(b.status())
	b.state.Stuck = len(b.stuck) > 0
	switch {
	case b.state.Stuck:
		status = StatusPaymentStuck
	case b.supplierStuck:
		status = StatusSupplierStuck
	}
	updates := []temporal.SearchAttributeUpdate{SearchBookingStatus.ValueSet(status)}
	if b.status() == domain.StatusHold {
		updates = append(updates, SearchHoldExpiresAt.ValueSet(b.state.Booking.ExpiresAt))
	} else {
		updates = append(updates, SearchHoldExpiresAt.ValueUnset())
	}
	if b.state.Issue != "" {
		updates = append(updates, SearchPaymentIssue.ValueSet(b.state.Issue))
	}
	return workflow.UpsertTypedSearchAttributes(ctx, updates...)
}

// The activities, by reference: the workflow names them, the worker registers them.
var (
	bookings *activities.Bookings
	refunds  *activities.Refunds
)

// reserveActivity bounds the reservation, retries included, by timeout (none when zero).
func reserveActivity(ctx workflow.Context, timeout time.Duration) workflow.Context {
	ctx = dbActivity(ctx)
	if timeout <= 0 {
		return ctx
	}
	opts := workflow.GetActivityOptions(ctx)
	opts.ScheduleToCloseTimeout = timeout
	opts.StartToCloseTimeout = min(opts.StartToCloseTimeout, timeout)
	return workflow.WithActivityOptions(ctx, opts)
}

// dbActivity sets the options of booking database steps: a short StartToClose, and retries
// without limit for infrastructure failures (a database outage delays a booking, it never loses
// one); business refusals are non-retryable errors and end the retries at once.
func dbActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: dbStepTimeout,
		RetryPolicy:         dbRetryPolicy(),
	})
}

// dbStepTimeout bounds one attempt of a booking database step.
const dbStepTimeout = 10 * time.Second

// dbRetryPolicy retries a booking database step without limit.
func dbRetryPolicy() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second}
}
