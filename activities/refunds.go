package activities

import (
	"context"
	"errors"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/payments"
)

// Refund statuses, as the provider and the refunds table name them.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

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
}

// RefundOutcome is what became of an attempt.
type RefundOutcome struct {
	Status           string // pending, succeeded or failed
	ProviderRefundID string
	Error            string
}

// RequestRefund records the attempt, then asks the provider for the refund. An attempt already
// answered (a retry after a lost reply) is answered from the record without a second call. A
// refund the provider declines is a failed outcome, not an error: the saga decides what next.
func (a *Refunds) RequestRefund(ctx context.Context, in RefundInput) (RefundOutcome, error) {
	rec, err := a.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: in.Key, BookingID: in.BookingID,
		PaymentID: in.PaymentID, Amount: in.Amount, Currency: in.Currency, Reason: in.Reason})
	if err != nil {
		return RefundOutcome{}, err
	}
	if rec.Status != "requested" {
		return RefundOutcome{Status: rec.Status, ProviderRefundID: rec.ProviderRefundID, Error: rec.LastError}, nil
	}
	re, err := a.Provider.CreateRefund(ctx, payments.RefundRequest{PaymentID: in.PaymentID, Amount: in.Amount,
		Currency: in.Currency, BookingID: in.BookingID, IdempotencyKey: in.Key})
	if errors.Is(err, payments.ErrDeclined) {
		return RefundOutcome{Status: RefundFailed, Error: err.Error()},
			a.Store.FinishRefundAttempt(ctx, in.Key, "", RefundFailed, err.Error())
	}
	if err != nil {
		return RefundOutcome{}, err // retried with the same key
	}
	status := re.Status
	if status != RefundSucceeded && status != RefundFailed {
		status = RefundPending
	}
	return RefundOutcome{Status: status, ProviderRefundID: re.ID}, a.Store.FinishRefundAttempt(ctx, in.Key, re.ID, status, "")
}

// RecordRefundOutcome stores the final status of an attempt the provider settled later (its
// webhook reached the workflow).
func (a *Refunds) RecordRefundOutcome(ctx context.Context, key string, outcome RefundOutcome) error {
	return a.Store.FinishRefundAttempt(ctx, key, outcome.ProviderRefundID, outcome.Status, outcome.Error)
}

// PaymentAccountedFor reports whether a payment was kept by a booking or is already being
// refunded, so a late-payment refund must not start.
func (a *Refunds) PaymentAccountedFor(ctx context.Context, paymentID string) (bool, error) {
	return a.Store.PaymentAccountedFor(ctx, paymentID)
}
