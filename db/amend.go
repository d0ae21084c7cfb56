package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// AmendParams is one amendment of a stay or a venue order.
type AmendParams struct {
	BookingID      string
	IdempotencyKey string
	Change         domain.Change
	Actor          string // who asks: a token's subject
	// BalanceWindow is how long a paid booking that costs more waits for its balance.
	BalanceWindow time.Duration
	// RefundOf is how much of fallsBy, the fall in a paid booking's price, goes back to the guest
	// by the booking's policy (the booking as locked, before the change).
	RefundOf func(b domain.Booking, fallsBy int64) int64
	// DryRun quotes the amendment: everything is judged as it would be, then rolled back.
	DryRun bool
	// SupplierPrice is a direct_connect supplier's quote for the new stay (nil: it has no rooms
	// for it); such a supplier holds the rooms, so its quote is the price.
	SupplierPrice *domain.Price
	// SupplierSilent: the supplier did not answer for a quote (the amendment is refused for it).
	SupplierSilent bool
}

// Errors of an amendment the booking's state refuses.
var (
	// ErrBalanceDue: another amendment of the booking waits for its balance.
	ErrBalanceDue = fmt.Errorf("%w: an earlier amendment of the booking waits for its balance", domain.ErrConflict)
	// ErrNotAmendable: the booking is not held or confirmed, or is not a stay of ours to change.
	ErrNotAmendable = fmt.Errorf("%w: the booking cannot be amended", domain.ErrConflict)
	// ErrStayStarted: the change touches nights before today of a stay that has begun.
	ErrStayStarted = fmt.Errorf("%w: the stay has begun", domain.ErrConflict)
	// ErrPaymentNotWhole: a payment offered as an amendment's balance was asked back, in part or
	// whole, or is kept already: it cannot pay anything.
	ErrPaymentNotWhole = fmt.Errorf("%w: the payment cannot pay a balance", domain.ErrConflict)
)

// errQuoted rolls a dry run back once it is judged.
var errQuoted = errors.New("quoted")

// Amend changes what a booking holds in one transaction, with the locks, in the order, and the
// checks of a new hold: the booking's row; the new room type's sale lock and the hotel's sale
// rules judged on the new stay; every unit of the old and new stay locked in (resource, start)
// order; only the units the new stay adds checked and taken (stock, closures, rates, the
// channel's allocation and the pool), and those it no longer needs given back. Units both stays
// hold stay the booking's. Nights kept keep their snapshot price; added ones are priced at the
// rates in force, with the length-of-stay discount the new stay earns.
//
// A booking on hold, one that costs the same or less, and one with no provider payment (settled
// at the desk or on a channel's account) change at once (APPLIED); a paid one that costs less
// is given back RefundOf the difference. A paid booking that costs more holds the added units
// beside its own and waits for the balance (BALANCE_DUE, until DueBy): SettleAmendment applies
// it, LapseAmendment gives the added units back.
//
// What cannot be sold is stored REFUSED, with the night or rule, and nothing else changes. The
// same key and change return the stored amendment; the same key with another change, or a key
// another command that moves the booking's money holds (claimMoneyCommand), fails with
// ErrIdempotencyMismatch.
func (s *Store) Amend(ctx context.Context, p AmendParams) (domain.Amendment, domain.Booking, error) {
	var a domain.Amendment
	var b domain.Booking
	err := s.inBookingTx(WithActor(ctx, p.Actor), p.BookingID, func(tx pgx.Tx) error {
		var err error
		if b, err = lockBooking(ctx, tx, p.BookingID); err != nil {
			return err
		}
		if p.DryRun {
			a, err = domain.Amendment{}, domain.ErrNotFound // a quote has no key: it is judged afresh
		} else if _, err = claimMoneyCommand(ctx, tx, amendmentCommand(p)); err == nil {
			// The key is the booking's once (a refund's or a desk payment's key is refused here);
			// the same amendment again is answered by its row.
			a, err = amendmentByKey(ctx, tx, p.BookingID, p.IdempotencyKey)
		}
		if err == nil {
			if a.Fingerprint != p.Change.Fingerprint() {
				return fmt.Errorf("%w: amendment key %s of booking %s", domain.ErrIdempotencyMismatch, p.IdempotencyKey, p.BookingID)
			}
			return nil
		} else if !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		var extra []line
		change := amendStay
		if b.VenueID != "" {
			change = amendOrder
		}
		if a, extra, err = change(ctx, tx, b, p); err != nil {
			return err
		}
		if p.DryRun {
			return errQuoted
		}
		if a, err = insertAmendment(ctx, tx, a, p.BalanceWindow, extra); err != nil {
			return err
		}
		b, err = getBooking(ctx, tx, p.BookingID)
		return err
	})
	if errors.Is(err, errQuoted) {
		err = nil
		if a.Status != domain.AmendmentRefused {
			a.Status = domain.AmendmentQuoted
		}
		a.SupplierHoldRef = "" // a quote asks no supplier to hold anything
	}
	return a, b, err
}

// lockBooking reads a booking and locks its row.
func lockBooking(ctx context.Context, tx pgx.Tx, id string) (domain.Booking, error) {
	return scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
		FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, id))
}

// amendStay judges and makes the change of booking b, locked, in tx; the amendment it returns is
// not stored yet. A refusal rolls back to before the change. extra are the units a paid booking
// holds beside its own until its balance is paid.
func amendStay(ctx context.Context, tx pgx.Tx, b domain.Booking, p AmendParams) (a domain.Amendment, extra []line, _ error) {
	from := domain.UnitsOf(b)
	to := p.Change.Apply(from)
	a = domain.Amendment{BookingID: b.ID, Requested: p.Change, Before: from, After: to, PriceBefore: b.Price,
		Currency: b.Price.Currency, Actor: p.Actor, Fingerprint: p.Change.Fingerprint(), IdempotencyKey: p.IdempotencyKey}
	var paidHere, held bool
	var today time.Time
	var pending int
	if err := tx.QueryRow(ctx, `SELECT b.payment_id IS NOT NULL, b.supplier_held,
			(now() AT TIME ZONE h.time_zone)::date,
			(SELECT count(*) FROM booking_amendments m WHERE m.booking_id = b.id AND m.status IN ('BALANCE_DUE', 'SUPPLIER_PENDING'))
		FROM bookings b JOIN resources r ON r.id = b.resource_id JOIN hotels h ON h.id = r.hotel_id WHERE b.id = $1`,
		b.ID).Scan(&paidHere, &held, &today, &pending); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return a, nil, fmt.Errorf("%w: booking %s is not a hotel stay", ErrNotAmendable, b.ID)
		}
		return a, nil, err
	}
	switch {
	case b.Status != domain.StatusHold && !b.Status.Used():
		return a, nil, fmt.Errorf("%w: booking %s is %s", ErrNotAmendable, b.ID, b.Status)
	case b.Status == domain.StatusHold && b.Paid > 0:
		// What the desk took was for this price: confirm the booking, then amend it as paid.
		return a, nil, fmt.Errorf("%w: the desk took %d %s of booking %s's price: confirm it first", ErrNotAmendable,
			b.Paid, b.Price.Currency, b.ID)
	case pending > 0:
		return a, nil, ErrBalanceDue
	case b.PlanBalance() > 0:
		// Its price and its deposit plan's balance would move together: one balance at a time.
		return a, nil, fmt.Errorf("%w: booking %s owes the rest of its price, %d %s, by %s: pay it first", ErrNotAmendable,
			b.ID, b.PlanBalance(), b.Price.Currency, b.BalanceDueAt.Format(time.RFC3339))
	}
	if err := checkBegunStay(from, to, domain.DateOf(today, time.UTC)); err != nil {
		return a, nil, err
	}
	if b.BlockID != "" && !shrinks(from, to) {
		// Its rooms and rate are the block's: what a new night or room would cost, and where it
		// would come from, are the block's to say, through a booking under its code.
		return refused(a, "a group's booking only gives back rooms or nights: book more under group "+b.GroupCode), nil, nil
	}
	resource, err := roomTypeResource(ctx, tx, b.HotelID, to.RoomTypeID)
	if err != nil {
		return a, nil, err
	}
	// The new room type's sale lock, as a new booking row's foreign key takes it, before its rules are read.
	if _, err := tx.Exec(ctx, `SELECT 1 FROM resources WHERE id = $1 FOR KEY SHARE`, resource); err != nil {
		return a, nil, err
	}
	var v domain.SaleVerdict
	if b.BlockID == "" { // a group's booking is judged by its block's contract, not the sale rules
		if v, err = judgeSale(ctx, tx, domain.SaleContext{HotelID: b.HotelID, RoomTypeID: to.RoomTypeID,
			ChannelID: b.ChannelID, AgentID: b.AgentID, Stay: to.Stay(), RatePlan: to.RatePlan}); err != nil {
			return a, nil, err
		}
		if !v.Allowed {
			return refused(a, v.Refusal.Named()), nil, nil
		}
	}
	var sale *plannedSale // a change of plan: the new plan's, read under the same lock
	if to.RatePlan != from.RatePlan {
		var why string
		if sale, why, err = replanSale(ctx, tx, b, to); err != nil || why != "" {
			return refused(a, why), nil, err
		}
	}
	current, err := bookingLines(ctx, tx, b.ID)
	if err != nil {
		return a, nil, err
	}
	want := line{resourceID: resource, from: to.CheckIn.Time(), to: to.CheckOut.Time(), quantity: to.Quantity}
	if b.SupplierID != "" {
		return amendAtSupplier(ctx, tx, b, p, a, held, current, want, v.Discount)
	}
	sp, err := tx.Begin(ctx) // a savepoint: a refusal undoes what was taken before it
	if err != nil {
		return a, nil, err
	}
	paid := b.Status != domain.StatusHold && paidHere
	// Paid only at the desk, a rise is applied at once and its difference is due there (a desk
	// payment takes it); paid online, it waits for its balance.
	waits, err := paidOnline(ctx, tx, b.ID)
	if err != nil {
		return a, nil, err
	}
	// A paid booking's price is only known once the units are taken; a rise keeps the old units.
	r, refusal, err := reline(ctx, sp, b.ID, b.ChannelID, current, []line{want}, paid, true)
	if err != nil {
		return a, nil, err
	}
	if refusal != nil {
		if err := sp.Rollback(ctx); err != nil {
			return a, nil, err
		}
		return refused(a, "the night of "+refusal.at.Format(time.DateOnly)+" is not available"), nil, nil
	}
	if sale != nil {
		replan(&a, sale, to, v.Discount) // every night at the new plan's price
	} else {
		// Added rooms are priced by the booking's plan (its rules were judged above).
		if why, err := planRates(ctx, sp, b, to, resource, r.rates); err != nil || why != "" {
			if err != nil {
				return a, nil, err
			}
			if err := sp.Rollback(ctx); err != nil {
				return a, nil, err
			}
			return refused(a, why), nil, nil
		}
		if a.PriceAfter, a.Discount, err = stayPrice(b, current, want, to, r.rates, v.Discount); err != nil {
			return a, nil, err
		}
	}
	a.Difference = a.PriceAfter.Total - b.Price.Total
	switch {
	case paid && waits && a.Difference > 0:
		a.Status = domain.AmendmentBalanceDue
		return a, r.taken, sp.Commit(ctx)
	case paid:
		// The price holds or falls: the old units no longer needed go back now.
		if _, _, err := reline(ctx, sp, b.ID, b.ChannelID, append(current, r.taken...), []line{want}, false, false); err != nil {
			return a, nil, err
		}
		if a.Refund, err = refundOfFall(ctx, sp, b, a, p.RefundOf); err != nil {
			return a, nil, err
		}
	}
	if err := sp.Commit(ctx); err != nil {
		return a, nil, err
	}
	a.Status = domain.AmendmentApplied
	if err := applyStay(ctx, tx, b.ID, want, a); err != nil {
		return a, nil, err
	}
	return a, nil, refreshBalanceDate(ctx, tx, b.ID) // a deposit hold moved owes by its new arrival
}

// refundOfFall is what goes back of paid booking b's fall in price by amendment a: what its
// policy gives back, never more than it keeps beyond its new price and its extras (the folio's:
// what paid the minibar is not the stay's to give back).
func refundOfFall(ctx context.Context, q querier, b domain.Booking, a domain.Amendment,
	refundOf func(domain.Booking, int64) int64) (int64, error) {
	var extras int64
	if err := q.QueryRow(ctx, `SELECT ledger_booking_extras($1)`, b.ID).Scan(&extras); err != nil {
		return 0, err
	}
	return min(max(refundOf(b, -a.Difference), 0), max(b.Paid-a.PriceAfter.Total-extras, 0)), nil
}

// refused is a with its refusal.
func refused(a domain.Amendment, why string) domain.Amendment {
	a.Status, a.Reason, a.PriceAfter = domain.AmendmentRefused, why, a.PriceBefore
	return a
}

// shrinks is whether a change only gives back: the same room type and plan, no more rooms, and
// nights within the stay's.
func shrinks(from, to domain.Units) bool {
	return to.RoomTypeID == from.RoomTypeID && to.RatePlan == from.RatePlan && to.Quantity <= from.Quantity &&
		!to.CheckIn.Before(from.CheckIn) && !to.CheckOut.After(from.CheckOut)
}

// checkBegunStay refuses a change of a stay that has begun (today at the hotel is on or after
// its check-in) that touches nights before today: only its check-out may move, to tomorrow or
// later. A change of plan would price the nights used again.
func checkBegunStay(from, to domain.Units, today domain.Date) error {
	if today.Before(from.CheckIn) {
		return nil
	}
	switch {
	case to.CheckIn != from.CheckIn || to.RoomTypeID != from.RoomTypeID || to.Quantity != from.Quantity ||
		to.RatePlan != from.RatePlan:
		return fmt.Errorf("%w: only its check-out can move once the stay has begun (the nights before today are used)", ErrStayStarted)
	case !to.CheckOut.After(today):
		return fmt.Errorf("%w: the check-out cannot move before tomorrow (%s) at the hotel", ErrStayStarted, today.AddDays(1))
	}
	return nil
}

// stayPrice prices the stay to: on each night, the rooms the booking kept of the same room type
// at their snapshot price (a night's amount over its quantity), the rooms added at the rate they
// were taken at, less the discount the new stay earns (off, what it takes off them).
func stayPrice(b domain.Booking, current []line, want line, to domain.Units, rates map[unitKey]int64,
	discount *domain.SaleRule) (p domain.Price, off int64, _ error) {
	snapshot := map[domain.Date]int64{}
	for _, n := range b.Price.Nights {
		snapshot[n.Date] = n.Amount
	}
	sameRoom := len(current) > 0 && current[0].resourceID == want.resourceID && to.RoomTypeID == b.RoomTypeID
	p.Currency = b.Price.Currency
	for _, d := range to.Stay().NightDates() {
		kept := 0
		if sameRoom && !d.Before(b.CheckIn) && d.Before(b.CheckOut) {
			kept = min(b.Quantity, to.Quantity)
		}
		added := to.Quantity - kept
		amount := snapshot[d] // every room kept: the night as it was sold, to the cent
		if kept < b.Quantity {
			amount = snapshot[d] * int64(kept) / int64(b.Quantity)
		}
		if added > 0 {
			rate, ok := rates[unitKey{want.resourceID, d.Time()}]
			if !ok {
				return p, 0, fmt.Errorf("amend %s: no rate was taken for the night of %s", b.ID, d)
			}
			night := domain.Price{Nights: []domain.NightRate{{Date: d, Amount: rate * int64(added)}}, Total: rate * int64(added)}
			if discount != nil {
				var less int64
				night, less = discount.Apply(night, added)
				off += less
			}
			amount += night.Total
		}
		p.Nights = append(p.Nights, domain.NightRate{Date: d, Amount: amount})
		p.Total += amount
	}
	return p, off, nil
}

// applyStay writes the amended stay onto the booking row: its room type, dates, quantity and
// price and the discount taken off the rooms added (a paid booking no longer counts as paid what
// it gives back). A change of plan writes the plan, its terms and policy, as a reservation
// keeps them, and the discount of the stay priced afresh.
func applyStay(ctx context.Context, tx pgx.Tx, bookingID string, want line, a domain.Amendment) error {
	var plan *string
	if a.Policy != nil {
		plan = &a.After.RatePlan
	}
	_, err := tx.Exec(ctx, `UPDATE bookings SET resource_id = $2, unit_from = $3, unit_to = $4, quantity = $5,
			total = $6, nightly_rates = $7, paid = paid - $8,
			discount = CASE WHEN $10::text IS NULL THEN discount + $9 ELSE $9 END,
			rate_plan = COALESCE($10, rate_plan), plan_terms = CASE WHEN $10::text IS NULL THEN plan_terms ELSE $11 END,
			policy = COALESCE($12, policy), updated_at = now()
		WHERE id = $1`, bookingID, want.resourceID, want.from, want.to, want.quantity, a.PriceAfter.Total, a.PriceAfter.Nights,
		a.Refund, a.Discount, plan, a.PlanTerms, a.Policy)
	return err
}
