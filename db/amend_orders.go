package db

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A venue order's amendment gives the order's whole new set of lines, in the order it is stored
// in (line 0 on the booking row, the rest in booking_lines numbered 1..), as a new order is.

// orderLine is a line of an order resolved to its resource.
type orderLine struct {
	domain.OrderLine
	line
	kind domain.ResourceKind
}

// amendOrder is amendStay for a venue order: it judges and makes the change of order b, locked,
// in tx, and returns the amendment not yet stored and the units a paid order that costs more
// holds beside its own. A refusal rolls back to before the change.
func amendOrder(ctx context.Context, tx pgx.Tx, b domain.Booking, p AmendParams) (a domain.Amendment, extra []line, _ error) {
	from := domain.UnitsOf(b)
	to := p.Change.Apply(from)
	a = domain.Amendment{BookingID: b.ID, Requested: p.Change, Before: from, After: to, PriceBefore: b.Price,
		Currency: b.Price.Currency, Actor: p.Actor, Fingerprint: p.Change.Fingerprint(), IdempotencyKey: p.IdempotencyKey}
	if len(p.Change.Lines) == 0 {
		return a, nil, fmt.Errorf("%w: an amendment of a venue order gives its lines", domain.ErrInvalid)
	}
	var paidHere bool
	var now time.Time
	var pending int
	if err := tx.QueryRow(ctx, `SELECT b.payment_id IS NOT NULL, now() AT TIME ZONE 'UTC',
			(SELECT count(*) FROM booking_amendments m WHERE m.booking_id = b.id AND m.status = 'BALANCE_DUE')
		FROM bookings b WHERE b.id = $1`, b.ID).Scan(&paidHere, &now, &pending); err != nil {
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
	}
	old, err := resolveOrderLines(ctx, tx, b.VenueID, from.Lines)
	if err != nil {
		return a, nil, err
	}
	target, err := resolveOrderLines(ctx, tx, b.VenueID, to.Lines)
	if err != nil {
		return a, nil, err
	}
	if err := checkOrderChange(old, target, now.UTC()); err != nil {
		return a, nil, err
	}
	// The sale locks of the new lines' resources, as a new order's rows take them, before any unit.
	ids := make([]int64, len(target))
	for i, l := range target {
		ids[i] = l.resourceID
	}
	slices.Sort(ids)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM resources WHERE id = ANY($1) ORDER BY id FOR KEY SHARE`, ids); err != nil {
		return a, nil, err
	}
	current, err := bookingLines(ctx, tx, b.ID)
	if err != nil {
		return a, nil, err
	}
	want := plainLines(target)
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
	refuse := func(why string) (domain.Amendment, []line, error) {
		if err := sp.Rollback(ctx); err != nil {
			return a, nil, err
		}
		return refused(a, why), nil, nil
	}
	r, refusal, err := reline(ctx, sp, b.ID, b.ChannelID, current, want, paid, true)
	if err != nil {
		return a, nil, err
	}
	if refusal != nil {
		return refuse(slotRefusal(target, refusal.resourceID, refusal.at))
	}
	var bad *lineRefusal
	if a.PriceAfter, bad, err = orderPrice(ctx, sp, b, target); err != nil {
		return a, nil, err
	}
	if bad != nil {
		return refuse(slotRefusal(target, bad.resourceID, bad.at))
	}
	a.Difference = a.PriceAfter.Total - b.Price.Total
	switch {
	case paid && waits && a.Difference > 0:
		// The booking row keeps its first line until the balance is paid: the customer's other
		// orders are read now, and the unique index judges again when it is settled.
		taken, err := holdsSlotElsewhere(ctx, sp, b, target[0].line)
		if err != nil {
			return a, nil, err
		}
		if taken {
			return refuse(alreadyOrdered)
		}
		a.Status = domain.AmendmentBalanceDue
		return a, r.taken, sp.Commit(ctx)
	case paid:
		// The price holds or falls: the old units no longer needed go back now.
		if _, _, err := reline(ctx, sp, b.ID, b.ChannelID, append(current, r.taken...), want, false, false); err != nil {
			return a, nil, err
		}
		if a.Refund, err = refundOfFall(ctx, sp, b, a, p.RefundOf); err != nil {
			return a, nil, err
		}
	}
	a.Status = domain.AmendmentApplied
	if err := applyOrder(ctx, sp, b.ID, want, a); err != nil {
		if pgCode(err) == codeUniqueViolation {
			return refuse(alreadyOrdered)
		}
		return a, nil, err
	}
	return a, nil, sp.Commit(ctx)
}

// alreadyOrdered is the refusal of a first line whose slot the customer holds in another order.
const alreadyOrdered = "you already hold an order for that slot"

// slotRefusal names the unit of lines' resource that cannot be sold.
func slotRefusal(lines []orderLine, resourceID int64, at time.Time) string {
	code := fmt.Sprint(resourceID)
	for _, l := range lines {
		if l.resourceID == resourceID {
			code = l.ResourceID
			break
		}
	}
	return "the slot of " + code + " at " + at.UTC().Format(time.RFC3339) + " is not available"
}

// resolveOrderLines resolves lines to the venue's resources (ErrNotFound for one it has not).
func resolveOrderLines(ctx context.Context, q querier, venueID string, lines []domain.OrderLine) ([]orderLine, error) {
	out := make([]orderLine, len(lines))
	for i, l := range lines {
		r, err := getVenueResource(ctx, q, venueID, l.ResourceID, "")
		if err != nil {
			return nil, err
		}
		out[i] = orderLine{OrderLine: l, kind: r.kind,
			line: line{resourceID: r.id, from: l.Start.UTC(), to: l.End.UTC(), quantity: l.Quantity}}
	}
	return out, nil
}

// plainLines is the lines as reline and the booking rows take them.
func plainLines(lines []orderLine) []line {
	out := make([]line, len(lines))
	for i, l := range lines {
		out[i] = l.line
	}
	return out
}

// sameSpan reports whether l and o are the same resource over the same span.
func sameSpan(l, o orderLine) bool {
	return l.resourceID == o.resourceID && l.from.Equal(o.from) && l.to.Equal(o.to)
}

// checkOrderChange judges what the new lines do to the old ones. A new line over an old line's
// resource and span is that line (resized or not). The old lines left each move to the first new
// line left of their kind; an old line with none is removed, which only equipment may be; the
// new lines left are added. A line that has started (by now) must stay as it is, and no line may
// be moved or added onto time that has begun.
func checkOrderChange(old, target []orderLine, now time.Time) error {
	matched := make([]bool, len(target))
	var moving []orderLine
	for _, o := range old {
		i := slices.IndexFunc(target, func(t orderLine) bool { return sameSpan(o, t) })
		if i >= 0 {
			matched[i] = true
			if !o.from.After(now) && o.quantity != target[i].quantity {
				return fmt.Errorf("%w: a line that has started cannot move (%s from %s)", ErrStayStarted, o.ResourceID,
					o.from.Format(time.RFC3339))
			}
			continue
		}
		if !o.from.After(now) {
			return fmt.Errorf("%w: a line that has started cannot move (%s from %s)", ErrStayStarted, o.ResourceID,
				o.from.Format(time.RFC3339))
		}
		moving = append(moving, o)
	}
	for _, o := range moving {
		moved := false
		for i, t := range target {
			if !matched[i] && t.kind == o.kind {
				matched[i], moved = true, true
				break
			}
		}
		if !moved && o.kind != domain.KindEquipment {
			return fmt.Errorf("%w: the %s line of %s can only move to another %s of the venue; only equipment lines can be left out",
				domain.ErrInvalid, o.kind, o.ResourceID, o.kind)
		}
	}
	for _, t := range target {
		kept := slices.ContainsFunc(old, func(o orderLine) bool { return sameSpan(o, t) })
		if !kept && !t.from.After(now) {
			return fmt.Errorf("%w: a line cannot move to or be added at a time that has begun (%s from %s)", ErrStayStarted,
				t.ResourceID, t.from.Format(time.RFC3339))
		}
	}
	return nil
}

// orderPrice prices the new lines of order b, whose units are locked and held: a line over an
// old line's resource and span keeps that line's unit price for the units it kept; its added
// quantity and every other line are priced at the rates in force (the sum of its units' rates),
// which must be in the order's currency (bad names the first unit that is not).
func orderPrice(ctx context.Context, tx pgx.Tx, b domain.Booking, target []orderLine) (domain.Price, *lineRefusal, error) {
	p := domain.Price{Currency: b.Price.Currency}
	for _, t := range target {
		lp := domain.LinePrice{OrderLine: t.OrderLine}
		kept := 0
		for _, o := range b.Price.Lines {
			if o.ResourceID == t.ResourceID && o.Start.Equal(t.Start) && o.End.Equal(t.End) {
				kept, lp.UnitPrice = min(o.Quantity, t.quantity), o.UnitPrice
				break
			}
		}
		lp.Total = lp.UnitPrice * int64(kept)
		if added := t.quantity - kept; added > 0 {
			var rate int64
			var wrong *time.Time
			if err := tx.QueryRow(ctx, `SELECT COALESCE(sum(i.rate), 0),
					min(i.unit_start) FILTER (WHERE i.rate IS NULL OR i.currency IS DISTINCT FROM $4)
				FROM inventory i WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3`,
				t.resourceID, t.from, t.to, p.Currency).Scan(&rate, &wrong); err != nil {
				return p, nil, err
			}
			if wrong != nil {
				return p, &lineRefusal{resourceID: t.resourceID, at: *wrong}, nil
			}
			if kept == 0 {
				lp.UnitPrice = rate
			}
			// Added units at the rate in force; when it is not the kept units' price, UnitPrice
			// stays theirs and Total is the exact sum.
			lp.Total += rate * int64(added)
		}
		p.Lines = append(p.Lines, lp)
		p.Total += lp.Total
	}
	return p, nil, nil
}

// holdsSlotElsewhere reports whether b's customer holds l's slot (resource, start) in another
// active order: the slot the one-active-order-per-slot index guards.
func holdsSlotElsewhere(ctx context.Context, tx pgx.Tx, b domain.Booking, l line) (bool, error) {
	var taken bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bookings WHERE customer_id = $1 AND resource_id = $2
			AND unit_from = $3 AND venue_id IS NOT NULL AND status IN ('HOLD', 'CONFIRMED', 'COMPLETED') AND id <> $4)`,
		b.CustomerID, l.resourceID, l.from, b.ID).Scan(&taken)
	return taken, err
}

// applyOrder writes the amended order: its first line and price on the booking row, its further
// lines in place of its own booking_lines (a pending amendment's are forgotten by the caller), and
// a paid order no longer counts as paid what it gives back. The unique index on the customer's
// active orders may refuse the first line's slot (a unique violation; the caller rolls back).
func applyOrder(ctx context.Context, tx pgx.Tx, bookingID string, want []line, a domain.Amendment) error {
	first := want[0]
	if _, err := tx.Exec(ctx, `UPDATE bookings SET resource_id = $2, unit_from = $3, unit_to = $4, quantity = $5,
			total = $6, line_prices = $7, paid = paid - $8, updated_at = now()
		WHERE id = $1`, bookingID, first.resourceID, first.from, first.to, first.quantity, a.PriceAfter.Total,
		a.PriceAfter.Lines, a.Refund); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM booking_lines WHERE booking_id = $1 AND amendment_id IS NULL`, bookingID); err != nil {
		return err
	}
	for i, l := range want[1:] {
		if _, err := tx.Exec(ctx, `INSERT INTO booking_lines (booking_id, line_no, resource_id, unit_from, unit_to, quantity)
			VALUES ($1, $2, $3, $4, $5, $6)`, bookingID, i+1, l.resourceID, l.from, l.to, l.quantity); err != nil {
			return err
		}
	}
	return nil
}
