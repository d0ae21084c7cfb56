package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// amendmentSide is what the record keeps of a booking before or after an amendment.
type amendmentSide struct {
	Units domain.Units `json:"units"`
	Price domain.Price `json:"price"`
	// PlanTerms and Policy: after an amendment that changes the plan, what the booking takes of it.
	PlanTerms *domain.PlanTerms          `json:"planTerms,omitempty"`
	Policy    *domain.CancellationPolicy `json:"policy,omitempty"`
}

const amendmentColumns = `id, booking_id, idempotency_key, fingerprint, actor, requested, before, after, difference, currency,
	discount, refund, status, COALESCE(reason, ''), due_by, COALESCE(balance_payment_id, ''), created_at, decided_at,
	COALESCE(supplier_hold_ref, ''), COALESCE(supplier_confirmation, ''), COALESCE(left_hold_ref, '')`

func scanAmendment(row pgx.Row) (domain.Amendment, error) {
	var a domain.Amendment
	var before, after amendmentSide
	var dueBy, decidedAt *time.Time
	err := row.Scan(&a.ID, &a.BookingID, &a.IdempotencyKey, &a.Fingerprint, &a.Actor, &a.Requested, &before, &after,
		&a.Difference, &a.Currency, &a.Discount, &a.Refund, &a.Status, &a.Reason, &dueBy, &a.BalancePaymentID, &a.CreatedAt, &decidedAt,
		&a.SupplierHoldRef, &a.SupplierConfirmation, &a.LeftHoldRef)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("%w: no such amendment", domain.ErrNotFound)
	}
	a.Before, a.PriceBefore, a.After, a.PriceAfter = before.Units, before.Price, after.Units, after.Price
	a.PlanTerms, a.Policy = after.PlanTerms, after.Policy
	if dueBy != nil {
		a.DueBy = dueBy.UTC()
	}
	if decidedAt != nil {
		a.DecidedAt = decidedAt.UTC()
	}
	return a, err
}

// insertAmendment stores a, decided now by the database's clock unless it waits for its balance
// (then due within window), with the extra units it holds beside the booking's own, and returns
// it as stored.
func insertAmendment(ctx context.Context, tx pgx.Tx, a domain.Amendment, window time.Duration, extra []line) (domain.Amendment, error) {
	requested, err := json.Marshal(a.Requested)
	if err != nil {
		return a, err
	}
	stored, err := scanAmendment(tx.QueryRow(ctx, `INSERT INTO booking_amendments (booking_id, idempotency_key, fingerprint,
			actor, requested, before, after, difference, currency, refund, status, reason, due_by, decided_at, discount, supplier_hold_ref)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULLIF($12, ''),
			CASE WHEN $11 = 'BALANCE_DUE' THEN now() + $13 * interval '1 microsecond' END,
			CASE WHEN $11 NOT IN ('BALANCE_DUE', 'SUPPLIER_PENDING') THEN now() END, $14, NULLIF($15, ''))
		RETURNING `+amendmentColumns,
		a.BookingID, a.IdempotencyKey, a.Fingerprint, a.Actor, requested, amendmentSide{Units: a.Before, Price: a.PriceBefore},
		amendmentSide{Units: a.After, Price: a.PriceAfter, PlanTerms: a.PlanTerms, Policy: a.Policy}, a.Difference, a.Currency, a.Refund, a.Status, a.Reason, window.Microseconds(),
		a.Discount, a.SupplierHoldRef))
	if err != nil {
		return a, err
	}
	for _, l := range extra {
		if _, err := tx.Exec(ctx, `INSERT INTO booking_lines (booking_id, line_no, resource_id, unit_from, unit_to, quantity, amendment_id)
			VALUES ($1, (SELECT COALESCE(max(line_no), 0) + 1 FROM booking_lines WHERE booking_id = $1), $2, $3, $4, $5, $6)`,
			a.BookingID, l.resourceID, l.from, l.to, l.quantity, stored.ID); err != nil {
			return a, err
		}
	}
	return stored, nil
}

// AmendmentByKey is the booking's amendment made with an idempotency key (ErrNotFound when none).
func (s *Store) AmendmentByKey(ctx context.Context, bookingID, key string) (domain.Amendment, error) {
	return amendmentByKey(ctx, s.pool, bookingID, key)
}

// amendmentByKey is the booking's amendment made with an idempotency key.
func amendmentByKey(ctx context.Context, q querier, bookingID, key string) (domain.Amendment, error) {
	return scanAmendment(q.QueryRow(ctx, `SELECT `+amendmentColumns+` FROM booking_amendments
		WHERE booking_id = $1 AND idempotency_key = $2`, bookingID, key))
}

// Amendments lists a booking's amendments, oldest first.
func (s *Store) Amendments(ctx context.Context, bookingID string) ([]domain.Amendment, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+amendmentColumns+` FROM booking_amendments WHERE booking_id = $1 ORDER BY id`, bookingID)
	if err != nil {
		return nil, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Amendment, error) { return scanAmendment(r) })
	return orEmpty(list), err
}

// PendingAmendment is the booking's amendment waiting for its balance (ErrNotFound when none).
func (s *Store) PendingAmendment(ctx context.Context, bookingID string) (domain.Amendment, error) {
	return scanAmendment(s.pool.QueryRow(ctx, `SELECT `+amendmentColumns+` FROM booking_amendments
		WHERE booking_id = $1 AND status = 'BALANCE_DUE'`, bookingID))
}

// SettleAmendment applies an amendment whose balance pay paid: the units the booking no longer
// needs go back (the added ones were held beside its own), and the booking takes the new stay,
// price and payment. Settling it again with the same payment changes nothing. It fails with
// ErrConflict when the amendment no longer waits for its balance (it lapsed, or the booking
// ended), or pay is not its balance.
func (s *Store) SettleAmendment(ctx context.Context, bookingID string, amendmentID int64, pay domain.Payment) (domain.Amendment, domain.Booking, error) {
	return s.decideAmendment(ctx, bookingID, amendmentID, func(tx pgx.Tx, b domain.Booking, a domain.Amendment) (domain.Amendment, error) {
		if a.Status == domain.AmendmentApplied && a.BalancePaymentID == pay.ID {
			return a, nil
		}
		if a.Status != domain.AmendmentBalanceDue || pay.Amount != a.Difference || pay.Currency != a.Currency {
			return a, fmt.Errorf("%w: amendment %d is %s and its balance is %d %s; payment %s of %d %s cannot settle it",
				domain.ErrConflict, a.ID, a.Status, a.Balance(), a.Currency, pay.ID, pay.Amount, pay.Currency)
		}
		if err := paymentWhole(ctx, tx, pay.ID); err != nil {
			return a, err
		}
		if err := applySettled(ctx, tx, b, &a, pay); err != nil {
			return a, err
		}
		_, err := tx.Exec(ctx, `UPDATE bookings SET paid = paid + $2 WHERE id = $1`, b.ID, pay.Amount)
		return a, err
	})
}

// applySettled gives back what booking b, locked, no longer needs once amendment a is paid by
// pay, and writes what it holds afterwards: the stay, or the order's lines (whose first slot the
// customer may have ordered again meanwhile: a conflict, nothing changed).
func applySettled(ctx context.Context, tx pgx.Tx, b domain.Booking, a *domain.Amendment, pay domain.Payment) error {
	// Judged again now: the stay or a line may have begun while the balance waited.
	var now, today time.Time
	if err := tx.QueryRow(ctx, `SELECT now() AT TIME ZONE 'UTC', (now() AT TIME ZONE $1)::date`, b.TimeZone).Scan(&now, &today); err != nil {
		return err
	}
	if b.VenueID != "" {
		target, err := resolveOrderLines(ctx, tx, b.VenueID, a.After.Lines)
		if err != nil {
			return err
		}
		old, err := resolveOrderLines(ctx, tx, b.VenueID, a.Before.Lines)
		if err != nil {
			return err
		}
		if err := checkOrderChange(old, target, now.UTC()); err != nil {
			return err
		}
		want := plainLines(target)
		if err := relineTo(ctx, tx, b, want); err != nil {
			return err
		}
		a.Status, a.BalancePaymentID = domain.AmendmentApplied, pay.ID
		err = applyOrder(ctx, tx, b.ID, want, *a)
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("%w: amendment %d of booking %s", ErrAlreadyOrdered, a.ID, b.ID)
		}
		return err
	}
	if err := checkBegunStay(a.Before, a.After, domain.DateOf(today, time.UTC)); err != nil {
		return err
	}
	a.BalancePaymentID = pay.ID
	return applyAmended(ctx, tx, b, a)
}

// LapseAmendment gives back the units an amendment waiting for its balance held beside the
// booking's own: the booking is exactly as it was. A decided amendment is left as it is.
func (s *Store) LapseAmendment(ctx context.Context, bookingID string, amendmentID int64, reason string) (domain.Amendment, domain.Booking, error) {
	return s.decideAmendment(ctx, bookingID, amendmentID, func(tx pgx.Tx, b domain.Booking, a domain.Amendment) (domain.Amendment, error) {
		if a.Status != domain.AmendmentBalanceDue {
			return a, nil
		}
		a.Status, a.Reason = domain.AmendmentLapsed, reason
		return a, giveBackExtras(ctx, tx, b)
	})
}

// giveBackExtras gives back the units a pending amendment of booking b, locked, holds beside
// the booking's own: its row's line and, of an order, its own further lines.
func giveBackExtras(ctx context.Context, tx pgx.Tx, b domain.Booking) error {
	own, err := tx.Query(ctx, `SELECT resource_id, unit_from, unit_to, quantity FROM bookings WHERE id = $1 AND NOT supplier_held
		UNION ALL SELECT resource_id, unit_from, unit_to, quantity FROM booking_lines WHERE booking_id = $1 AND amendment_id IS NULL`, b.ID)
	if err != nil {
		return err
	}
	kept, err := pgx.CollectRows(own, func(r pgx.CollectableRow) (line, error) {
		var l line
		err := r.Scan(&l.resourceID, &l.from, &l.to, &l.quantity)
		return l, err
	})
	if err != nil {
		return err
	}
	return relineTo(ctx, tx, b, kept)
}

// lapseExtras lapses a pending amendment of booking b, locked, giving back the units it holds,
// before the booking's own units change another way (an early departure). lapsed says whether
// there was one (units are then locked).
func lapseExtras(ctx context.Context, tx pgx.Tx, b domain.Booking, reason string) (lapsed bool, _ error) {
	var pending bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM booking_amendments WHERE booking_id = $1 AND status = 'BALANCE_DUE')`,
		b.ID).Scan(&pending); err != nil || !pending {
		return false, err
	}
	if err := giveBackExtras(ctx, tx, b); err != nil {
		return true, err
	}
	_, err := tx.Exec(ctx, `UPDATE booking_amendments SET status = 'LAPSED', reason = $2, decided_at = now()
		WHERE booking_id = $1 AND status = 'BALANCE_DUE'`, b.ID, reason)
	return true, err
}

// relineTo gives back what booking b, locked, holds beyond target (its own units and those a
// pending amendment holds beside them), offering them to the waitlist, and forgets the pending
// amendment's units. tx must hold no unit lock yet: the entries' locks come before the units.
func relineTo(ctx context.Context, tx pgx.Tx, b domain.Booking, target []line) error {
	current, err := bookingLines(ctx, tx, b.ID)
	if err != nil {
		return err
	}
	r, refusal, err := reline(ctx, tx, b.ID, b.ChannelID, current, target, false, true)
	switch {
	case err != nil:
		return err
	case refusal != nil || len(r.taken) > 0:
		return fmt.Errorf("amend %s: the units of the new stay were not all held", b.ID)
	}
	_, err = tx.Exec(ctx, `DELETE FROM booking_lines WHERE booking_id = $1 AND amendment_id IS NOT NULL`, b.ID)
	return err
}

// decideAmendment locks the booking and its amendment and decides it with decide, which returns
// the amendment as decided; a change of status is stored.
func (s *Store) decideAmendment(ctx context.Context, bookingID string, amendmentID int64,
	decide func(pgx.Tx, domain.Booking, domain.Amendment) (domain.Amendment, error)) (domain.Amendment, domain.Booking, error) {
	var a domain.Amendment
	var b domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		var err error
		if b, err = lockBooking(ctx, tx, bookingID); err != nil {
			return err
		}
		was, err := scanAmendment(tx.QueryRow(ctx, `SELECT `+amendmentColumns+` FROM booking_amendments
			WHERE booking_id = $1 AND id = $2 FOR UPDATE`, bookingID, amendmentID))
		if err != nil {
			return err
		}
		if a, err = decide(tx, b, was); err != nil {
			return err
		}
		if a.Status != was.Status {
			if a, err = scanAmendment(tx.QueryRow(ctx, `UPDATE booking_amendments SET status = $2, reason = NULLIF($3, ''),
					balance_payment_id = NULLIF($4, ''), decided_at = CASE WHEN $2 <> 'BALANCE_DUE' THEN now() END
				WHERE id = $1 RETURNING `+amendmentColumns,
				a.ID, a.Status, a.Reason, a.BalancePaymentID)); err != nil {
				return err
			}
		}
		b, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return a, b, err
}

// lapsePending ends the amendment of a booking waiting for its balance when the booking gives
// back its units (cancelled, refunded, a no-show), in the same transaction: its units went back
// with the booking's.
func lapsePending(ctx context.Context, tx pgx.Tx, bookingID string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM booking_lines WHERE booking_id = $1 AND amendment_id IS NOT NULL`, bookingID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE booking_amendments SET status = 'LAPSED', reason = 'the booking ended before the amendment was decided',
		decided_at = now() WHERE booking_id = $1 AND status IN ('BALANCE_DUE', 'SUPPLIER_PENDING')`, bookingID)
	return err
}

// AmendmentState is what a workflow taking a booking up again (its own is gone) needs of its
// amendments: the one waiting for its balance (nil when none) and the id of the last one.
func (s *Store) AmendmentState(ctx context.Context, bookingID string) (pending *domain.Amendment, last int64, err error) {
	if a, err := s.PendingAmendment(ctx, bookingID); err == nil {
		pending = &a
	} else if !errors.Is(err, domain.ErrNotFound) {
		return nil, 0, err
	}
	list, err := s.Amendments(ctx, bookingID)
	for _, a := range list {
		last = max(last, a.ID)
	}
	return pending, last, err
}

// paymentWhole refuses (ErrPaymentNotWhole) a payment its ledger no longer holds whole: kept by
// a booking already, or asked back in part. A payment given back (its event delivered again to a
// run that forgot it) never pays a balance or a fee.
func paymentWhole(ctx context.Context, tx pgx.Tx, paymentID string) error {
	var used bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM money_ledger WHERE payment_id = $1
		AND kind IN ('kept', 'refund_asked'))`, paymentID).Scan(&used); err != nil || !used {
		return err
	}
	return fmt.Errorf("%w: payment %s was asked back or is kept already", ErrPaymentNotWhole, paymentID)
}
