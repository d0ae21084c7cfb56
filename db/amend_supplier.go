package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// The supplier protocol cannot change a hold: it confirms or cancels one, by its reference. So a
// supplier's booking is amended as a new hold: the amendment waits (SUPPLIER_PENDING) while the
// supplier is asked to confirm the new stay under a reference of its own, holding here the units
// the new stay adds (a direct_procure hotel's stock; a direct_connect supplier holds its rooms
// itself). Confirmed, the amendment goes on as any other, and the old hold is cancelled once the
// booking has moved to the new one; refused, the added units go back and nothing changed.

// SupplierHoldRef is the reference a supplier's new hold for an amendment goes by.
func SupplierHoldRef(bookingID, idempotencyKey string) string {
	return bookingID + "/amendment/" + idempotencyKey
}

// amendAtSupplier judges the change of supplier booking b, locked: the units the new stay adds
// here are taken and held beside the booking's own (nothing of a direct_connect one, held at its
// supplier), priced as a stay's (or by the supplier's quote, p.SupplierPrice), and the amendment
// waits for the supplier.
func amendAtSupplier(ctx context.Context, tx pgx.Tx, b domain.Booking, p AmendParams, a domain.Amendment, held bool,
	current []line, want line, discount *domain.SaleRule) (domain.Amendment, []line, error) {
	a.Status, a.SupplierHoldRef = domain.AmendmentSupplierPending, SupplierHoldRef(b.ID, p.IdempotencyKey)
	if held {
		switch {
		case p.SupplierPrice == nil && p.SupplierSilent:
			return refused(a, "the supplier did not answer for a quote of the new stay"), nil, nil
		case p.SupplierPrice == nil:
			return refused(a, "the supplier has no rooms for the new stay"), nil, nil
		case p.SupplierPrice.Currency != b.Price.Currency:
			return refused(a, "the supplier quoted the new stay in "+p.SupplierPrice.Currency+", not the booking's "+b.Price.Currency), nil, nil
		}
		price, off := *p.SupplierPrice, int64(0)
		if discount != nil {
			price, off = discount.Apply(price, want.quantity)
		}
		// The quote prices the whole new stay: its discount replaces the booking's (applyStay adds).
		a.PriceAfter, a.Difference, a.Discount = price, price.Total-b.Price.Total, off-b.Discount
		return a, nil, nil
	}
	sp, err := tx.Begin(ctx) // a savepoint: a refusal undoes what was taken before it
	if err != nil {
		return a, nil, err
	}
	r, refusal, err := reline(ctx, sp, b.ID, b.ChannelID, current, []line{want}, true, true)
	if err != nil {
		return a, nil, err
	}
	if refusal != nil {
		if err := sp.Rollback(ctx); err != nil {
			return a, nil, err
		}
		return refused(a, "the night of "+refusal.at.Format(time.DateOnly)+" is not available"), nil, nil
	}
	if a.PriceAfter, a.Discount, err = stayPrice(b, current, want, a.After, r.rates, discount); err != nil {
		return a, nil, err
	}
	a.Difference = a.PriceAfter.Total - b.Price.Total
	return a, r.taken, sp.Commit(ctx)
}

// SupplierAnswer is a supplier's word on an amendment's new hold.
type SupplierAnswer struct {
	Confirmed    bool
	Confirmation string // its confirmation number
	Reason       string // why it refused, or did not answer
}

// SupplierAnswered decides an amendment waiting for its supplier, with the supplier's answer:
// refused, the units it held here go back and it is REFUSED. Confirmed, it goes on as any
// amendment would at this moment: a paid booking that costs more waits for its balance (due
// within window), any other is applied, the booking moving to the new hold (oldRef, the hold it
// leaves, is then for the supplier to cancel). Asked again, it answers the amendment as decided.
func (s *Store) SupplierAnswered(ctx context.Context, bookingID string, amendmentID int64, ans SupplierAnswer, window time.Duration,
	refundOf func(domain.Booking, int64) int64) (a domain.Amendment, b domain.Booking, oldRef string, _ error) {
	a, b, err := s.decideAmendment(ctx, bookingID, amendmentID, func(tx pgx.Tx, b domain.Booking, a domain.Amendment) (domain.Amendment, error) {
		if a.Status != domain.AmendmentSupplierPending {
			return a, nil
		}
		if !ans.Confirmed {
			a.Status, a.Reason = domain.AmendmentRefused, "the supplier refused the new stay: "+ans.Reason
			return a, giveBackExtras(ctx, tx, b)
		}
		a.SupplierConfirmation = ans.Confirmation
		var paid bool
		if err := tx.QueryRow(ctx, `SELECT payment_id IS NOT NULL AND status <> 'HOLD' FROM bookings WHERE id = $1`,
			b.ID).Scan(&paid); err != nil {
			return a, err
		}
		switch {
		case paid && a.Difference > 0:
			a.Status = domain.AmendmentBalanceDue
		case paid:
			var err error
			if a.Refund, err = refundOfFall(ctx, tx, b, a, refundOf); err != nil {
				return a, err
			}
			fallthrough
		default:
			if err := applyAmended(ctx, tx, b, &a); err != nil {
				return a, err
			}
		}
		_, err := tx.Exec(ctx, `UPDATE booking_amendments SET supplier_confirmation = $2, refund = $3,
				due_by = CASE WHEN $4 THEN now() + $5 * interval '1 microsecond' END
			WHERE id = $1`, a.ID, a.SupplierConfirmation, a.Refund, a.Status == domain.AmendmentBalanceDue, window.Microseconds())
		return a, err
	})
	if err == nil && a.Status == domain.AmendmentApplied && a.SupplierHoldRef != "" {
		// The stored row names the hold the booking left, asked again too.
		a, err = s.Amendment(ctx, bookingID, amendmentID)
	}
	return a, b, a.LeftHoldRef, err
}

// applyAmended applies a stay's amendment that was waiting (for its supplier, or its balance):
// the booking gives back what the new stay no longer needs here (nothing of a direct_connect
// one), takes the new stay and price, and moves to a supplier's new hold.
func applyAmended(ctx context.Context, tx pgx.Tx, b domain.Booking, a *domain.Amendment) error {
	resource, err := roomTypeResource(ctx, tx, b.HotelID, a.After.RoomTypeID)
	if err != nil {
		return err
	}
	want := line{resourceID: resource, from: a.After.CheckIn.Time(), to: a.After.CheckOut.Time(), quantity: a.After.Quantity}
	var held bool
	if err := tx.QueryRow(ctx, `SELECT supplier_held FROM bookings WHERE id = $1`, b.ID).Scan(&held); err != nil {
		return err
	}
	if !held {
		if err := relineTo(ctx, tx, b, []line{want}); err != nil {
			return err
		}
	}
	a.Status = domain.AmendmentApplied
	if err := applyStay(ctx, tx, b.ID, want, *a); err != nil {
		return err
	}
	return moveToNewHold(ctx, tx, b.ID, *a)
}

// moveToNewHold makes an applied amendment's new supplier hold the booking's own, and records on
// the amendment the hold the booking left.
func moveToNewHold(ctx context.Context, tx pgx.Tx, bookingID string, a domain.Amendment) error {
	if a.SupplierHoldRef == "" {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE booking_amendments SET left_hold_ref =
			(SELECT COALESCE(supplier_hold_ref, id) FROM bookings WHERE id = $1) WHERE id = $2`, bookingID, a.ID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE bookings SET supplier_hold_ref = $2, supplier_ref = $3 WHERE id = $1`,
		bookingID, a.SupplierHoldRef, a.SupplierConfirmation)
	return err
}

// SupplierRefs are the references of every hold a booking has at its supplier: its own first, and
// those of its amendments the supplier may hold (one waiting for its balance, or decided while
// the supplier's answer was unknown), and those it left for an amendment's. Cancelling a hold twice, or one never made, is harmless.
func (s *Store) SupplierRefs(ctx context.Context, bookingID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT ref FROM (
			SELECT COALESCE(supplier_hold_ref, id) AS ref, 0 AS n FROM bookings WHERE id = $1
			UNION ALL SELECT supplier_hold_ref, 1 FROM booking_amendments WHERE booking_id = $1 AND supplier_hold_ref IS NOT NULL
				AND status IN ('BALANCE_DUE', 'SUPPLIER_PENDING', 'LAPSED', 'REFUSED')
			UNION ALL SELECT left_hold_ref, 1 FROM booking_amendments WHERE booking_id = $1 AND left_hold_ref IS NOT NULL) refs
		GROUP BY ref ORDER BY min(n), ref`, bookingID)
	if err != nil {
		return nil, err
	}
	refs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err == nil && len(refs) == 0 {
		err = fmt.Errorf("%w: no booking %s", domain.ErrNotFound, bookingID)
	}
	return refs, err
}

// EndSupplierPending refuses the amendments of a booking still waiting for its supplier (its
// workflow stopped before the supplier's answer was taken: a resumed one does not ask again),
// giving back what they held here, and returns the references of their holds, which the
// supplier may have made, for it to cancel.
func (s *Store) EndSupplierPending(ctx context.Context, bookingID, reason string) ([]string, error) {
	var refs []string
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		b, err := lockBooking(ctx, tx, bookingID)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `UPDATE booking_amendments SET status = 'REFUSED', reason = $2, decided_at = now()
			WHERE booking_id = $1 AND status = 'SUPPLIER_PENDING' RETURNING supplier_hold_ref`, bookingID, reason)
		if err != nil {
			return err
		}
		if refs, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(refs) == 0 {
			return err
		}
		return giveBackExtras(ctx, tx, b)
	})
	return refs, err
}

// Amendment is one of a booking's amendments.
func (s *Store) Amendment(ctx context.Context, bookingID string, id int64) (domain.Amendment, error) {
	return scanAmendment(s.pool.QueryRow(ctx, `SELECT `+amendmentColumns+` FROM booking_amendments
		WHERE booking_id = $1 AND id = $2`, bookingID, id))
}
