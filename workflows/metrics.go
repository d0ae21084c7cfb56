package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/bookflow/bookflow/activities"
)

// The metrics the booking workflow counts, through the worker's metrics handler
// (client.Options.MetricsHandler). The SDK skips them while a workflow replays, so each is
// counted when it first happens, not again when a worker rebuilds the workflow from its history.
// (A worker that dies mid-task and is taken over re-runs that task afresh: a rare double.)
const (
	// MetricBookings counts bookings reaching a status (HOLD for a hold created, REJECTED,
	// EXPIRED, CONFIRMED, CANCELLED, ...), tagged status, hotel and venue (one is empty).
	MetricBookings = "bookflow_bookings"
	// MetricHoldRefusals counts holds refused with nothing written (the customer's hold limit,
	// a venue order already made), tagged reason, hotel and venue.
	MetricHoldRefusals = "bookflow_hold_refusals"
	// MetricRefundAttempts counts refund attempts by outcome: succeeded, failed, unknown
	// (asked again with the same key).
	MetricRefundAttempts = "bookflow_refund_attempts"
	// MetricPayments counts the provider's payments as the booking workflow takes them, tagged
	// outcome: pays_hold (the price of a held booking), late (an expired hold's price: its
	// nights are taken again, or it is given back), amount_mismatch, booking_ended, second_payment, no_booking,
	// after_close (the booking's workflow had closed: given back), duplicate_event,
	// not_received (a failed payment).
	MetricPayments = "bookflow_payments"
	// MetricAmendments counts amendments carried out, tagged outcome: APPLIED, BALANCE_DUE,
	// REFUSED.
	MetricAmendments = "bookflow_amendments"
	// MetricStuck counts the times a booking's refund was handed to an operator (PAYMENT_STUCK).
	MetricStuck = "bookflow_payment_stuck"
)

// count adds one to the workflow metric name, tagged with the booking's place and tags.
func (b *booking) count(ctx workflow.Context, name string, tags map[string]string) {
	all := map[string]string{"hotel": b.state.Booking.HotelID, "venue": b.state.Booking.VenueID}
	for k, v := range tags {
		all[k] = v
	}
	workflow.GetMetricsHandler(ctx).WithTags(all).Counter(name).Inc(1)
}

// countStatus counts the booking's status when it differs from the one counted last.
func (b *booking) countStatus(ctx workflow.Context) {
	if s := b.status(); s != "" && s != b.counted {
		b.counted = s
		b.count(ctx, MetricBookings, map[string]string{"status": string(s)})
	}
}

// refundOutcome names a refund attempt's outcome for MetricRefundAttempts.
func refundOutcome(status string) string {
	switch status {
	case activities.RefundSucceeded, activities.RefundFailed:
		return status
	}
	return "unknown"
}
