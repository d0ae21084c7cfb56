// Package workflows holds bookflow's workflow definitions: the booking workflow (one per
// booking, from its hold to its last refund; booking*.go by phase), late payments and refund
// recoveries, telling a supplier, and the scheduled ones (the invariant check, the payment
// reconciliation, supplier stock syncs, expiring stop-sells), with the names that cross process
// boundaries (names.go).
//
// It is deterministic code only, no I/O, no wall clock, no randomness except through the
// Temporal SDK: side effects are activities, called by reference. Recorded histories in
// testdata/histories must keep replaying (TestRecordedHistoriesReplay), so a change to what a
// running workflow does goes behind a version marker.
package workflows
