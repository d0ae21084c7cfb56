package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A lean booking does not upsert the attributes operators find it by when it was started with
// them (GiveStartAttributes): one Action, one event and one visibility write less per booking.
//
// Leanness is the local reservation's change at a later version, so a new booking's history
// holds no marker more than before. A worker of the release before it that takes a lean workflow
// up either refuses it (a version of the local reservation it does not know; the upsert of the
// start attributes it would add) or runs it as a lean booking would (started without the
// attributes, the two differ in nothing).
const (
	// leanSkippedMarkers was a lean booking that also took every change made before it without
	// that change's marker. It ran only in a build that never landed (5173e34), whose recordings
	// (*-lean.json) are kept: a worker of the release before it, finding none of those markers,
	// would have run such a workflow by its old branches without noticing.
	leanSkippedMarkers workflow.Version = 2
	leanVersion        workflow.Version = 3
	// confirmLocalVersion is a lean booking whose confirmation may run as a local activity
	// (confirmLocally). A worker of a release before it refuses such a workflow (a version it
	// does not know) rather than run its confirmation as an activity task.
	confirmLocalVersion workflow.Version = 4
	// paymentsFirstVersion was a booking with a local confirmation that took any payment waiting
	// in its channel before anything else while it believed the booking held: a cancel accepted
	// before the payment arrived was then judged on the paid booking, by its policy. Built and
	// recorded on 2026-12-06 (1f5ae01), never released; its recordings replay.
	paymentsFirstVersion workflow.Version = 5
	// paymentsInOrderVersion is a booking with a local confirmation that takes, while it believes
	// the booking held, a payment that was waiting when a command was accepted before that
	// command (paymentFirst): the order they arrived in.
	paymentsInOrderVersion workflow.Version = 6
)

// setLean records whether the workflow runs lean: every booking started since it existed does;
// the histories from before it replay as they were recorded.
func (b *booking) setLean(ctx workflow.Context) {
	v := workflow.GetVersion(ctx, versionLocalReserve, workflow.DefaultVersion, paymentsInOrderVersion)
	b.lean, b.skippedMarkers = v >= leanSkippedMarkers, v == leanSkippedMarkers
	b.confirmLocally = v >= confirmLocalVersion && b.in.ConfirmLocally && b.in.SupplierID == ""
	b.paymentsFirst = v == paymentsFirstVersion && b.confirmLocally
	b.paymentsInOrder = v >= paymentsInOrderVersion && b.confirmLocally
}

// takes reports whether the workflow takes the change marked changeID.
func (b *booking) takes(ctx workflow.Context, changeID string) bool {
	return b.skippedMarkers || workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, 1) == 1
}

// GiveStartAttributes returns the attributes a booking is found by from its start (its hotel or
// venue, its customer's search key, and when it starts) for its start options, and marks in as
// started with them: a lean booking then does not upsert them in its first workflow task. The
// customer is named by customerKey (domain.CustomerSearchKey), never by their id; an empty key
// leaves the attribute unset.
func GiveStartAttributes(in *BookingInput, customerKey string) temporal.SearchAttributes {
	in.StartAttributesGiven = true
	return temporal.NewSearchAttributes(startAttributes(*in, customerKey)...)
}

// startAttributes are the start attributes with the customer named by customer (none if empty).
func startAttributes(in BookingInput, customer string) []temporal.SearchAttributeUpdate {
	var attrs []temporal.SearchAttributeUpdate
	if o := in.Order; o != nil {
		attrs = append(attrs, SearchVenueID.ValueSet(o.VenueID), SearchCheckIn.ValueSet(o.Starts()))
	} else {
		attrs = append(attrs, SearchHotelID.ValueSet(in.Request.HotelID), SearchCheckIn.ValueSet(in.Request.CheckIn.Time()))
	}
	if customer != "" {
		attrs = append(attrs, SearchCustomerID.ValueSet(customer))
	}
	return attrs
}

// upsertStartAttributes sets the start attributes, unless a lean booking was started with them
// (or continues a run that was: a run continued as new keeps the attributes of the run before).
// The input decides, not the attributes the workflow sees: the server may show a replay the
// workflow's latest attributes in its start event.
func (b *booking) upsertStartAttributes(ctx workflow.Context) error {
	if b.lean && b.in.StartAttributesGiven {
		return nil
	}
	// Only bookings started before GiveStartAttributes get here: their CustomerId was the id.
	customer := b.in.Request.CustomerID
	if b.in.Order != nil {
		customer = b.in.Order.CustomerID
	}
	return workflow.UpsertTypedSearchAttributes(ctx, startAttributes(b.in, customer)...)
}
