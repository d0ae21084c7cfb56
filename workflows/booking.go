package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// Defaults for BookingInput fields left zero.
const (
	DefaultHoldTTL    = 10 * time.Minute
	DefaultLateWindow = time.Hour
)

// BookingInput starts a booking workflow.
type BookingInput struct {
	BookingID      string
	IdempotencyKey string
	Request        domain.HoldRequest
	// HoldTTL is how long the rooms are held for payment.
	HoldTTL time.Duration
	// LateWindow is how long a booking that ended (expired, cancelled, rejected) keeps answering
	// requests from its workflow before the workflow closes.
	LateWindow time.Duration
}

// BookingState is what the state query and every update answer.
type BookingState struct {
	// Booking is the booking as the database last reported it. Its Status is empty until the
	// reservation outcome is known.
	Booking domain.Booking
	// Reason says why a booking ended as it did (rejected, expired, a refused confirmation).
	Reason string
}

// command is a confirm or cancel request from an update handler, carried out by the main loop
// so that every state change happens in one place, one at a time.
type command struct {
	name string // UpdateConfirm or UpdateCancel
	done bool
}

// booking is the workflow's private state.
type booking struct {
	in       BookingInput
	state    BookingState
	reserved bool // the reservation outcome is known
	closing  bool // the main loop takes no more commands
	commands workflow.Channel
	logger   log.Logger
}

// BookingWorkflow is one booking's life: reserve the rooms; if that fails end REJECTED;
// otherwise hold them until the guest pays (CONFIRMED), cancels (CANCELLED) or the hold timer
// wins (EXPIRED); a confirmed booking may still be cancelled until check-out.
func BookingWorkflow(ctx workflow.Context, in BookingInput) (BookingState, error) {
	b := &booking{in: in}
	if err := b.setup(ctx); err != nil {
		return b.state, err
	}
	return b.run(ctx)
}

func (b *booking) setup(ctx workflow.Context) error {
	if b.in.HoldTTL <= 0 {
		b.in.HoldTTL = DefaultHoldTTL
	}
	if b.in.LateWindow <= 0 {
		b.in.LateWindow = DefaultLateWindow
	}
	req := b.in.Request
	b.state.Booking = domain.Booking{ID: b.in.BookingID, CustomerID: req.CustomerID, HotelID: req.HotelID,
		RoomTypeID: req.RoomTypeID, Stay: req.Stay, Quantity: req.Quantity}
	b.logger = log.With(workflow.GetLogger(ctx), "bookingId", b.in.BookingID)
	b.commands = workflow.NewBufferedChannel(ctx, 64)

	if err := workflow.SetQueryHandler(ctx, QueryState, func() (BookingState, error) {
		return b.state, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateHold, b.awaitReservation,
		workflow.UpdateHandlerOptions{Validator: b.validateHold}); err != nil {
		return err
	}
	for _, name := range []string{UpdateConfirm, UpdateCancel} {
		handler := func(ctx workflow.Context) (BookingState, error) { return b.request(ctx, name) }
		if err := workflow.SetUpdateHandler(ctx, name, handler); err != nil {
			return err
		}
	}
	return workflow.UpsertTypedSearchAttributes(ctx,
		SearchHotelID.ValueSet(req.HotelID),
		SearchCustomerID.ValueSet(req.CustomerID),
		SearchCheckIn.ValueSet(req.CheckIn.Time()))
}

func (b *booking) run(ctx workflow.Context) (BookingState, error) {
	if err := b.reserve(ctx); err != nil {
		return b.state, err
	}
	if b.status() == domain.StatusHold {
		if err := b.hold(ctx); err != nil {
			return b.state, err
		}
	}
	if b.status() == domain.StatusConfirmed {
		if err := b.stay(ctx); err != nil {
			return b.state, err
		}
	}
	return b.finish(ctx)
}

func (b *booking) status() domain.Status { return b.state.Booking.Status }

// validateHold rejects an Update-with-Start whose request differs from the one this workflow
// was started with: the idempotency key was reused for another booking.
func (b *booking) validateHold(fingerprint string) error {
	if fingerprint != b.in.Request.Fingerprint() {
		return temporal.NewApplicationError(fmt.Sprintf("Idempotency-Key %q was first used for a different booking request",
			b.in.IdempotencyKey), ErrTypeIdempotencyMismatch)
	}
	return nil
}

// awaitReservation is the hold update: it returns as soon as the reservation outcome is known.
func (b *booking) awaitReservation(ctx workflow.Context, _ string) (BookingState, error) {
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return b.state, err
	}
	return b.state, nil
}

// request hands a confirm or cancel to the main loop and answers with the state it leads to.
func (b *booking) request(ctx workflow.Context, name string) (BookingState, error) {
	if err := workflow.Await(ctx, func() bool { return b.reserved }); err != nil {
		return b.state, err
	}
	if b.closing || b.status().Final() {
		return b.state, nil
	}
	cmd := &command{name: name}
	b.commands.Send(ctx, cmd)
	err := workflow.Await(ctx, func() bool { return cmd.done })
	return b.state, err
}

func (b *booking) reserve(ctx workflow.Context) error {
	defer func() { b.reserved = true }()
	var acts *activities.Bookings
	var stored domain.Booking
	err := workflow.ExecuteActivity(withRetries(ctx), acts.Reserve, activities.ReserveInput{
		BookingID: b.in.BookingID, IdempotencyKey: b.in.IdempotencyKey, Request: b.in.Request, HoldTTL: b.in.HoldTTL,
	}).Get(ctx, &stored)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && (appErr.Type() == activities.ErrTypeUnavailable || appErr.Type() == activities.ErrTypeInvalid) {
		b.state.Booking.Status = domain.StatusRejected
		b.state.Reason = appErr.Message()
		b.logger.Info("Reservation refused", "reason", appErr.Message())
		return b.publish(ctx)
	}
	if err != nil {
		return err
	}
	b.state.Booking = stored
	b.logger.Info("Rooms held", "expiresAt", stored.ExpiresAt)
	return b.publish(ctx)
}

// hold waits for a confirm or cancel, raced against the hold timer.
func (b *booking) hold(ctx workflow.Context) error {
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer() // a confirm or cancel won: the timer is no longer needed
	timer := workflow.NewTimer(timerCtx, b.state.Booking.ExpiresAt.Sub(workflow.Now(ctx)))
	return b.loop(ctx, domain.StatusHold, timer, func() error {
		return b.release(ctx, domain.StatusExpired, "the hold expired before payment was confirmed")
	})
}

// stay keeps a confirmed booking cancellable until the day after check-out, late enough for
// every time zone.
func (b *booking) stay(ctx workflow.Context) error {
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	end := b.in.Request.CheckOut.AddDays(1).Time()
	timer := workflow.NewTimer(timerCtx, end.Sub(workflow.Now(ctx)))
	return b.loop(ctx, domain.StatusConfirmed, timer, func() error { return nil })
}

// loop serves commands while the booking is in status phase, until a command moves the booking
// on, the timer fires (then it runs onTimer), or the workflow is cancelled (then the booking is
// cancelled and its nights released).
func (b *booking) loop(ctx workflow.Context, phase domain.Status, timer workflow.Future, onTimer func() error) error {
	var err error
	fired := false
	for err == nil && !fired && b.status() == phase {
		sel := workflow.NewSelector(ctx)
		cancelled := func() {
			err = b.release(ctx, domain.StatusCancelled, "the workflow was cancelled by an operator")
			if err == nil {
				err = workflow.ErrCanceled
			}
		}
		sel.AddFuture(timer, func(f workflow.Future) {
			if f.Get(ctx, nil) != nil { // the timer was cancelled with the workflow
				cancelled()
				return
			}
			fired = true
			err = onTimer()
		})
		sel.AddReceive(b.commands, func(c workflow.ReceiveChannel, _ bool) {
			var cmd *command
			c.Receive(ctx, &cmd)
			err = b.handle(ctx, cmd)
		})
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { cancelled() })
		sel.Select(ctx)
	}
	if errors.Is(err, workflow.ErrCanceled) {
		return nil // the booking was cancelled and released; finish normally
	}
	return err
}

// handle carries out one command in the booking's current state and marks it done.
func (b *booking) handle(ctx workflow.Context, cmd *command) error {
	defer func() { cmd.done = true }()
	switch {
	case cmd.name == UpdateCancel && b.status().HoldsInventory():
		return b.release(ctx, domain.StatusCancelled, "cancelled at the guest's request")
	case cmd.name == UpdateConfirm && b.status() == domain.StatusHold:
		return b.confirm(ctx)
	}
	return nil // confirming a confirmed booking: nothing to do
}

func (b *booking) confirm(ctx workflow.Context) error {
	var acts *activities.Bookings
	var stored domain.Booking
	err := workflow.ExecuteActivity(withRetries(ctx), acts.Confirm, b.in.BookingID).Get(ctx, &stored)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeConflict {
		// The database's clock says the hold ran out: the expiry wins, exactly once.
		b.logger.Info("Confirmation refused", "reason", appErr.Message())
		return b.release(ctx, domain.StatusExpired, "payment confirmation arrived after the hold expired")
	}
	if err != nil {
		return err
	}
	b.state.Booking = stored
	b.state.Reason = ""
	b.logger.Info("Booking confirmed")
	return b.publish(ctx)
}

// release gives the nights back and moves the booking to status to. It runs on a disconnected
// context so that it completes even when the workflow is being cancelled.
func (b *booking) release(ctx workflow.Context, to domain.Status, reason string) error {
	var acts *activities.Bookings
	var stored domain.Booking
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	err := workflow.ExecuteActivity(withRetries(dctx), acts.Release, activities.ReleaseInput{
		BookingID: b.in.BookingID, To: to,
	}).Get(dctx, &stored)
	if err != nil {
		return err
	}
	b.state.Booking = stored
	b.state.Reason = reason
	b.logger.Info("Rooms released", "status", to, "reason", reason)
	return b.publish(dctx)
}

// finish answers commands still queued, keeps answering requests for the late window, then waits
// for every handler before the workflow completes.
func (b *booking) finish(ctx workflow.Context) (BookingState, error) {
	b.closing = true
	b.drain()
	if b.status().Final() {
		if err := workflow.Sleep(ctx, b.in.LateWindow); err != nil && !errors.Is(err, workflow.ErrCanceled) {
			return b.state, err
		}
	}
	b.drain()
	err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	if errors.Is(err, workflow.ErrCanceled) {
		err = nil
	}
	return b.state, err
}

// drain marks every queued command done; the booking's state is its answer.
func (b *booking) drain() {
	var cmd *command
	for b.commands.ReceiveAsync(&cmd) {
		cmd.done = true
	}
}

// publish keeps the search attributes operators filter on current.
func (b *booking) publish(ctx workflow.Context) error {
	updates := []temporal.SearchAttributeUpdate{SearchBookingStatus.ValueSet(string(b.status()))}
	if b.status() == domain.StatusHold {
		updates = append(updates, SearchHoldExpiresAt.ValueSet(b.state.Booking.ExpiresAt))
	} else {
		updates = append(updates, SearchHoldExpiresAt.ValueUnset())
	}
	return workflow.UpsertTypedSearchAttributes(ctx, updates...)
}

// withRetries sets the options every booking activity uses: a short StartToClose, and retries
// without limit for infrastructure failures (a database outage delays a booking, it never loses
// one); business refusals are non-retryable errors and end the retries at once.
func withRetries(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    200 * time.Millisecond,
			BackoffCoefficient: 2,
			MaximumInterval:    30 * time.Second,
		},
	})
}
