package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A waitlist entry is a row (docs/waitlists.md): joining writes one row behind the product's
// sold-out answer, and the transaction that frees units offers them (waitlist_offers.go).

// WaitlistJoin is one customer joining a product's waitlist.
type WaitlistJoin struct {
	Request domain.WaitlistRequest
	// CreatedBy is who asks: the customer, the staff member or the agent joining for them.
	CreatedBy string
	// ChannelID and AgentID: an agent's entry, offered on its channel (empty: a direct one).
	ChannelID, AgentID string
}

// ErrOnSale refuses joining the waitlist of a product that can be held now.
var ErrOnSale = fmt.Errorf("%w: the product is on sale: hold it instead of joining its waitlist", domain.ErrConflict)

// JoinWaitlist adds the customer to the product's waitlist and returns the entry with its
// place. A customer already waiting for the same product gets that entry (joined false). It
// fails with ErrNotFound for an unknown product or plan, ErrInvalid for a product whose sale
// window has passed or an unknown channel or agent, and ErrOnSale while the product can be held.
func (s *Store) JoinWaitlist(ctx context.Context, j WaitlistJoin) (e domain.WaitlistEntry, joined bool, err error) {
	if e, joined, done, err := s.joinSoldOut(ctx, j); done || err != nil {
		return e, joined, err
	}
	return s.joinJudged(ctx, j)
}

// joinJudged is JoinWaitlist for a product whose units may be free: its availability, for the
// channel, and its sale rules judged in Go before the entry is written. joinSoldOut has checked
// the product, its plan and its window just before.
func (s *Store) joinJudged(ctx context.Context, j WaitlistJoin) (e domain.WaitlistEntry, joined bool, err error) {
	req := j.Request
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		l, err := waitlistLine(ctx, tx, req)
		if err != nil {
			return err
		}
		plan := planOf(req)
		if onSale, err := canHoldNow(ctx, tx, j, l); err != nil || onSale {
			if err == nil {
				err = ErrOnSale
			}
			return err
		}
		var id int64
		err = tx.QueryRow(ctx, `INSERT INTO waitlist_entries (customer_id, created_by, channel_id, agent_id, resource_id,
				unit_from, unit_to, quantity, rate_plan)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (customer_id, resource_id, unit_from, unit_to, COALESCE(rate_plan, '')) WHERE status <> 'closed' DO NOTHING
			RETURNING id`, req.CustomerID, j.CreatedBy, nullable(j.ChannelID), nullable(j.AgentID), l.resourceID,
			l.from, l.to, l.quantity, plan).Scan(&id)
		switch {
		case errors.Is(err, pgx.ErrNoRows): // already waiting: that entry
			joined = false
			id, err = openEntryID(ctx, tx, req.CustomerID, l, plan)
		case pgCode(err) == codeForeignKeyViolation:
			return fmt.Errorf("%w: the channel %q or agent %q is not known", domain.ErrInvalid, j.ChannelID, j.AgentID)
		default:
			joined = true
		}
		if err != nil {
			return err
		}
		e, err = getWaitlistEntry(ctx, tx, id)
		return err
	})
	return e, joined, err
}

// planOf is the plan an entry names: nil for the hotel's default plan (and a venue's product).
func planOf(req domain.WaitlistRequest) *string {
	if req.HotelID != "" && req.RatePlan != "" && req.RatePlan != domain.DefaultRatePlan {
		return &req.RatePlan
	}
	return nil
}

// openEntryID is the id of the customer's open entry for the product of l under plan.
func openEntryID(ctx context.Context, q querier, customerID string, l line, plan *string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM waitlist_entries WHERE customer_id = $1 AND resource_id = $2
		AND unit_from = $3 AND unit_to = $4 AND COALESCE(rate_plan, '') = COALESCE($5, '') AND status <> 'closed'`,
		customerID, l.resourceID, l.from, l.to, plan).Scan(&id)
	return id, err
}

// windowOpen is SQL for whether a product starting at the timestamp from (units in the hotel's
// local time or a venue's UTC) may still be sold, with r its resource and h its hotel (joined
// LEFT): its check-in day has not passed at the hotel, its slot has not begun.
func windowOpen(from string) string {
	return `CASE WHEN r.hotel_id IS NOT NULL THEN ` + from + ` >= date_trunc('day', now() AT TIME ZONE h.time_zone)
		ELSE ` + from + ` > now() AT TIME ZONE 'UTC' END`
}

// waitlistLine resolves the product a request waits for to its resource and units (a stay's
// nights from midnight to midnight, a slot in UTC).
func waitlistLine(ctx context.Context, q querier, req domain.WaitlistRequest) (line, error) {
	if req.HotelID != "" {
		id, err := roomTypeResource(ctx, q, req.HotelID, req.RoomTypeID)
		return line{resourceID: id, from: req.CheckIn.Time(), to: req.CheckOut.Time(), quantity: req.Quantity}, err
	}
	r, err := getVenueResource(ctx, q, req.VenueID, req.ResourceID, "")
	return line{resourceID: r.id, from: req.Start.UTC(), to: req.End.UTC(), quantity: req.Quantity}, err
}

// checkWaitlistWindow refuses a product that can no longer be sold: a stay whose check-in day
// has passed at the hotel, a slot that has begun. A supplier's hotel has no waitlist.
func checkWaitlistWindow(ctx context.Context, tx querier, req domain.WaitlistRequest, l line) error {
	var open bool
	var supplier string
	err := tx.QueryRow(ctx, `SELECT `+windowOpen("$2::timestamp")+`, COALESCE(h.supplier_id, '')
		FROM resources r LEFT JOIN hotels h ON h.id = r.hotel_id WHERE r.id = $1`, l.resourceID, l.from).Scan(&open, &supplier)
	if err == nil && supplier != "" {
		// Its supplier confirms every stay after the hold, which an offer made inside a
		// give-back's transaction cannot wait for.
		return fmt.Errorf("%w: hotel %s is sold through supplier %s, whose rooms have no waitlist", domain.ErrInvalid, req.HotelID, supplier)
	}
	if err == nil && !open {
		if req.HotelID != "" {
			return fmt.Errorf("%w: checkIn %s has passed at the hotel", domain.ErrInvalid, req.CheckIn)
		}
		return fmt.Errorf("%w: the slot starting %s has begun", domain.ErrInvalid, req.Start.UTC().Format(time.RFC3339))
	}
	return err
}

// canHoldNow reports whether the product could be held now: its units are free (as a hold
// would find them, unlocked) and, at a hotel, its sale rules allow the sale. A product free but
// refused by a rule (a stop-sell) may be waited for: the rule's end offers it.
func canHoldNow(ctx context.Context, tx pgx.Tx, j WaitlistJoin, l line) (bool, error) {
	st, err := lineAvailable(ctx, tx, l)
	if err == nil && st.ok && st.allocated { // free rooms may all be other channels' allocations
		st.ok, err = sharesFit(ctx, tx, l, j.ChannelID, j.AgentID)
	}
	if err != nil || !st.ok || j.Request.HotelID == "" {
		return st.ok, err
	}
	req := j.Request
	v, err := judgeSale(ctx, tx, domain.SaleContext{HotelID: req.HotelID, RoomTypeID: req.RoomTypeID, RatePlan: req.RatePlan,
		ChannelID: j.ChannelID, AgentID: j.AgentID, Stay: req.Stay})
	return v.Allowed, err
}

// LeaveWaitlist closes a customer's waiting entry (left) and returns it. An entry with a live
// offer is left by declining the offer (ErrConflict names it); one already closed is returned
// as it is.
func (s *Store) LeaveWaitlist(ctx context.Context, customerID string, entryID int64) (domain.WaitlistEntry, error) {
	var e domain.WaitlistEntry
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var status string
		var offer *string
		err := tx.QueryRow(ctx, `SELECT status, offer_booking_id FROM waitlist_entries WHERE id = $1 AND customer_id = $2 FOR UPDATE`,
			entryID, customerID).Scan(&status, &offer)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: waitlist entry %d", domain.ErrNotFound, entryID)
		}
		if err != nil {
			return err
		}
		switch status {
		case domain.WaitlistOffered:
			return fmt.Errorf("%w: waitlist entry %d has a live offer, booking %s: decline it by cancelling that booking",
				domain.ErrConflict, entryID, *offer)
		case domain.WaitlistWaiting:
			if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'closed', closed_reason = 'left', closed_at = now()
				WHERE id = $1`, entryID); err != nil {
				return err
			}
		}
		e, err = getWaitlistEntry(ctx, tx, entryID)
		return err
	})
	return e, err
}

// WaitlistEntry returns one entry (ErrNotFound when there is none).
func (s *Store) WaitlistEntry(ctx context.Context, id int64) (domain.WaitlistEntry, error) {
	return getWaitlistEntry(ctx, s.pool, id)
}

// CustomerWaitlist returns a customer's entries, open ones first, then the 50 last closed, each
// with its place or offer.
func (s *Store) CustomerWaitlist(ctx context.Context, customerID string) ([]domain.WaitlistEntry, error) {
	return queryWaitlist(ctx, s.pool, `WHERE e.customer_id = $1 AND (e.status <> 'closed' OR e.id IN (
			SELECT id FROM waitlist_entries WHERE customer_id = $1 AND status = 'closed' ORDER BY id DESC LIMIT 50))
		ORDER BY e.status = 'closed', e.id`, customerID)
}

// ProductWaitlist returns the open entries of one resource whose units overlap [from, to), in
// the order they are offered. agentID, when set, keeps an agent's own entries only.
func (s *Store) ProductWaitlist(ctx context.Context, req domain.WaitlistRequest, agentID string) ([]domain.WaitlistEntry, error) {
	l, err := waitlistLine(ctx, s.pool, req)
	if err != nil {
		return nil, err
	}
	return queryWaitlist(ctx, s.pool, `WHERE e.resource_id = $1 AND e.status <> 'closed' AND e.unit_from < $3 AND e.unit_to > $2
			AND ($4 = '' OR e.agent_id = $4)
		ORDER BY e.id LIMIT 1000`, l.resourceID, l.from, l.to, agentID)
}

func getWaitlistEntry(ctx context.Context, q querier, id int64) (domain.WaitlistEntry, error) {
	es, err := queryWaitlist(ctx, q, `WHERE e.id = $1`, id)
	if err == nil && len(es) == 0 {
		err = fmt.Errorf("%w: waitlist entry %d", domain.ErrNotFound, id)
	}
	if err != nil {
		return domain.WaitlistEntry{}, err
	}
	return es[0], nil
}

// queryWaitlist reads entries with the product they wait for, their place among the waiting
// entries of the same resource over any of their units, and their live offer's expiry.
func queryWaitlist(ctx context.Context, q querier, where string, args ...any) ([]domain.WaitlistEntry, error) {
	rows, err := q.Query(ctx, `SELECT e.id, e.customer_id, e.created_by, COALESCE(e.channel_id, ''), COALESCE(e.agent_id, ''),
			COALESCE(r.hotel_id, ''), COALESCE(r.venue_id, ''), r.code, e.unit_from, e.unit_to, e.quantity,
			COALESCE(e.rate_plan, ''), e.status, e.offers, COALESCE(e.offer_booking_id, ''), COALESCE(e.closed_reason, ''),
			e.created_at, e.closed_at,
			CASE WHEN e.status = 'waiting' THEN (SELECT count(*) FROM waitlist_entries o WHERE o.resource_id = e.resource_id
				AND o.status = 'waiting' AND o.id <= e.id AND o.unit_from < e.unit_to AND o.unit_to > e.unit_from) ELSE 0 END,
			CASE WHEN e.status = 'offered' THEN (SELECT b.expires_at FROM bookings b WHERE b.id = e.offer_booking_id) END
		FROM waitlist_entries e JOIN resources r ON r.id = e.resource_id `+where, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.WaitlistEntry, error) {
		var e domain.WaitlistEntry
		var code string
		var from, to time.Time
		err := row.Scan(&e.ID, &e.CustomerID, &e.CreatedBy, &e.ChannelID, &e.AgentID, &e.HotelID, &e.VenueID, &code,
			&from, &to, &e.Quantity, &e.RatePlan, &e.Status, &e.Offers, &e.OfferBookingID, &e.ClosedReason,
			&e.CreatedAt, &e.ClosedAt, &e.Place, &e.OfferExpiresAt)
		if e.HotelID != "" {
			e.RoomTypeID, e.Stay = code, domain.Stay{CheckIn: domain.DateOf(from, time.UTC), CheckOut: domain.DateOf(to, time.UTC)}
		} else {
			e.ResourceID, e.Start, e.End = code, from.UTC(), to.UTC()
		}
		return e, err
	})
}

// SetWaitlistSettings sets the waitlist rules of a hotel (venue false) or a venue; offers made
// before keep their time. ErrNotFound for an unknown site.
func (s *Store) SetWaitlistSettings(ctx context.Context, siteID string, venue bool, set domain.WaitlistSettings) error {
	if err := set.Validate(); err != nil {
		return err
	}
	table := "hotels"
	if venue {
		table = "venues"
	}
	tag, err := s.pool.Exec(ctx, `UPDATE `+table+` SET waitlist_offer_seconds = $2, waitlist_fit = $3 WHERE id = $1`,
		siteID, set.OfferSeconds, set.Fit)
	if err == nil && tag.RowsAffected() == 0 {
		err = fmt.Errorf("%w: %s %s", domain.ErrNotFound, table[:len(table)-1], siteID)
	}
	return err
}

// WaitlistSettings returns the waitlist rules of a hotel (venue false) or a venue.
func (s *Store) WaitlistSettings(ctx context.Context, siteID string, venue bool) (domain.WaitlistSettings, error) {
	table := "hotels"
	if venue {
		table = "venues"
	}
	var set domain.WaitlistSettings
	err := s.pool.QueryRow(ctx, `SELECT waitlist_offer_seconds, waitlist_fit FROM `+table+` WHERE id = $1`, siteID).
		Scan(&set.OfferSeconds, &set.Fit)
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("%w: %s %s", domain.ErrNotFound, table[:len(table)-1], siteID)
	}
	return set, err
}

// eraseWaitlist closes the customer's waiting entries (erased) and names the pseudonym in every
// one of theirs; it says how many it changed. An entry with a live offer has an open booking,
// which the erasure refuses before this.
func eraseWaitlist(ctx context.Context, tx pgx.Tx, customerID, pseudonym string) (int64, error) {
	if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'closed', closed_reason = 'erased', closed_at = now()
		WHERE customer_id = $1 AND status = 'waiting'`, customerID); err != nil {
		return 0, err
	}
	tag, err := tx.Exec(ctx, `UPDATE waitlist_entries SET customer_id = $2,
		created_by = CASE WHEN created_by = $1 THEN $2 ELSE created_by END WHERE customer_id = $1`, customerID, pseudonym)
	return tag.RowsAffected(), err
}

// CloseLapsedEntries closes the waiting entries whose product can no longer be sold
// (window_closed): a stay whose check-in day has passed at its hotel, a slot that has begun. It
// says how many it closed.
func (s *Store) CloseLapsedEntries(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE waitlist_entries e SET status = 'closed', closed_reason = 'window_closed', closed_at = now()
		FROM resources r LEFT JOIN hotels h ON h.id = r.hotel_id
		WHERE r.id = e.resource_id AND e.status = 'waiting' AND NOT `+windowOpen("e.unit_from"))
	return tag.RowsAffected(), err
}

// OfferWaitlist offers what is free of a product to its waitlist now, by the same rules as a
// give-back (the entries over its units in the order they joined, the site's fit, one live offer
// per customer): for the desk, when units are free that no give-back offered (an entry that
// joined while one ran, or a site whose fit rule waits). It returns the entries it offered.
func (s *Store) OfferWaitlist(ctx context.Context, req domain.WaitlistRequest) ([]domain.WaitlistEntry, error) {
	offered := []domain.WaitlistEntry{} // none offered is an empty list, never null
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		l, err := waitlistLine(ctx, tx, req)
		if err != nil {
			return err
		}
		waiting, err := lockForGiveBack(ctx, tx, []line{l})
		if err != nil {
			return err
		}
		if err := offerFreed(ctx, tx, []line{l}, waiting); err != nil {
			return err
		}
		for _, w := range waiting {
			e, err := getWaitlistEntry(ctx, tx, w.id)
			if err != nil {
				return err
			}
			if e.Status == domain.WaitlistOffered {
				offered = append(offered, e)
			}
		}
		return nil
	})
	return offered, err
}
