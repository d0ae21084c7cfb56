// Package activities holds the side effects bookflow's workflows ask for, each group behind a
// struct that carries its dependencies: Bookings (a booking's steps in the database: reserve,
// confirm, release, retake, refunds, check-in, no-show, early departure), Refunds (refunds at
// the payment provider), Suppliers (a supplier's confirmation and cancel, telling an agent,
// stock pulls, expiring stop-sells), Checks (the invariant checker) and Reconciliation (the
// provider's payments matched against bookflow's).
//
// Temporal may run an activity more than once, so each one is idempotent: a retry after a
// commit whose reply was lost finds the work done and changes nothing.
package activities
