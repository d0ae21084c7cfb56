package workflows

// A refund saga's attempts at the provider: one idempotency key per attempt until a definite
// answer, the wait for a pending refund's webhook (with lookups), and the hand-over to an
// operator after too many failures.

import (
	"cmp"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
)

// refundFrom gives amount of pay back for saga s, from its first attempt (or, when it was handed
// over waiting among its attempts, from that wait). An attempt keeps its idempotency key until
// the provider has given a definite answer, so a call whose outcome is unknown is repeated,
// never doubled; only a declined or failed attempt leads to a new key. Failures are retried
// after a doubling backoff; after MaxRefundAttempts of them, or a refund the provider leaves
// pending past RefundWait, the booking shows PAYMENT_STUCK until an operator retries or
// resolves it.
func (b *booking) refundFrom(ctx workflow.Context, s *Saga, pay domain.Payment, amount int64) error {
	attempt, failures, why, parked := s.FirstAttempt, 0, "", s.Parked && s.InRefund
	inFlight, providerID := parked && s.InFlight, ""
	if parked {
		attempt, why = s.Attempt, s.Waiting
	}
	for {
		key := fmt.Sprintf("%s/%s/%d", b.in.BookingID, s.refundStep(), attempt)
		if !parked {
			in := activities.RefundInput{
				Key: key, BookingID: b.in.BookingID, PaymentID: pay.ID, Amount: amount, Currency: pay.Currency, Reason: s.Reason,
				Actor: s.Actor,
				// A payment no booking keeps goes back as what is left of it: finance may have given part back by hand.
				WhatIsLeft: s.Kind == sagaExtra && b.takes(ctx, versionExtraWhatIsLeft),
			}
			var out activities.RefundOutcome
			err := workflow.ExecuteActivity(refundActivity(ctx), refunds.RequestRefund, in).Get(ctx, &out)
			if err != nil {
				out = activities.RefundOutcome{Status: activities.RefundPending, Error: err.Error()} // outcome unknown
			} else if out.Status == activities.RefundPending {
				if out, err = b.awaitRefund(ctx, in, out); err != nil {
					return err
				}
			}
			b.count(ctx, MetricRefundAttempts, map[string]string{"outcome": refundOutcome(out.Status)})
			inFlight = out.Status != activities.RefundSucceeded && out.Status != activities.RefundFailed
			providerID = out.ProviderRefundID
			switch out.Status {
			case activities.RefundSucceeded:
				b.logger.Info("Refund succeeded", "key", key, "amount", amount, "providerRefundId", out.ProviderRefundID)
				return nil
			case activities.RefundFailed:
				attempt++ // a definite no: the next attempt is a new request
				failures++
			default:
				failures++ // unknown: ask again with the same key
				if out.ProviderRefundID != "" {
					failures = b.in.MaxRefundAttempts // pending at the provider for too long
				}
			}
			b.logger.Warn("Refund attempt failed", "key", key, "status", out.Status, "error", out.Error)
			if failures < b.in.MaxRefundAttempts {
				if err := workflow.Sleep(ctx, b.in.RefundBackoff*time.Duration(1<<(failures-1))); err != nil {
					return err
				}
				continue
			}
			why = fmt.Sprintf("refund of %d %s stuck after %d failures: %s", amount, pay.Currency, failures, out.Error)
			if out.ProviderRefundID != "" && inFlight {
				// Not failed: left pending past RefundWait, at the provider or due at the desk. The text is
				// the operator's only (an activity's input): histories replay as they were.
				why = fmt.Sprintf("refund of %d %s still pending after %s: %s", amount, pay.Currency, b.in.RefundWait,
					cmp.Or(out.Error, "the provider has not settled it"))
			}
		}
		s.Attempt, s.InRefund, s.InFlight = attempt, true, inFlight
		var answered func() bool // the attempt under way settled while the step waits: it goes on
		if inFlight {
			answered = func() bool { return b.settledAny(domain.DeskRefundID(key), providerID) }
		}
		resolved, err := b.awaitOperator(ctx, s, s.refundStep(), why, answered)
		s.InRefund, s.InFlight = false, false
		if err == nil && resolved && b.takes(ctx, versionResolvedRecorded) {
			// The operator made the refund by hand: it is recorded, so the books and the checker see it.
			err = workflow.ExecuteActivity(dbActivity(ctx), refunds.RecordResolvedRefund, activities.ResolvedRefund{
				Key: fmt.Sprintf("%s/%s/0", b.in.BookingID, s.refundStep()), BookingID: b.in.BookingID, PaymentID: pay.ID,
				Amount: amount, Currency: pay.Currency, Actor: b.opAction.Actor, Reason: b.opAction.Reason}).Get(ctx, nil)
		}
		if err != nil || resolved {
			return err
		}
		failures, parked = 0, false
	}
}

// awaitRefund waits for the provider's final word on a pending refund (its webhook arrives as
// the refund signal), at most RefundWait, and records it.
//
// While it waits it asks the provider every RefundLookupEvery (RequestRefund looks a pending
// attempt up): a webhook lost for good does not leave the refund pending.
func (b *booking) awaitRefund(ctx workflow.Context, in activities.RefundInput, out activities.RefundOutcome) (activities.RefundOutcome, error) {
	id := out.ProviderRefundID
	arrived := func() bool { _, ok := b.settled[id]; return ok }
	if !b.takes(ctx, versionRefundLookups) {
		settled, err := workflow.AwaitWithTimeout(ctx, b.in.RefundWait, arrived)
		if err != nil || !settled {
			return out, err
		}
		return b.recordSettled(ctx, in.Key, out)
	}
	deadline := workflow.Now(ctx).Add(b.in.RefundWait)
	for {
		left := deadline.Sub(workflow.Now(ctx))
		settled, err := workflow.AwaitWithTimeout(ctx, min(RefundLookupEvery, max(left, time.Millisecond)), arrived)
		switch {
		case err != nil:
			return out, err
		case settled:
			return b.recordSettled(ctx, in.Key, out)
		case left <= RefundLookupEvery:
			return out, nil // RefundWait has passed: for an operator
		}
		var looked activities.RefundOutcome
		if err := workflow.ExecuteActivity(refundActivity(ctx), refunds.RequestRefund, in).Get(ctx, &looked); err == nil &&
			looked.Status != activities.RefundPending {
			b.logger.Info("Refund settled, found at the provider", "key", in.Key, "status", looked.Status)
			return looked, nil
		}
	}
}

// versionRefundLookups marks the workflows that look a pending refund up at the provider while
// they wait for its webhook.
const versionRefundLookups = "refund-lookups"

// versionExtraWhatIsLeft marks the workflows in which a payment the booking cannot keep is given
// back as what is left of it, as the database reads it at each attempt (before, whole, which the
// per-payment bound refused once part of it was settled by hand).
const versionExtraWhatIsLeft = "extra-what-is-left"

// versionResolvedRecorded marks the workflows in which a refund an operator resolved as made by
// hand is recorded as a refund.
const versionResolvedRecorded = "resolved-refund-recorded"

// RefundLookupEvery is how often a pending refund is looked up at the provider.
const RefundLookupEvery = time.Hour

// settledAny reports whether the final word on any of the refunds ids ("" for none) arrived.
func (b *booking) settledAny(ids ...string) bool {
	for _, id := range ids {
		if _, ok := b.settled[id]; ok && id != "" {
			return true
		}
	}
	return false
}

// recordSettled records the provider's final word on a refund, as its webhook brought it.
func (b *booking) recordSettled(ctx workflow.Context, key string, out activities.RefundOutcome) (activities.RefundOutcome, error) {
	ev := b.settled[out.ProviderRefundID]
	out.Status, out.Error = activities.RefundFailed, ev.Reason
	if ev.Succeeded {
		out.Status = activities.RefundSucceeded
	}
	err := workflow.ExecuteActivity(dbActivity(ctx), refunds.RecordRefundOutcome, key, out).Get(ctx, nil)
	return out, err
}

// refundActivity sets the options of a refund attempt: a few quick retries with the same
// idempotency key for network failures; past those the attempt counts as failed.
func refundActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    30 * time.Second,
			MaximumAttempts:    5,
		},
	})
}
