package workflows

import (
	"time"

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
	// AmendedEnd, set once an amendment moved the stay, is when its use is over (see ends); it is
	// carried to the runs that continue the workflow.
	AmendedEnd time.Time `json:",omitzero"`
	// ReserveLocally runs the reservation as a local activity (see startReserve); absent in
	// the inputs of workflows started before it existed, which keep the activity.
	ReserveLocally bool `json:",omitempty"`
	// ConfirmLocally runs the confirmation of a hold as a local activity (confirm_local.go);
	// absent in the inputs of workflows started before it existed, which keep the activity.
	ConfirmLocally bool `json:",omitempty"`
	// StartAttributesGiven: the workflow was started with its start search attributes
	// (GiveStartAttributes), so a lean booking does not upsert them.
	StartAttributesGiven bool `json:",omitempty"`
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
	// Pending is the amendment waiting for its balance: the booking holds its added units beside
	// its own until the balance is paid or DueBy passes.
	Pending *domain.Amendment `json:",omitempty"`
	// LastAmendment is the id of the last amendment the workflow took: an answer with this id
	// or an older one was taken before.
	LastAmendment int64 `json:",omitempty"`
	// Kept is the draw of a run recorded before versionLedgerDraws, once a balance was paid: the
	// booking's payments by what of each may still be refunded. Later runs read the ledger; this
	// stays only so that those runs replay (never set by a run that takes the change).
	Kept []domain.Payment `json:",omitempty"`
	// CancelledWith is the key of the staff refund that cancelled the booking in a run recorded
	// before the database kept money commands' keys (versionMoneyCommandKeys): a retry under it
	// has the first one's answer. Later runs ask the database.
	CancelledWith string `json:",omitempty"`
}

// command is a confirm or cancel request from an update handler, carried out by the main loop
// so that every state change happens in one place, one at a time.
type command struct {
	name  string    // UpdateConfirm, UpdateCancel, UpdateCheckIn, UpdateCheckOut, UpdateNoShow, UpdateAmend or UpdateMoney
	at    time.Time // when the workflow accepted it: a cancellation policy judges this moment
	actor string    // who asked (the caller's token subject), for the booking's history
	done  bool
	// amend is an amendment's request; amended its outcome, refusal the update's error when the
	// booking could not take it.
	amend   *AmendRequest
	amended domain.Amendment
	// money is a staff member's money request (UpdateMoney).
	money   *MoneyRequest
	refusal error
	// paymentsBefore is how many payments waiting when it was accepted are still waiting
	// (paymentsInOrder): they are taken before it.
	paymentsBefore int
}

// booking is the workflow's private state.
type booking struct {
	in       BookingInput
	state    BookingState
	reserved bool // the reservation outcome is known
	// busy is set while the main loop carries out a step: the state may be about to change, so
	// validators let updates through for the main loop to decide.
	busy bool
	// replan: a step changed the deadlines of the phase (an amendment): it starts again.
	replan bool
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
	// feeDue: a guaranteed booking's card is yet to be charged the fee a step asked for.
	feeDue *feeDue
	// supplierCancels are holds at the supplier to cancel once the request in hand is answered:
	// those an amendment left or will not use.
	supplierCancels []string
	departed        bool // an early departure: the guest stayed, so no no-show
	excused         bool // a slot the booking holds was closed: no no-show either
	closing         bool // the main loop takes no more commands
	commands        workflow.Channel
	payments        workflow.ReceiveChannel
	seen            map[string]bool // payment ids already acted on
	// cancelled is the workflow's own cancellation; cancelSeen once the booking was cancelled
	// for it.
	cancelled  workflow.ReceiveChannel
	cancelSeen bool
	// Refund sagas run beside the main loop, so a slow or stuck refund never holds up the hold
	// timer or other requests. wake tells the main loop that one moved the booking on.
	sagas int
	// staffRefunds: a StaffRefund workflow's run, which takes staff refunds.
	staffRefunds bool
	// running counts the sagas running by step: a staff refund asked again finds its own.
	running map[string]int
	wake    workflow.Channel
	// settled holds the provider's final word on refunds, by provider refund id.
	settled map[string]domain.PaymentEvent
	// stuck holds the sagas waiting for an operator, by saga id, with the operator round they
	// wait for; an operator action starts a new round for all of them.
	stuck     map[int]int
	opRound   int
	opResolve bool
	opAction  OperatorAction // the last action: who resolved, and why
	opBusy    bool           // an operator action is being taken
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
	// lean: the workflow costs the server less; skippedMarkers: it took every earlier change
	// without its marker (lean.go).
	lean, skippedMarkers bool
	// confirmLocally: the confirmation runs as a local activity (confirm_local.go);
	// paymentsFirst, paymentsInOrder: while the booking is held a payment waiting is taken before
	// a command (any, or one accepted after it arrived; paymentFirst).
	confirmLocally, paymentsFirst, paymentsInOrder bool
	// queued are the commands accepted and not yet handled, in order (paymentsInOrder).
	queued []*command
	logger log.Logger
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
	b.setLean(ctx)
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
	}{{UpdateConfirm, b.validateConfirm}, {UpdateCancel, b.validateCancel}, {UpdateCheckIn, b.validateCheckIn},
		{UpdateCheckOut, b.validateCheckOut}} {
		handler := func(ctx workflow.Context, actor string) (BookingState, error) { return b.request(ctx, u.name, actor) }
		validator := func(string) error { return u.validate() }
		if err := workflow.SetUpdateHandlerWithOptions(ctx, u.name, handler,
			workflow.UpdateHandlerOptions{Validator: validator}); err != nil {
			return err
		}
	}
	noShow := func(ctx workflow.Context, actor string) (BookingState, error) {
		return b.request(ctx, UpdateNoShow, actor)
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateNoShow, noShow,
		workflow.UpdateHandlerOptions{Validator: b.validateNoShow}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateAmend, b.requestAmend,
		workflow.UpdateHandlerOptions{Validator: b.validateAmend}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateMoney, b.requestMoney,
		workflow.UpdateHandlerOptions{Validator: b.validateMoney}); err != nil {
		return err
	}
	if err := b.setOperatorHandlers(ctx); err != nil {
		return err
	}
	if err := b.upsertStartAttributes(ctx); err != nil {
		return err
	}
	b.watchForContinueAsNew(ctx)
	b.resumeWaitingSagas(ctx)
	return nil
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
	if !in.AmendedEnd.IsZero() {
		return in.AmendedEnd
	}
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
		b.flushSupplierCancels(ctx) // holds a resumed booking's refused amendment may have made
		if b.in.Resume.Offered && b.takes(ctx, versionWaitlistOffer) {
			if err := b.afterReserve(ctx); err != nil {
				return b.state, err
			}
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
			!b.takes(ctx, versionRefusedGoesOn) {
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

// versionWaitlistOffer marks the runs that start a waitlist offer (Resume.Offered), which no
// run before it did.
const versionWaitlistOffer = "waitlist-offer"

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

// publish keeps the search attributes operators filter on current, and counts the booking's
// new status.
func (b *booking) publish(ctx workflow.Context) error {
	b.countStatus(ctx)
	status := string(b.status())
	b.state.Stuck = len(b.stuck) > 0
	if !b.status().Used() {
		if supplierAmendment(b.state.Pending) {
			b.cancelAtSupplier(b.state.Pending.SupplierHoldRef) // its new hold will not be used
		}
		b.state.Pending = nil // the booking gave its units back: a pending amendment lapsed with them
	}
	switch {
	case b.state.Stuck:
		status = StatusPaymentStuck
	case b.supplierStuck:
		status = StatusSupplierStuck
	case b.state.Pending != nil:
		status = StatusBalanceDue
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
