package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// Refund statuses, as the provider and the refunds table name them.
const (
	RefundPending   = payments.RefundPending
	RefundSucceeded = payments.RefundSucceeded
	RefundFailed    = payments.RefundFailed
)

// resendWindow is how long after its first request an attempt whose reply was lost is sent
// again under its key. Later it is looked up instead: the request may never have reached the
// provider, whose memory of idempotency keys does not last for ever.
const resendWindow = 5 * time.Minute

// Refunds asks the payment provider for refunds and records every attempt.
type Refunds struct {
	Store    *db.Store
	Provider payments.Provider
}

// RefundInput is one attempt of a refund step. Key is the idempotency key: the booking, the step
// and the attempt number, so a retry of this activity repeats the same request while a new
// attempt after a decline is a new request.
type RefundInput struct {
	Key       string
	BookingID string
	PaymentID string
	Amount    int64
	Currency  string
	Reason    string
	// Actor is who gave the refund, when staff did (recorded as who recorded it).
	Actor string `json:",omitempty"`
	// WhatIsLeft: the attempt gives back what is left of the payment, at most Amount (a payment
	// no booking keeps, part of which finance may have given back by hand).
	WhatIsLeft bool `json:",omitempty"`
}

// RefundOutcome is what became of an attempt.
type RefundOutcome struct {
	Status           string // pending, succeeded or failed
	ProviderRefundID string
	Error            string
}

// RequestRefund drives one attempt of a refund to what the provider knows of it. A new attempt
// is recorded, then sent. An attempt with a final outcome is answered from the record. A
// pending one is looked up at the provider, so a webhook that never came does not leave it
// pending for ever. One whose creation reply was lost is sent again under its key for a few
// minutes, then looked up by its key: if the provider never received it, it has failed, and the
// saga goes on with a new key rather than send an old key the provider may have forgotten. A
// refund the provider declines or cancels is a failed outcome, not an error: the saga decides
// what next.
func (a *Refunds) RequestRefund(ctx context.Context, in RefundInput) (RefundOutcome, error) {
	begin := a.Store.BeginRefundAttempt
	if in.WhatIsLeft {
		begin = a.Store.BeginRefundOfWhatIsLeft
	}
	rec, err := begin(ctx, db.RefundAttempt{ID: in.Key, BookingID: in.BookingID,
		PaymentID: in.PaymentID, Amount: in.Amount, Currency: in.Currency, Reason: in.Reason, RecordedBy: in.Actor})
	if err != nil {
		return RefundOutcome{}, err
	}
	switch {
	case rec.Status == RefundSucceeded || rec.Status == RefundFailed:
		return RefundOutcome{Status: rec.Status, ProviderRefundID: rec.ProviderRefundID, Error: rec.LastError}, nil
	case rec.Method != domain.MethodProvider:
		// Waiting at the desk for someone to hand it over (db.HandOverRefund): never the provider's.
		// The saga waits for the hand-over's signal under this id, as for a provider's webhook.
		return RefundOutcome{Status: RefundPending, ProviderRefundID: domain.DeskRefundID(rec.ID), Error: rec.LastError}, nil
	case rec.Status == RefundPending || rec.Age > resendWindow:
		return a.lookUp(ctx, rec)
	}
	re, err := a.Provider.CreateRefund(ctx, payments.RefundRequest{PaymentID: in.PaymentID, Amount: rec.Amount,
		Currency: in.Currency, BookingID: in.BookingID, IdempotencyKey: in.Key})
	if errors.Is(err, payments.ErrDeclined) {
		return RefundOutcome{Status: RefundFailed, Error: err.Error()},
			a.Store.FinishRefundAttempt(ctx, in.Key, "", RefundFailed, err.Error())
	}
	if err != nil {
		return RefundOutcome{}, err // retried with the same key
	}
	return RefundOutcome{Status: re.Status, ProviderRefundID: re.ID}, a.Store.FinishRefundAttempt(ctx, in.Key, re.ID, re.Status, "")
}

// lookUp asks the provider how an attempt stands and records the answer.
func (a *Refunds) lookUp(ctx context.Context, rec db.RefundAttempt) (RefundOutcome, error) {
	re, found, err := a.Provider.LookupRefund(ctx, payments.RefundLookup{RefundID: rec.ProviderRefundID,
		PaymentID: rec.PaymentID, IdempotencyKey: rec.ID})
	switch {
	case err != nil:
		return RefundOutcome{}, err // retried
	case !found && rec.ProviderRefundID == "":
		const never = "the provider never received this refund request"
		return RefundOutcome{Status: RefundFailed, Error: never}, a.Store.FinishRefundAttempt(ctx, rec.ID, "", RefundFailed, never)
	case !found:
		return RefundOutcome{Status: RefundPending, ProviderRefundID: rec.ProviderRefundID,
			Error: "the provider does not find refund " + rec.ProviderRefundID}, nil
	}
	return RefundOutcome{Status: re.Status, ProviderRefundID: re.ID},
		a.Store.FinishRefundAttempt(ctx, rec.ID, re.ID, re.Status, "")
}

// RecordRefundOutcome stores the final status of an attempt the provider settled later (its
// webhook reached the workflow).
func (a *Refunds) RecordRefundOutcome(ctx context.Context, key string, outcome RefundOutcome) error {
	return a.Store.FinishRefundAttempt(ctx, key, outcome.ProviderRefundID, outcome.Status, outcome.Error)
}

// PaymentStuck is a refund handed to an operator: what integrators subscribed to
// booking.payment_stuck hear. Key names the episode within its run of the workflow (the
// workflow, the saga, the operator round).
type PaymentStuck struct {
	Key, BookingID, Step, Reason string
}

// RecordPaymentStuck queues the booking.payment_stuck event of a refund handed to an operator,
// once per episode: its key is Key and the run of the workflow that asks. Saga ids and rounds
// start again in every run of a workflow id (continued as new, a booking resumed, a second
// StaffRefund run), so Key alone would name a later run's episode as an earlier one's, and the
// later one would never be told; a retry of this activity keeps its run, and queues nothing more.
func (a *Refunds) RecordPaymentStuck(ctx context.Context, in PaymentStuck) error {
	key := in.Key + "_" + activity.GetInfo(ctx).WorkflowExecution.RunID
	return a.Store.QueuePaymentStuck(ctx, key, in.BookingID, in.Step, in.Reason)
}

// PaymentAccountedFor reports whether a payment was kept by a booking or is already being
// refunded, so a late-payment refund must not start.
func (a *Refunds) PaymentAccountedFor(ctx context.Context, paymentID string) (bool, error) {
	return a.Store.PaymentAccountedFor(ctx, paymentID)
}

// ResolvedRefund is a refund step an operator resolved as made by hand: Key is its record's id,
// attempt 0 of its step (attempts count from 1).
type ResolvedRefund struct {
	Key, BookingID, PaymentID string
	Amount                    int64
	Currency                  string
	Actor, Reason             string
}

// RecordResolvedRefund records a refund an operator made by hand (see db.Store.RecordResolvedRefund).
func (a *Refunds) RecordResolvedRefund(ctx context.Context, r ResolvedRefund) error {
	return classify(a.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: r.Key, BookingID: r.BookingID, PaymentID: r.PaymentID,
		Amount: r.Amount, Currency: r.Currency, Reason: "resolved by hand: " + r.Reason, RecordedBy: r.Actor, Reference: r.Reason}))
}
