package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A lean booking costs the Temporal server less per booking (see docs/benchmarks-and-scaling.md,
// "Temporal actions per booking"):
//   - one version marker in place of one per change: it takes every change made before it
//     without consulting that change's marker (takes);
//   - no upsert of the attributes operators find it by when it was started with them
//     (GiveStartAttributes): one Action, one event and one visibility write less.
//
// Leanness is the local reservation's change at version 2 (version 1: the local reservation
// alone), so a new booking's history holds one marker. A worker of the release before it that
// takes such a workflow up either refuses it (a version of the local reservation it does not
// know; an upsert of the start attributes the history does not have) or runs it as a lean booking
// would: that release takes every one of these changes too.
const leanVersion workflow.Version = 2

// setLean records whether the workflow runs lean: every booking started since it existed does;
// the histories from before it replay as they were recorded.
func (b *booking) setLean(ctx workflow.Context) {
	b.lean = workflow.GetVersion(ctx, versionLocalReserve, workflow.DefaultVersion, leanVersion) == leanVersion
}

// takes reports whether the workflow takes the change marked changeID, one of those made before
// lean bookings: a lean booking takes it without a marker. A change made since must call
// workflow.GetVersion itself, since lean bookings already running were started without it.
func (b *booking) takes(ctx workflow.Context, changeID string) bool {
	return b.lean || workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, 1) == 1
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
