package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/workflows"
)

// count compares the ledger, the provider and the database, and runs the invariant checker.
func (h *harness) count(ctx context.Context) (Counters, []domain.Finding, error) {
	var c Counters
	var findings []domain.Finding
	report, err := h.check(ctx)
	if err != nil {
		return c, nil, err
	}
	for _, f := range report.Findings {
		if f.Check == domain.CheckInventory {
			c.Oversold++
		} else {
			findings = append(findings, f)
		}
	}
	q := h.store.Pool()
	if err := q.QueryRow(ctx, `SELECT count(*) FROM bookings WHERE status IN ('HOLD', 'REFUNDING')`).Scan(&c.Stuck); err != nil {
		return c, nil, err
	}
	stuck, err := h.s.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf(`BookingStatus = %q AND ExecutionStatus = "Running"`, workflows.StatusPaymentStuck)})
	if err != nil {
		return c, nil, err
	}
	c.Stuck += len(stuck.Executions)

	stored, err := loadOutcomes(ctx, q)
	if err != nil {
		return c, nil, err
	}
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	lost := func(counter *int, f domain.Finding) {
		*counter++
		findings = append(findings, f)
	}
	// Bookings: every one granted exists; one in a hotel with rooms to spare, paid with its
	// checkout's payment before its hold ran out and never cancelled, is confirmed with it.
	for id, g := range h.l.booked {
		b, ok := stored.bookings[id]
		if !ok {
			lost(&c.LostBookings, domain.Finding{Check: "lost_booking", BookingID: id, Detail: "granted, and not in the database"})
			continue
		}
		if g.hotel == h.hotels[0] || g.cancelTried {
			continue
		}
		for pi, p := range h.l.paid {
			// A money story's booking may have gone on to another payment (an amendment's
			// balance): its status is judged, the money count judges its payments.
			if p.bookingID == id && p.first && !p.ackedAt.IsZero() && p.ackedAt.Before(g.expiresAt) &&
				(b.status != string(domain.StatusConfirmed) || g.story == "" && b.paymentID != pi) {
				lost(&c.LostBookings, domain.Finding{Check: "lost_booking", BookingID: id, PaymentID: pi,
					Detail: fmt.Sprintf("paid before its hold expired and never cancelled, yet %s%s", b.status, h.why(ctx, id, g.story))})
			}
		}
	}
	// Payments: each acknowledged one is recorded; none is left unacknowledged.
	for pi, p := range h.l.paid {
		switch {
		case p.ackedAt.IsZero():
			lost(&c.LostPayments, domain.Finding{Check: "lost_payment", BookingID: p.bookingID, PaymentID: pi,
				Detail: "the API never acknowledged its webhook"})
		case !stored.payments[pi]:
			lost(&c.LostPayments, domain.Finding{Check: "lost_payment", BookingID: p.bookingID, PaymentID: pi,
				Detail: "acknowledged, and not recorded"})
		}
	}
	// Money, per payment, against what the provider did: a payment a confirmed booking keeps is
	// not refunded; every other is refunded in full (the hotels refund cancellations in full).
	// The money stories' bookings keep part of a payment, or two: the money count judges them.
	refunded := h.provider.Refunded()
	for pi, amount := range h.provider.Paid() {
		if g := h.l.booked[h.l.paid[pi].bookingID]; g != nil && g.story != "" {
			continue
		}
		owed := amount
		if b, ok := stored.bookings[h.l.paid[pi].bookingID]; ok && b.paymentID == pi && b.status == string(domain.StatusConfirmed) {
			owed = 0
		}
		switch got := refunded[pi]; {
		case got < owed:
			c.DoubleCharges += int(owed - got)
			findings = append(findings, domain.Finding{Check: "money", BookingID: h.l.paid[pi].bookingID, PaymentID: pi,
				Detail: fmt.Sprintf("paid %d, refunded %d, owed back %d", amount, got, owed)})
		case got > owed:
			c.DoubleRefunds += int(got - owed)
			findings = append(findings, domain.Finding{Check: "money", BookingID: h.l.paid[pi].bookingID, PaymentID: pi,
				Detail: fmt.Sprintf("paid %d, refunded %d, owed back %d", amount, got, owed)})
		}
	}
	mismatches, moneyFindings, err := h.countMoney(ctx, stored)
	c.MoneyMismatches = mismatches
	return c, append(findings, moneyFindings...), err
}

// check runs the invariant checker without repairs, waiting for a run under way to end.
func (h *harness) check(ctx context.Context) (domain.CheckReport, error) {
	checks := &activities.Checks{Store: h.store, Temporal: h.s.client}
	for range 30 {
		report, err := checks.RunChecks(ctx, activities.CheckInput{
			HoldGrace: time.Nanosecond, RefundingAge: time.Nanosecond, UnmatchedAge: time.Nanosecond, UnsettledAge: time.Nanosecond})
		if err != nil || !report.Skipped {
			return report, err
		}
		sleep(ctx, time.Second)
	}
	return domain.CheckReport{}, errors.New("the invariant checker stayed busy with another run for 30 s")
}

// outcomes is what bookflow's database says became of the bookings and payments.
type outcomes struct {
	bookings map[string]storedBooking
	payments map[string]bool // payment ids recorded as succeeded
}

type storedBooking struct {
	status, paymentID string
	total             int64 // its price
}

func loadOutcomes(ctx context.Context, q *pgxpool.Pool) (outcomes, error) {
	o := outcomes{bookings: map[string]storedBooking{}, payments: map[string]bool{}}
	rows, err := q.Query(ctx, `SELECT id, status, COALESCE(payment_id, ''), COALESCE(total, 0) FROM bookings`)
	if err != nil {
		return o, err
	}
	for rows.Next() {
		var id string
		var b storedBooking
		if err := rows.Scan(&id, &b.status, &b.paymentID, &b.total); err != nil {
			rows.Close()
			return o, err
		}
		o.bookings[id] = b
	}
	if err := rows.Err(); err != nil {
		return o, err
	}
	rows, err = q.Query(ctx, `SELECT payment_id FROM payments WHERE status = 'succeeded'`)
	if err != nil {
		return o, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	for _, id := range ids {
		o.payments[id] = true
	}
	return o, err
}

// why tells what a lost booking's story was and why its money went back (its refunds' reasons).
func (h *harness) why(ctx context.Context, id, story string) string {
	rows, err := h.store.Pool().Query(ctx, `SELECT payment_id || ': ' || reason FROM refunds WHERE booking_id = $1 ORDER BY created_at`, id)
	if err != nil {
		return ""
	}
	reasons, _ := pgx.CollectRows(rows, pgx.RowTo[string])
	return fmt.Sprintf(" (story %q; refunds %q)", story, reasons)
}
