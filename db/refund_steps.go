package db

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A refund step is one refund a saga gives back (a booking's refund, a part of a staff refund,
// an amendment's refund, an extra payment), tried in attempts whose ids are
// <bookingId>/<step>/<n>; an operator's resolution as made by hand is attempt 0. The step is
// given back when any of its attempts succeeded. The highest attempt's number and status only
// say where a saga taking the step up goes on: they never decide what is owed.

// stepAttempts is what the attempts of the refund step of booking booking whose ids start with
// prefix (<bookingId>/<step>/) say, as one row: given (one succeeded), givenBy (the first that
// did, -1), last (the highest, 0 with none), lastStatus, inFlight (one is requested or pending).
// booking and prefix are SQL expressions.
func stepAttempts(booking, prefix string) string {
	return `(SELECT COALESCE(bool_or(a.status = 'succeeded'), false) AS given,
			COALESCE(min(a.n) FILTER (WHERE a.status = 'succeeded'), -1) AS given_by, COALESCE(max(a.n), 0) AS last,
			COALESCE((array_agg(a.status ORDER BY a.n DESC))[1], '') AS last_status,
			COALESCE(bool_or(a.status IN ('requested', 'pending')), false) AS in_flight
		FROM (SELECT substr(f.id, length(` + prefix + `) + 1)::int AS n, f.status FROM refunds f
			WHERE f.booking_id = ` + booking + ` AND starts_with(f.id, ` + prefix + `)
				AND substr(f.id, length(` + prefix + `) + 1) ~ '^[0-9]+$') a)`
}

// RefundStepState is what the attempts of one refund step of a booking say.
type RefundStepState struct {
	Given      bool   // an attempt succeeded, the resolution's included: the step's money went back
	GivenBy    int    // the first attempt that succeeded
	Last       int    // the highest attempt (0 with none)
	LastStatus string // its status
}

// GoOnFrom is the attempt a saga taking the step up goes on from: the one that gave it back
// (asked again, answered from the record: nothing is sent), else the last one when its outcome
// is open (asked again under its key), the next one when it failed.
func (r RefundStepState) GoOnFrom() int {
	switch {
	case r.Given:
		return r.GivenBy
	case r.LastStatus == "failed":
		return r.Last + 1
	}
	return max(r.Last, 1)
}

// RefundStep returns what the attempts of a booking's refund step say.
func (s *Store) RefundStep(ctx context.Context, bookingID, step string) (RefundStepState, error) {
	var r RefundStepState
	var inFlight bool
	err := s.pool.QueryRow(ctx, `SELECT * FROM `+stepAttempts("$1::text", "$2::text")+` s`, bookingID, bookingID+"/"+step+"/").
		Scan(&r.Given, &r.GivenBy, &r.Last, &r.LastStatus, &inFlight)
	return r, err
}

// givenAttempt returns the id of an attempt that succeeded of attempt a's step, for a's payment:
// "" when none did (or a's id is not an attempt's).
func givenAttempt(ctx context.Context, q querier, a RefundAttempt) (string, error) {
	return attemptOfStep(ctx, q, a, "succeeded")
}

// attemptInFlight returns the id of an attempt of attempt a's step, for a's payment, that is
// requested or pending at the provider: "" when none is (or a's id is not an attempt's).
func attemptInFlight(ctx context.Context, q querier, a RefundAttempt) (string, error) {
	return attemptOfStep(ctx, q, a, "requested", "pending")
}

// attemptOfStep returns the id of the first attempt of attempt a's step, for a's payment, in one
// of statuses: "" when none is (or a's id is not an attempt's, <step>/<n>).
func attemptOfStep(ctx context.Context, q querier, a RefundAttempt, statuses ...string) (string, error) {
	i := strings.LastIndexByte(a.ID, '/')
	if i < 0 || strings.Trim(a.ID[i+1:], "0123456789") != "" || i == len(a.ID)-1 {
		return "", nil
	}
	var id string
	err := q.QueryRow(ctx, `SELECT id FROM refunds WHERE booking_id = $1 AND payment_id = $2 AND status = ANY($4)
		AND starts_with(id, $3) AND substr(id, length($3) + 1) ~ '^[0-9]+$' ORDER BY id LIMIT 1`,
		a.BookingID, a.PaymentID, a.ID[:i+1], statuses).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// OwedRefund is one part of a staff refund that no attempt gave back: its workflow was gone
// before the provider (or the desk) gave it back.
type OwedRefund struct {
	BookingID string
	Step      string // the part's step in its attempts' keys (StaffRefundStep)
	Payment   domain.Payment
	Reason    string
	Actor     string // who gave the staff refund
	// FirstAttempt is the attempt to go on from (RefundStepState.GoOnFrom).
	FirstAttempt int
	// InFlight: an attempt is requested or pending, asked again under its key.
	InFlight bool
}

// UnfinishedStaffRefunds lists the parts of a booking's staff refunds that no attempt gave back
// (see staffRefundParts), as their workflow drew them, for a workflow taking them up again.
func (s *Store) UnfinishedStaffRefunds(ctx context.Context, bookingID string) ([]OwedRefund, error) {
	return s.staffRefundParts(ctx, bookingID, false)
}

// OwedStaffRefunds lists, for every booking, the parts of its staff refunds that no attempt gave
// back and none is asking for (nothing requested or pending): money the booking gave up and only
// a workflow that takes them up gives back. At most maxFindings.
func (s *Store) OwedStaffRefunds(ctx context.Context) ([]OwedRefund, error) {
	return s.staffRefundParts(ctx, "", true)
}

// staffRefundParts lists the parts of the staff refunds of booking bookingID (every booking's
// when empty) that are not given back: no attempt of the part's step succeeded, the
// resolution's included, and what is left of its payment (less its refunds made or under way)
// is above nothing, or an attempt of it is under way (a payment given back whole some other way
// has nothing left to give). With idleOnly, parts with an attempt under way are left out. The
// step is named as StaffRefundStep names it: staff-<key>, then staff-<key>@<paymentId> after the
// first part.
func (s *Store) staffRefundParts(ctx context.Context, bookingID string, idleOnly bool) ([]OwedRefund, error) {
	rows, err := s.pool.Query(ctx, `WITH parts AS (
			SELECT r.booking_id, r.id, r.created_at, r.reason, r.actor, e.ord, e.part,
				'staff-' || substr(r.id, length(r.booking_id) + 2) || CASE WHEN e.ord > 1 THEN '@' || (e.part->>'id') ELSE '' END AS step
			FROM staff_refunds r CROSS JOIN LATERAL jsonb_array_elements(r.parts) WITH ORDINALITY e(part, ord)
			WHERE $1::text = '' OR r.booking_id = $1)
		SELECT p.booking_id, p.step, p.part, p.reason, p.actor, s.last, s.last_status, s.in_flight
		FROM parts p CROSS JOIN LATERAL `+stepAttempts("p.booking_id", "p.booking_id || '/' || p.step || '/'")+` s
		WHERE NOT s.given AND CASE WHEN s.in_flight THEN NOT $2::bool
			ELSE COALESCE((SELECT pay.amount - COALESCE((SELECT sum(f.amount) FROM refunds f -- by the booking's index
				WHERE f.booking_id = p.booking_id AND f.payment_id = pay.payment_id AND f.status <> 'failed'), 0)
			FROM payments pay WHERE pay.payment_id = p.part->>'id'), 1) > 0 END
		ORDER BY p.booking_id, p.created_at, p.id, p.ord LIMIT $3`, bookingID, idleOnly, maxFindings)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (OwedRefund, error) {
		var o OwedRefund
		var step RefundStepState
		err := r.Scan(&o.BookingID, &o.Step, &o.Payment, &o.Reason, &o.Actor, &step.Last, &step.LastStatus, &o.InFlight)
		o.Reason += " (resumed)"
		o.FirstAttempt = step.GoOnFrom()
		return o, err
	})
}
