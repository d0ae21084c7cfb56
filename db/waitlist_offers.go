package db

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Units a give-back frees are offered to the waitlist in the give-back's own transaction
// (docs/waitlists.md): the first waiting entry that fits gets an ordinary HOLD booking, taken
// under the same locks and checks as any hold, so the public never sees the units in between.
// A worker starts the offer's booking workflow afterwards (waitlist_offer_starts).
//
// Lock order, the one of every reservation: the booking row, its resources' sale locks (FOR KEY
// SHARE), then units in (resource, start) order. A give-back that finds entries waiting takes
// their resources' sale locks before any unit, and locks the units of the entries' spans with
// its own, so an offer never waits for a lock out of order. Entries are taken SKIP LOCKED and a
// customer's offer lock is only tried: an offer never waits at all.

// maxWaitingRead bounds the entries one give-back considers, in the order they joined.
const maxWaitingRead = 500

// CreatedByWaitlist is who an offer's booking says created it.
const CreatedByWaitlist = "system:waitlist"

// waitingEntry is an entry a give-back may offer its units to, with its site's offer settings.
type waitingEntry struct {
	id, resourceID                    int64
	from, to                          time.Time
	quantity                          int
	customerID, channelID, agentID    string
	plan, hotelID, venueID, code, fit string
	offerFor                          time.Duration
}

func (w waitingEntry) line() line {
	return line{resourceID: w.resourceID, from: w.from, to: w.to, quantity: w.quantity}
}

// waitingFor reads, unlocked, the entries waiting for any unit of lines, in the order they
// joined. An entry joining after it is read waits for the next give-back. A hotel sold through a
// supplier offers nothing: its supplier confirms every stay after the hold (SetHotelSupplier
// closes its entries).
func waitingFor(ctx context.Context, tx pgx.Tx, lines []line) ([]waitingEntry, error) {
	resources, froms, tos := make([]int64, len(lines)), make([]time.Time, len(lines)), make([]time.Time, len(lines))
	for i, l := range lines {
		resources[i], froms[i], tos[i] = l.resourceID, l.from, l.to
	}
	rows, err := tx.Query(ctx, `SELECT e.id, e.resource_id, e.unit_from, e.unit_to, e.quantity, e.customer_id,
			COALESCE(e.channel_id, ''), COALESCE(e.agent_id, ''), COALESCE(e.rate_plan, ''),
			COALESCE(r.hotel_id, ''), COALESCE(r.venue_id, ''), r.code,
			COALESCE(h.waitlist_fit, v.waitlist_fit), COALESCE(h.waitlist_offer_seconds, v.waitlist_offer_seconds)
		FROM waitlist_entries e JOIN resources r ON r.id = e.resource_id
			LEFT JOIN hotels h ON h.id = r.hotel_id LEFT JOIN venues v ON v.id = r.venue_id
		WHERE e.status = 'waiting' AND h.supplier_id IS NULL
			AND `+windowOpen("e.unit_from")+` -- its window still open (the sweep closes the rest)
			AND EXISTS (SELECT 1 FROM unnest($1::bigint[], $2::timestamp[], $3::timestamp[]) AS l(r, f, t)
			WHERE e.resource_id = l.r AND e.unit_from < l.t AND e.unit_to > l.f)
		ORDER BY e.id LIMIT `+fmt.Sprint(maxWaitingRead), resources, froms, tos)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (waitingEntry, error) {
		var w waitingEntry
		var seconds int
		err := r.Scan(&w.id, &w.resourceID, &w.from, &w.to, &w.quantity, &w.customerID, &w.channelID, &w.agentID,
			&w.plan, &w.hotelID, &w.venueID, &w.code, &w.fit, &seconds)
		w.offerFor = time.Duration(seconds) * time.Second
		return w, err
	})
}

// lockForGiveBack locks what a give-back of lines needs, in the one order: the sale locks of the
// resources entries wait for, then the units of lines and of those entries' spans. It returns
// the entries, for offerFreed: none when their sale locks stayed busy (takeSaleLocks).
func lockForGiveBack(ctx context.Context, tx pgx.Tx, lines []line) ([]waitingEntry, error) {
	waiting, err := waitingFor(ctx, tx, lines)
	if err != nil {
		return nil, err
	}
	locked := lines
	if len(waiting) > 0 {
		var ids []int64
		locked = slices.Clone(lines)
		for _, w := range waiting {
			ids = append(ids, w.resourceID)
			locked = append(locked, w.line())
		}
		slices.Sort(ids)
		got, err := takeSaleLocks(ctx, tx, slices.Compact(ids))
		if err != nil {
			return nil, err
		}
		if !got { // passed over, keeping their places
			waiting, locked = nil, lines
		}
	}
	return waiting, lockLines(ctx, tx, locked)
}

// saleLockWait bounds the wait for the entries' sale locks. Only a rule write (FOR UPDATE) holds
// them against a give-back, for a moment; but a transaction already holding other resources'
// sale locks (an amendment to another room type) could wait on one in a cycle with it.
const saleLockWait = 200 * time.Millisecond

// boundLockWait bounds the lock waits of savepoint sp by saleLockWait and returns the
// transaction's own bound, to set again once sp's locks are taken (sp's rollback restores it).
func boundLockWait(ctx context.Context, sp pgx.Tx) (was string, err error) {
	err = sp.QueryRow(ctx, `SELECT current_setting('lock_timeout'), set_config('lock_timeout', $1, true)`,
		fmt.Sprint(saleLockWait.Milliseconds())).Scan(&was, new(string))
	return was, err
}

// takeSaleLocks takes the sale locks (FOR KEY SHARE) of resources ids in id order, waiting at most
// saleLockWait, and says whether it got them; a savepoint undoes a timeout.
func takeSaleLocks(ctx context.Context, tx pgx.Tx, ids []int64) (bool, error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer sp.Rollback(ctx) //nolint:errcheck // a no-op once released
	was, err := boundLockWait(ctx, sp)
	if err != nil {
		return false, err
	}
	_, err = sp.Exec(ctx, `SELECT 1 FROM resources WHERE id = ANY($1) ORDER BY id FOR KEY SHARE`, ids)
	if pgCode(err) == lockNotAvailable {
		return false, nil
	}
	if err == nil {
		_, err = sp.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, was)
	}
	if err != nil {
		return false, err
	}
	return true, sp.Commit(ctx)
}

// offerAfterLocks offers units freed by a change that locked units before it could read the
// waitlist (a capacity raise, an amendment's give-back, an early departure): the entries'
// sale locks and their spans' units are then only tried (NOWAIT, out of the one order), and an
// entry whose locks are busy is passed over, keeping its place, for the next give-back. Units
// the change itself locked are free to take.
func offerAfterLocks(ctx context.Context, tx pgx.Tx, freed []line) error {
	waiting, err := waitingFor(ctx, tx, freed)
	if err != nil || len(waiting) == 0 {
		return err
	}
	var locked []waitingEntry
	for _, w := range waiting {
		ok, err := tryLockEntry(ctx, tx, w)
		if err != nil {
			return err
		}
		if ok {
			locked = append(locked, w)
		}
	}
	return offerFreed(ctx, tx, freed, locked)
}

// tryLockEntry takes an entry's sale lock and its span's units without waiting, and says
// whether it got them (a savepoint undoes a refusal).
func tryLockEntry(ctx context.Context, tx pgx.Tx, w waitingEntry) (bool, error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer sp.Rollback(ctx) //nolint:errcheck // a no-op once released
	_, err = sp.Exec(ctx, `SELECT 1 FROM resources WHERE id = $1 FOR KEY SHARE NOWAIT`, w.resourceID)
	if err == nil {
		_, err = sp.Exec(ctx, `SELECT 1 FROM inventory WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3
			ORDER BY unit_start FOR UPDATE NOWAIT`, w.resourceID, w.from, w.to)
	}
	if pgCode(err) == lockNotAvailable {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, sp.Commit(ctx)
}

// offerFreed offers what the give-back of freed left free to the entries waiting, in the order
// they joined: each entry that fits gets its offer. One that does not fit is skipped, keeping
// its place, or, at a site whose rule is wait, stops the offers of its resource. Call it after
// the units are given back, under lockForGiveBack's locks.
func offerFreed(ctx context.Context, tx pgx.Tx, freed []line, waiting []waitingEntry) error {
	if len(waiting) == 0 {
		return nil
	}
	var own string // the transaction's own booking, which the history triggers name
	if err := tx.QueryRow(ctx, `SELECT COALESCE(current_setting('bookflow.booking_id', true), '')`).Scan(&own); err != nil {
		return err
	}
	stopped := map[int64]bool{}
	for _, w := range waiting {
		if stopped[w.resourceID] {
			continue
		}
		offered, fits, err := offerTo(ctx, tx, w)
		if err != nil {
			return err
		}
		switch {
		case !fits && w.fit == domain.WaitlistFitWait:
			stopped[w.resourceID] = true
		case offered:
			if stopped[w.resourceID], err = nothingLeft(ctx, tx, freed, w.resourceID); err != nil {
				return err
			}
		}
	}
	_, err := tx.Exec(ctx, `SELECT set_config('bookflow.booking_id', $1, true)`, own)
	return err
}

// nothingLeft reports whether no unit of resource that freed lines cover has anything left: no
// entry waiting for any of them can fit.
func nothingLeft(ctx context.Context, tx pgx.Tx, freed []line, resourceID int64) (bool, error) {
	var left bool
	for _, l := range freed {
		if l.resourceID != resourceID {
			continue
		}
		err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM inventory i WHERE i.resource_id = $1
			AND i.unit_start >= $2 AND i.unit_start < $3 AND `+unitsLeft+` > 0)`, l.resourceID, l.from, l.to).Scan(&left)
		if err != nil || left {
			return false, err
		}
	}
	return true, nil
}

// offerTo holds the entry's product for it when it fits, as its offer. fits is false when its
// units are short. An entry being changed elsewhere, whose customer is busy (a live offer, a
// hold or an erasure under their hold lock) or whose hold is refused for another reason than
// the units (a sale rule, an order the customer holds for the slot) is passed over (fits true:
// it keeps its place and holds up nobody behind it).
func offerTo(ctx context.Context, tx pgx.Tx, w waitingEntry) (offered, fits bool, err error) {
	var offers int
	err = tx.QueryRow(ctx, `SELECT offers FROM waitlist_entries WHERE id = $1 AND status = 'waiting' FOR UPDATE SKIP LOCKED`,
		w.id).Scan(&offers)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, true, nil // left, offered or closed meanwhile, or being so
	}
	if err != nil {
		return false, false, err
	}
	st, err := lineAvailable(ctx, tx, w.line())
	if err == nil && st.ok && st.allocated { // the free rooms may be other channels' allocations
		st.ok, err = sharesFit(ctx, tx, w.line(), w.channelID, w.agentID)
	}
	if err != nil || !st.ok {
		return false, false, err
	}
	// The customer's hold lock, only tried: the erasure holds it while it reads the customer's
	// bookings, and a hold under a limit while it counts them. The live offer is read after it
	// is won, in a statement of its own that sees every offer committed before.
	var free bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended('holds:' || $1, 0))`,
		w.customerID).Scan(&free); err != nil || !free {
		return false, true, err
	}
	if err := tx.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM bookings WHERE customer_id = $1
			AND waitlist_entry_id IS NOT NULL AND status = 'HOLD')`, w.customerID).Scan(&free); err != nil || !free {
		return false, true, err
	}
	sp, err := tx.Begin(ctx) // a savepoint: an offer refused leaves nothing behind
	if err != nil {
		return false, false, err
	}
	defer sp.Rollback(ctx) //nolint:errcheck // a no-op once released
	// Random past its entry and number: entry ids restart with a database, workflow ids do not.
	bookingID := fmt.Sprintf("%swl%d-%d-%s", domain.BookingIDPrefix, w.id, offers+1, strings.ToLower(rand.Text()[:10]))
	if _, err := sp.Exec(ctx, `SELECT set_config('bookflow.booking_id', $1, true)`, bookingID); err != nil {
		return false, false, err
	}
	// Every lock the offer takes from here is bounded: the customer's own order for the slot,
	// inserted meanwhile and waiting for the units this transaction holds, would otherwise wait
	// in a cycle with it on the one-order-per-slot index. Past the bound it is passed over.
	was, err := boundLockWait(ctx, sp)
	if err != nil {
		return false, false, err
	}
	held, err := holdOffer(ctx, sp, w, bookingID, fmt.Sprintf("waitlist-offer-%d-%d", w.id, offers+1))
	if pgCode(err) == lockNotAvailable {
		return false, true, nil
	}
	if err != nil || !held {
		return false, true, err // the units fit (read above): what refused it was not them
	}
	if _, err := sp.Exec(ctx, `UPDATE bookings SET waitlist_entry_id = $2 WHERE id = $1`, bookingID, w.id); err != nil {
		if pgCode(err) == codeUniqueViolation { // another live offer of the customer's, after all
			return false, true, nil
		}
		return false, false, err
	}
	if _, err := sp.Exec(ctx, `UPDATE waitlist_entries SET status = 'offered', offers = offers + 1, offer_booking_id = $2
		WHERE id = $1`, w.id, bookingID); err != nil {
		return false, false, err
	}
	if _, err := sp.Exec(ctx, `INSERT INTO waitlist_offer_starts (booking_id) VALUES ($1)`, bookingID); err != nil {
		return false, false, err
	}
	if _, err := sp.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, was); err != nil {
		return false, false, err
	}
	return true, true, sp.Commit(ctx)
}

// holdOffer makes the offer's booking, a HOLD for the site's offer time, as a hold of the
// product would: a stay judged by the hotel's sale rules and priced by its plan, or a one-line
// order. held is false when it could not be taken (nothing is then kept: the caller rolls back).
func holdOffer(ctx context.Context, tx pgx.Tx, w waitingEntry, bookingID, key string) (held bool, err error) {
	if w.venueID != "" {
		p := OrderParams{BookingID: bookingID, IdempotencyKey: key, CreatedBy: CreatedByWaitlist, HoldTTL: w.offerFor,
			Request: domain.OrderRequest{CustomerID: w.customerID, VenueID: w.venueID, Lines: []domain.OrderLine{
				{ResourceID: w.code, Start: w.from.UTC(), End: w.to.UTC(), Quantity: w.quantity}}}}
		inserted, err := insertOrder(ctx, tx, p, domain.StatusHold)
		if err != nil || !inserted { // not inserted: the customer holds an order for the slot already
			return false, err
		}
		return takeAndPriceOrder(ctx, tx, p)
	}
	p := ReserveParams{BookingID: bookingID, IdempotencyKey: key, CreatedBy: CreatedByWaitlist, HoldTTL: w.offerFor,
		ChannelID: w.channelID, AgentID: w.agentID,
		Request: domain.HoldRequest{CustomerID: w.customerID, HotelID: w.hotelID, RoomTypeID: w.code,
			Stay:     domain.Stay{CheckIn: domain.DateOf(w.from, time.UTC), CheckOut: domain.DateOf(w.to, time.UTC)},
			Quantity: w.quantity, RatePlan: w.plan}}
	sale, inserted, err := insertBooking(ctx, tx, p, domain.StatusHold)
	if err != nil || !inserted {
		return false, cmp.Or(err, fmt.Errorf("offer %s: a booking of that id exists", bookingID))
	}
	b, err := reserveStay(ctx, tx, p, sale)
	return err == nil && b.Status == domain.StatusHold, err
}

// ClaimOfferStarts leases up to limit offers whose workflow is not started, for lease: another
// worker takes them only once the lease has run out.
func (s *Store) ClaimOfferStarts(ctx context.Context, limit int, lease time.Duration) ([]domain.Booking, error) {
	var ids []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `UPDATE waitlist_offer_starts SET claimed_until = now() + $2 * interval '1 microsecond'
			WHERE booking_id IN (SELECT booking_id FROM waitlist_offer_starts
				WHERE started_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
				ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
			RETURNING booking_id`, limit, lease.Microseconds())
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]domain.Booking, 0, len(ids))
	for _, id := range ids {
		b, err := s.GetBooking(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// OfferStarted records that an offer's workflow runs (or needs none: its booking left HOLD).
func (s *Store) OfferStarted(ctx context.Context, bookingID string) error {
	_, err := s.pool.Exec(ctx, `UPDATE waitlist_offer_starts SET started_at = now() WHERE booking_id = $1`, bookingID)
	return err
}

// OfferStart reports whether booking id is a waitlist offer, and whether its workflow is still
// to start.
func (s *Store) OfferStart(ctx context.Context, bookingID string) (offer, pending bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM waitlist_offer_starts WHERE booking_id = $1),
			EXISTS (SELECT 1 FROM waitlist_offer_starts WHERE booking_id = $1 AND started_at IS NULL)`,
		bookingID).Scan(&offer, &pending)
	return offer, pending, err
}
