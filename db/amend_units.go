package db

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// An amendment moves a booking from the units it holds to the units it should hold, unit by
// unit: a unit both hold stays the booking's (never given back and taken again, never counted
// twice), only the difference is taken or given back. So extending a stay whose nights are sold
// out works when the added night is free.

// unitKey names one unit of a resource.
type unitKey struct {
	resourceID int64
	start      time.Time
}

// unitSpan is one unit and its end.
type unitSpan struct {
	unitKey
	end time.Time
}

// relined is what reline did: the runs of units it took (their quantity is what was added) and
// the rates of the units taken, and the runs it gave back.
type relined struct {
	taken, given []line
	rates        map[unitKey]int64
}

// lineRefusal says why the units a change adds cannot be sold: the first unit that is short,
// closed, unpriced or missing.
type lineRefusal struct {
	resourceID int64
	at         time.Time
}

// reline moves booking bookingID, sold through channel (empty: directly), from holding current
// to holding target, under the normal lock: every unit of both locked in (resource, start)
// order, then the units target adds checked as a new hold checks them (there, open, priced, with
// the quantity left besides what is reserved and blocked; for a channel, in its allocation first
// and then the pool) and taken, and, unless keep is set, the units target no longer needs given
// back. refusal is set, with nothing changed, when what target adds cannot be sold; the caller
// then rolls back to before the call.
//
// What it gives back is offered to the waitlist (docs/waitlists.md) in tx: when fresh (tx holds
// no unit lock yet) the entries' locks are taken in the one order with the units
// (lockForGiveBack); otherwise they are only tried (offerAfterLocks).
func reline(ctx context.Context, tx pgx.Tx, bookingID, channel string, current, target []line, keep, fresh bool) (relined, *lineRefusal, error) {
	out := relined{rates: map[unitKey]int64{}}
	all := append(slices.Clone(current), target...)
	slices.SortFunc(all, func(a, b line) int { return cmp.Or(cmp.Compare(a.resourceID, b.resourceID), a.from.Compare(b.from)) })
	var waiting []waitingEntry
	var err error
	if fresh && !keep {
		waiting, err = lockForGiveBack(ctx, tx, all)
	} else {
		err = lockLines(ctx, tx, all)
	}
	if err != nil {
		return out, nil, err
	}
	units, err := unitsOf(ctx, tx, all)
	if err != nil {
		return out, nil, err
	}
	if at := untiled(units, target); at != nil {
		return out, at, nil
	}
	had, want := quantities(units, current), quantities(units, target)
	for _, run := range runs(units, had, want) {
		switch {
		case run.quantity > 0:
			st, err := lineAvailable(ctx, tx, run)
			if err != nil {
				return out, nil, err
			}
			if st.ok && st.allocated {
				if st.ok, err = takeShares(ctx, tx, bookingID, run, channel, nil); err != nil {
					return out, nil, err
				}
			}
			if !st.ok {
				at, err := firstShortUnit(ctx, tx, run)
				return out, &lineRefusal{resourceID: run.resourceID, at: at}, err
			}
			rates, err := takeLine(ctx, tx, run, st.units)
			if err != nil {
				return out, nil, err
			}
			for _, u := range rates {
				out.rates[unitKey{run.resourceID, u.start}] = u.rate
			}
			out.taken = append(out.taken, run)
		case !keep:
			run.quantity = -run.quantity
			if err := giveBackPart(ctx, tx, bookingID, run, want); err != nil {
				return out, nil, err
			}
			out.given = append(out.given, run)
		}
	}
	switch {
	case len(out.given) == 0:
	case fresh:
		err = offerFreed(ctx, tx, out.given, waitingOn(waiting, out.given))
	default:
		err = offerAfterLocks(ctx, tx, out.given)
	}
	return out, nil, err
}

// waitingOn keeps the entries that wait for a unit of lines: those waiting only for units a
// change took are not offered anything it freed.
func waitingOn(waiting []waitingEntry, lines []line) []waitingEntry {
	return slices.DeleteFunc(waiting, func(w waitingEntry) bool {
		return !slices.ContainsFunc(lines, func(l line) bool {
			return l.resourceID == w.resourceID && l.from.Before(w.to) && l.to.After(w.from)
		})
	})
}

// unitsOf reads the units the lines cover, each once, in (resource, start) order.
func unitsOf(ctx context.Context, tx pgx.Tx, lines []line) ([]unitSpan, error) {
	resources, froms, tos := make([]int64, len(lines)), make([]time.Time, len(lines)), make([]time.Time, len(lines))
	for i, l := range lines {
		resources[i], froms[i], tos[i] = l.resourceID, l.from, l.to
	}
	rows, err := tx.Query(ctx, `SELECT DISTINCT i.resource_id, i.unit_start, `+unitEndOf+` FROM inventory i
		JOIN unnest($1::bigint[], $2::timestamp[], $3::timestamp[]) AS l(r, f, t)
			ON i.resource_id = l.r AND i.unit_start >= l.f AND i.unit_start < l.t
		ORDER BY 1, 2`, resources, froms, tos)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (unitSpan, error) {
		var u unitSpan
		err := r.Scan(&u.resourceID, &u.start, &u.end)
		return u, err
	})
}

// covered returns the units that lie in l, in order.
func covered(units []unitSpan, l line) []unitSpan {
	var in []unitSpan
	for _, u := range units {
		if u.resourceID == l.resourceID && !u.start.Before(l.from) && u.start.Before(l.to) {
			in = append(in, u)
		}
	}
	return in
}

// untiled returns where the first target line is not tiled by units (a night with no inventory
// row, a gap between slots), or nil when every one is.
func untiled(units []unitSpan, target []line) *lineRefusal {
	for _, l := range target {
		next := l.from
		for _, u := range covered(units, l) {
			if !u.start.Equal(next) {
				break
			}
			next = u.end
		}
		if !next.Equal(l.to) {
			return &lineRefusal{resourceID: l.resourceID, at: next}
		}
	}
	return nil
}

// quantities sums the lines' quantities on each unit they cover.
func quantities(units []unitSpan, lines []line) map[unitKey]int {
	q := map[unitKey]int{}
	for _, l := range lines {
		for _, u := range covered(units, l) {
			q[u.unitKey] += l.quantity
		}
	}
	return q
}

// runs groups the units whose quantity changes from had to want into lines: consecutive units of
// one resource that change by the same amount (positive: taken; negative: given back).
func runs(units []unitSpan, had, want map[unitKey]int) []line {
	var out []line
	for _, u := range units {
		d := want[u.unitKey] - had[u.unitKey]
		if d == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].resourceID == u.resourceID && out[n-1].to.Equal(u.start) && out[n-1].quantity == d {
			out[n-1].to = u.end
			continue
		}
		out = append(out, line{resourceID: u.resourceID, from: u.start, to: u.end, quantity: d})
	}
	return out
}

// firstShortUnit is the first unit of l, locked, that cannot give l its quantity: short,
// closed or unpriced; l's start when each can (its allocation and the pool are short, or its
// currency differs).
func firstShortUnit(ctx context.Context, tx pgx.Tx, l line) (time.Time, error) {
	var at *time.Time
	err := tx.QueryRow(ctx, `SELECT min(i.unit_start) FROM inventory i
		WHERE i.resource_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3 AND NOT (`+unitsLeft+` >= $4 AND `+priced+`)`,
		l.resourceID, l.from, l.to, l.quantity).Scan(&at)
	if err != nil || at == nil {
		return l.from, err
	}
	return *at, nil
}

// giveBackPart gives l's quantity of its units back, locked by the caller, and what the booking
// took of them from allocations beyond what it keeps (want, per unit): the pool's rooms go
// first, so a channel's booking keeps its allocation's rooms for as long as it can.
func giveBackPart(ctx context.Context, tx pgx.Tx, bookingID string, l line, want map[unitKey]int) error {
	tag, err := tx.Exec(ctx, `UPDATE inventory SET reserved = reserved - $4
		WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3`, l.resourceID, l.from, l.to, l.quantity)
	if err == nil && tag.RowsAffected() == 0 {
		err = fmt.Errorf("amend %s: no units of resource %d over [%s, %s) to give back", bookingID, l.resourceID,
			l.from.Format(time.RFC3339), l.to.Format(time.RFC3339))
	}
	if err != nil {
		return err
	}
	// The block's rooms are kept first, then the allocations', then the pool's.
	blockKept, err := returnToBlock(ctx, tx, bookingID, l, want)
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT unit_start, agent_id, quantity FROM booking_allocations
		WHERE booking_id = $1 AND resource_id = $2 AND unit_start >= $3 AND unit_start < $4
		ORDER BY unit_start, agent_id NULLS FIRST`, bookingID, l.resourceID, l.from, l.to)
	if err != nil {
		return err
	}
	type share struct { // exported fields: pgx scans into them by position
		Start    time.Time
		Agent    *string
		Quantity int
	}
	shares, err := pgx.CollectRows(rows, pgx.RowToStructByPos[share])
	if err != nil {
		return err
	}
	held := map[time.Time]int{}
	for _, s := range shares {
		held[s.Start] += s.Quantity
	}
	for _, s := range shares {
		excess := held[s.Start] - (want[unitKey{l.resourceID, s.Start}] - blockKept[s.Start])
		back := min(excess, s.Quantity)
		if back <= 0 {
			continue
		}
		held[s.Start] -= back
		if _, err := tx.Exec(ctx, `WITH gone AS (
				DELETE FROM booking_allocations
				WHERE booking_id = $1 AND resource_id = $2 AND unit_start = $3 AND agent_id IS NOT DISTINCT FROM $4 AND quantity = $5
				RETURNING channel_id),
			kept AS (
				UPDATE booking_allocations SET quantity = quantity - $5
				WHERE booking_id = $1 AND resource_id = $2 AND unit_start = $3 AND agent_id IS NOT DISTINCT FROM $4 AND quantity > $5
				RETURNING channel_id)
			UPDATE allocations a SET used = a.used - $5 FROM (SELECT channel_id FROM gone UNION ALL SELECT channel_id FROM kept) g
			WHERE a.resource_id = $2 AND a.unit_start = $3 AND a.channel_id = g.channel_id AND a.agent_id IS NOT DISTINCT FROM $4`,
			bookingID, l.resourceID, s.Start, s.Agent, back); err != nil {
			return err
		}
	}
	return nil
}

// paidOnline reports whether a booking keeps a payment the provider took (its payment or an
// amendment's balance), rather than only money the desk took.
func paidOnline(ctx context.Context, tx pgx.Tx, bookingID string) (bool, error) {
	var online bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bookings b JOIN payments p ON p.booking_id = b.id
		WHERE b.id = $1 AND p.method = 'provider' AND p.status = 'succeeded' AND p.payment_id IN `+keptPaymentIDs+`)
		OR EXISTS (SELECT 1 FROM bookings b WHERE b.id = $1 AND b.payment_id IS NOT NULL AND NOT starts_with(b.payment_id, 'desk/'))`,
		bookingID).Scan(&online)
	return online, err
}
