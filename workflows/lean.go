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
)

// setLean records whether the workflow runs lean: every booking started since it existed does;
// the histories from before it replay as they were recorded.
func (b *booking) setLean(ctx workflow.Context) {
	v := workflow.GetVersion(ctx, versionLocalReserve, workflow.DefaultVersion, leanVersion)
	b.lean, b.skippedMarkers = v >= leanSkippedMarkers, v == leanSkippedMarkers
}

// takes reports whether the workflow takes the change marked changeID.
func (b *booking) takes(ctx workflow.Context, changeID string) bool {
	return b.skippedMarkers || workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, 1) == 1
}

// GiveStartAttributes returns the attributes a booking is found by from its start (its hotel or
// venue, its customer, and when it starts) for its start options, and marks in as started with
// them: a lean booking then does not upsert them in its first workflow task.
func GiveStartAttributes(in *BookingInput) temporal.SearchAttributes {
	in.StartAttributesGiven = true
	return temporal.NewSearchAttributes(startAttributes(*in)...)
}

func startAttributes(in BookingInput) []temporal.SearchAttributeUpdate {
	if o := in.Order; o != nil {
		return []temporal.SearchAttributeUpdate{SearchVenueID.ValueSet(o.VenueID),
			SearchCustomerID.ValueSet(o.CustomerID), SearchCheckIn.ValueSet(o.Starts())}
	}
	req := in.Request
	return []temporal.SearchAttributeUpdate{SearchHotelID.ValueSet(req.HotelID),
		SearchCustomerID.ValueSet(req.CustomerID), SearchCheckIn.ValueSet(req.CheckIn.Time())}
}

// upsertStartAttributes sets the start attributes, unless a lean booking was started with them
// (or continues a run that was: a run continued as new keeps the attributes of the run before).
// The input decides, not the attributes the workflow sees: the server may show a replay the
// workflow's latest attributes in its start event.
func (b *booking) upsertStartAttributes(ctx workflow.Context) error {
	if b.lean && b.in.StartAttributesGiven {
		return nil
	}
	return workflow.UpsertTypedSearchAttributes(ctx, startAttributes(b.in)...)
}
