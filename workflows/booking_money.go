package workflows

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// Payment issues, shown in the PaymentIssue search attribute.
const (
	IssueAmountMismatch      = "AMOUNT_MISMATCH"
	IssueDuplicatePayment    = "DUPLICATE_PAYMENT"
	IssueLatePaymentRefunded = "LATE_PAYMENT_REFUNDED"
	IssueRefundConflict      = "REFUND_CONFLICT"
	// IssueNoBooking: money for a booking id under which nothing was ever held (the request
	// was refused at the hold limit).
	IssueNoBooking = "NO_BOOKING"
)

// listenForRefunds keeps the provider's final word on every refund as it arrives, for the saga
// that waits for it (several sagas may wait at once).
func (b *booking) listenForRefunds(ctx workflow.Context) {
	b.settled = map[string]domain.PaymentEvent{}
	b.stuck = map[int]int{}
	b.waiting = map[int]*Saga{}
	b.refundEvents = workflow.GetSignalChannel(ctx, SignalRefund)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var ev domain.PaymentEvent
			b.refundEvents.Receive(ctx, &ev)
			b.settled[ev.RefundID] = ev
		}
	})
}

// onPayment acts on a payment event in the booking's current state. A payment id is acted on
// once; money that cannot pay for this booking's nights is given back.
func (b *booking) onPayment(ctx workflow.Context, ev domain.PaymentEvent) error {
	b.paymentTaken()
	counted := func(outcome string) { b.count(ctx, MetricPayments, map[string]string{"outcome": outcome}) }
	switch { // a pay-at-hotel booking's card and fee (card_guarantee.go): never a payment of the price
	case ev.Guarantee != nil:
		return b.onGuarantee(ctx, ev)
	case b.isFee(ev):
		return b.onFee(ctx, ev)
	}
	if !ev.Succeeded || ev.Amount <= 0 {
		b.logger.Info("Payment not received", "paymentId", ev.PaymentID, "amount", ev.Amount, "reason", ev.Reason)
		counted("not_received")
		return nil
	}
	if b.seen[ev.PaymentID] || b.state.Booking.PaymentID == ev.PaymentID {
		b.logger.Info("Duplicate payment event ignored", "paymentId", ev.PaymentID, "eventId", ev.EventID)
		counted("duplicate_event")
		return nil
	}
	b.seen[ev.PaymentID] = true
	pay := ev.Payment()
	deposit := int64(0) // what the desk took of a hold's price: a payment of the rest confirms it
	if b.status() == domain.StatusHold {
		deposit = b.state.Booking.Paid
	}
	matches := b.state.Booking.Price.Matches(pay.Amount+deposit, pay.Currency)
	unpaid := b.state.Booking.PaymentID == ""
	switch st := b.status(); {
	case st == "":
		counted("no_booking")
		return b.refundExtra(ctx, pay, IssueNoBooking, "a payment for a booking that was never held")
	case st == domain.StatusHold && matches:
		counted("pays_hold")
		return b.confirm(ctx, &pay, "")
	case b.paysDeposit(ctx, pay):
		counted("pays_deposit")
		return b.confirm(ctx, &pay, "")
	case st == domain.StatusHold:
		counted("amount_mismatch")
		return b.refundExtra(ctx, pay, IssueAmountMismatch, fmt.Sprintf("paid %d %s for a booking priced %d %s",
			pay.Amount, pay.Currency, b.state.Booking.Price.Total, b.state.Booking.Price.Currency))
	case b.pendingBalance(ev):
		counted("pays_balance")
		return b.payBalance(ctx, pay)
	case b.paysPlanBalance(ctx, ev):
		counted("pays_plan_balance")
		return b.payPlanBalance(ctx, pay)
	case st == domain.StatusExpired && unpaid && matches:
		counted("late")
		return b.latePayment(ctx, pay)
	case (st == domain.StatusExpired || st == domain.StatusCancelled || st == domain.StatusRejected) && unpaid:
		counted("booking_ended")
		return b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, Payment: &pay},
			fmt.Sprintf("payment received for a %s booking", st))
	}
	counted("second_payment")
	return b.refundExtra(ctx, pay, IssueDuplicatePayment, "a second payment for a booking already paid")
}

// latePayment handles a payment for an expired hold: take the same nights again under the
// normal lock and confirm, or give the whole payment back when they are gone.
func (b *booking) latePayment(ctx workflow.Context, pay domain.Payment) error {
	if b.in.SupplierID != "" {
		// The supplier was told the booking is off: its rooms are not ours to take again.
		b.state.Issue = IssueLatePaymentRefunded
		return b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, Payment: &pay},
			"the payment arrived after the supplier's hold ended")
	}
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.Retake, activities.RetakeInput{
		BookingID: b.in.BookingID, Payment: pay}).Get(ctx, &stored)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeUnavailable {
		b.state.Issue = IssueLatePaymentRefunded
		gone := "the nights were sold meanwhile"
		if b.in.Order != nil {
			gone = "its slots were sold meanwhile"
		}
		return b.startRefund(ctx, activities.StartRefundInput{BookingID: b.in.BookingID, Payment: &pay},
			"the payment arrived after the hold expired and "+gone+" or may no longer be sold")
	}
	if err != nil {
		return err
	}
	b.state.Booking, b.state.Reason = stored, "confirmed by a payment that arrived after the hold expired"
	b.logger.Info("Late payment took the nights again", "paymentId", pay.ID)
	return b.publish(ctx)
}

// startRefund is the booking-level saga: mark REFUNDING and release the nights (one step in the
// database), then, beside the main loop, give the amount due back through the provider and mark
// REFUNDED.
//
// When the database refuses the first step (it disagrees with the workflow about the booking),
// the booking is PAYMENT_STUCK: an operator's retry runs the step again, a resolution ends it.
func (b *booking) startRefund(ctx workflow.Context, in activities.StartRefundInput, reason string) error {
	var stored domain.Booking
	err := workflow.ExecuteActivity(dbActivity(ctx), bookings.StartRefund, in).Get(ctx, &stored)
	if caught, cerr := b.caughtUp(ctx, err); caught {
		return cmp.Or(cerr, errCaughtUp)
	}
	if conflict(err) {
		if !b.takes(ctx, versionStuckStartRefund) {
			return b.flag(ctx, err)
		}
		b.startSaga(ctx, &Saga{Step: "start-refund", Kind: sagaStartRefund, Start: &in, Reason: reason, FirstAttempt: 1}, err)
		return nil
	}
	if err != nil {
		return err
	}
	currency, err := b.refundStarted(ctx, stored, in, reason)
	if err != nil {
		return err
	}
	b.startSaga(ctx, &Saga{Step: "refund", Kind: sagaRefund, Booking: stored, Currency: currency, Reason: reason,
		FirstAttempt: 1, Actor: b.handedOverBy(in.Actor)}, nil)
	return nil
}

// handedOverBy is who a refund asked by actor is recorded as made by (its attempts' recordedBy):
// the staff member or agent who asked, whose desk hands a cash part over and whose cash-up counts
// it (issue 39); nobody for the guest (their id is personal) or for bookflow itself. Only the
// activities' input changes with it: histories replay as they were.
func (b *booking) handedOverBy(actor string) string {
	if actor == b.state.Booking.CustomerID || strings.HasPrefix(actor, domain.SystemActorPrefix) {
		return ""
	}
	return actor
}

// givenBackBy is who a part of the cancel's refund req asks, asked by actor, is recorded as given
// back by: actor, or nobody when req is asked away from the desk (AwayFromDesk), so that a part
// given back at the desk waits for whoever hands it over and is in their cash-up. (A staff
// refund's parts are decided by the database, which keeps AwayFromDesk with the refund.) Only the
// activities' input changes with it: histories replay as they were.
func (req MoneyRequest) givenBackBy(actor string) string {
	if req.AwayFromDesk {
		return ""
	}
	return actor
}

// versionStuckStartRefund marks the workflows in which a refused first refund step waits for an
// operator (before, it was only flagged).
const versionStuckStartRefund = "stuck-start-refund"

// refundStarted takes the booking as REFUNDING and returns the currency its refund is paid in.
func (b *booking) refundStarted(ctx workflow.Context, stored domain.Booking, in activities.StartRefundInput, reason string) (string, error) {
	b.state.Booking, b.state.Reason = stored, reason
	currency := stored.Price.Currency
	if in.Payment != nil {
		currency = in.Payment.Currency // a payment for a booking without a price (REJECTED)
	}
	return currency, b.publish(ctx)
}

// refundBooking gives a REFUNDING booking's refund due back and marks it REFUNDED: the end of
// the saga of a cancel, a late payment whose nights were sold, or a recovery.
func (b *booking) refundBooking(ctx workflow.Context, s *Saga) error {
	if s.Booking.RefundDue > 0 && s.Parts == nil && b.ledgerDraws(ctx) {
		parts, err := b.ledgerParts(ctx, db.CancelRefundRef(b.in.BookingID), s.Booking.RefundDue, s.Currency)
		if err != nil {
			return err
		}
		if len(parts) > 1 || parts[0].ID != s.Booking.PaymentID {
			s.Parts = parts // decided once: a saga handed over goes on with them
		}
	}
	if s.Booking.RefundDue > 0 && b.state.Kept == nil && s.Parts == nil {
		pay := domain.Payment{ID: s.Booking.PaymentID, Amount: s.Booking.Paid, Currency: s.Currency}
		if err := b.refundFrom(ctx, s, pay, s.Booking.RefundDue); err != nil {
			return err
		}
	} else if s.Booking.RefundDue > 0 {
		// A balance was paid: the refund is drawn on each payment up to its own amount, decided
		// once, one payment after the other (Part says which; a saga handed over goes on there).
		if s.Parts == nil {
			s.Parts = domain.DrawRefund(b.state.Kept, s.Booking.RefundDue) // a run recorded before the ledger drew it
		}
		for s.Part < len(s.Parts) {
			part := s.Parts[s.Part]
			if err := b.refundFrom(ctx, s, part, part.Amount); err != nil {
				return err
			}
			s.Part, s.FirstAttempt, s.Attempt = s.Part+1, 1, 0 // the next payment's refund is a new request
		}
	}
	var done domain.Booking
	if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.FinishRefund, b.in.BookingID).Get(ctx, &done); err != nil {
		return err
	}
	b.state.Booking = done
	b.logger.Info("Booking refunded", "refunded", done.RefundDue, "paid", done.Paid, "reason", s.Reason)
	return b.publish(ctx)
}

// refundExtra gives back, beside the main loop, a whole payment that does not pay for this
// booking, and flags it.
func (b *booking) refundExtra(ctx workflow.Context, pay domain.Payment, issue, reason string) error {
	b.state.Issue = issue
	b.logger.Warn("Refunding a payment the booking cannot keep", "paymentId", pay.ID, "issue", issue, "reason", reason)
	if err := b.publish(ctx); err != nil {
		return err
	}
	b.startSaga(ctx, &Saga{Step: db.ExtraRefundStep(pay.ID), Kind: sagaExtra, Payment: pay, Reason: reason, FirstAttempt: 1}, nil)
	return nil
}

// Saga is a refund that runs beside the main loop: what it gives back and how far it got, so
// that one waiting for an operator can be handed to the run that continues the workflow.
type Saga struct {
	ID   int    // unique in the workflow, across runs
	Step string // its name in logs, and in its refund keys
	Kind string // sagaRefund, sagaStartRefund, sagaExtra or sagaPart
	// Start is the first step of a booking's refund (sagaStartRefund), which the database
	// refused once.
	Start *activities.StartRefundInput `json:",omitempty"`
	// Booking and Currency are the booking being refunded, as the first step left it, and the
	// currency of its payment (sagaRefund; sagaStartRefund once its first step is done).
	Booking  domain.Booking
	Currency string
	// Payment is the payment given back whole (sagaExtra), or the part of the booking's payment
	// given back (sagaPart).
	Payment domain.Payment
	// Parts, for a booking paid in more than one payment (a balance), are what its refund draws
	// on each (sagaRefund), decided once; Part is the one being refunded.
	Parts  []domain.Payment `json:",omitempty"`
	Part   int              `json:",omitempty"`
	Reason string
	// Actor is the staff member who gave the refund (a staff refund's), recorded with its attempts.
	Actor string `json:",omitempty"`
	// FirstAttempt is the refund attempt a run of the saga starts from (a recovery goes on
	// after the attempts a lost saga made); Attempt, while it waits among its attempts, the one
	// it goes on from.
	FirstAttempt, Attempt int
	// Parked says it waits for an operator, Waiting why. InRefund says it waits among its
	// refund attempts, where a resolution means the refund was made by hand; otherwise it waits
	// after a refused step, and a resolution ends it.
	Parked   bool
	Waiting  string
	InRefund bool
	// InFlight says the attempt it waits after got no definite answer (pending at the provider,
	// or its outcome lost): the provider may still give the money back, so a resolution by hand
	// is refused until a retry has the provider's answer.
	InFlight bool `json:",omitempty"`
}

// refundStep names the saga's refund attempts in their idempotency keys: a booking's refund is
// "refund" however it began.
func (s *Saga) refundStep() string {
	if s.Kind == sagaExtra || s.Kind == sagaPart {
		return s.Step
	}
	if s.Part < len(s.Parts) {
		return db.BookingRefundStep(s.Booking, s.Parts[s.Part].ID) // a balance payment's share has a step of its own
	}
	return sagaRefund
}

// Saga kinds.
const (
	sagaRefund      = "refund"       // give a REFUNDING booking's refund due back, mark it REFUNDED
	sagaStartRefund = "start-refund" // take the booking REFUNDING first, then as sagaRefund
	sagaExtra       = "extra"        // give back a whole payment the booking cannot keep
	sagaPart        = "part"         // give back part of the booking's payment: an amendment lowered its price
)

// SagaPart is the kind of an amendment's refund saga, which a resumed booking runs again when its
// lost workflow had not finished it (worker.ResumeBooking).
const SagaPart = sagaPart

// SagaExtra is the kind of the refund of a payment a booking does not keep, which a resumed booking
// runs again when its lost workflow had not finished it (worker.ResumeBooking).
const SagaExtra = sagaExtra

// startSaga runs s in its own coroutine; the workflow does not complete while one runs. When a
// step fails on a business refusal (the database disagrees with the workflow), or refused is
// set (the refusal that made the saga), it is flagged and waits for an operator: a retry runs
// the saga again (every step in it is idempotent), a resolution ends it. A saga handed over
// waiting for an operator goes on waiting.
func (b *booking) startSaga(ctx workflow.Context, s *Saga, refused error) {
	if s.ID == 0 {
		b.lastSagaID++
		s.ID = b.lastSagaID
	}
	b.sagas++
	if b.running == nil {
		b.running = map[string]int{}
	}
	b.running[s.Step]++
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer func() {
			b.sagas--
			b.running[s.Step]--
			b.wake.SendAsync(true)
		}()
		err, parked := refused, s.Parked && !s.InRefund
		for {
			if err == nil && !parked {
				if err = b.runSaga(ctx, s); err == nil {
					return
				}
			}
			why := s.Waiting
			if err != nil {
				_ = b.flag(ctx, err)
				why = err.Error()
			}
			if resolved, err := b.awaitOperator(ctx, s, s.Step, why, nil); err != nil || resolved {
				return
			}
			err, parked = nil, false
		}
	})
}

// runSaga runs s from its start, or from the refund attempt it waits at.
func (b *booking) runSaga(ctx workflow.Context, s *Saga) error {
	switch s.Kind {
	case sagaExtra, sagaPart:
		return b.refundFrom(ctx, s, s.Payment, s.Payment.Amount)
	case sagaStartRefund:
		if !s.InRefund {
			var stored domain.Booking
			if err := workflow.ExecuteActivity(dbActivity(ctx), bookings.StartRefund, *s.Start).Get(ctx, &stored); err != nil {
				return err
			}
			currency, err := b.refundStarted(ctx, stored, *s.Start, s.Reason)
			if err != nil {
				return err
			}
			s.Booking, s.Currency = stored, currency
			if s.Start.ByPolicy && (b.in.SupplierID != "" || b.in.AgentID != "") {
				// A cancel whose first refund step an operator retried: the booking is off now.
				if err := b.bookingOff(ctx, EventCancelled, s.Reason); err != nil {
					return err
				}
				b.wake.Send(ctx, nil)
			}
		}
	}
	return b.refundBooking(ctx, s)
}

// flag records a refund step that could not go on, for an operator (PaymentIssue).
func (b *booking) flag(ctx workflow.Context, err error) error {
	b.state.Issue, b.state.Reason = IssueRefundConflict, err.Error()
	b.logger.Error("Refund step refused; flagged for an operator", "error", err)
	return b.publish(ctx)
}

// conflict reports whether err is the database refusing a step (ErrTypeConflict).
func conflict(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeConflict
}
