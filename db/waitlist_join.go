package db

import (
	"context"
	"fmt"
	"time"

	"github.com/bookflow/bookflow/domain"
)

// joinSoldOut joins a waitlist in one statement when its product is sold out, the flash sale's
// case: the product resolved, its window, plan and units read, and the entry written only when
// no unit can be taken, together (done false when units are free: joinJudged then judges the
// channel's shares and the sale rules). One round trip: the entry is answered as written.
func (s *Store) joinSoldOut(ctx context.Context, j WaitlistJoin) (e domain.WaitlistEntry, joined, done bool, err error) {
	req := j.Request
	site, code, from, to := req.HotelID, req.RoomTypeID, req.CheckIn.Time(), req.CheckOut.Time()
	if req.VenueID != "" {
		site, code, from, to = req.VenueID, req.ResourceID, req.Start.UTC(), req.End.UTC()
	}
	plan := planOf(req)
	var resource, entry *int64
	var open, free, beyond, known *bool
	var supplier *string
	var created *time.Time
	var place *int
	err = s.pool.QueryRow(ctx, `WITH r AS (
			SELECT r.id, COALESCE(h.supplier_id, '') AS supplier,
				`+windowOpen("$2::timestamp")+` AS open
			FROM resources r LEFT JOIN hotels h ON h.id = r.hotel_id
			WHERE CASE WHEN $6 THEN r.venue_id = $1 ELSE r.hotel_id = $1 END AND r.code = $5),
		a AS (SELECT `+lineTakeable+` AS free, COALESCE(bool_or(i.total < $4), false) AS beyond FROM inventory i
			WHERE i.resource_id = (SELECT id FROM r) AND i.unit_start >= $2 AND i.unit_start < $3),
		p AS (SELECT $11::text IS NULL OR EXISTS (SELECT 1 FROM rate_plans WHERE hotel_id = $1 AND code = $11) AS known),
		ins AS (INSERT INTO waitlist_entries (customer_id, created_by, channel_id, agent_id, resource_id, unit_from, unit_to,
				quantity, rate_plan)
			SELECT $7, $8, $9, $10, r.id, $2, $3, $4, $11 FROM r, a, p
			WHERE r.open AND r.supplier = '' AND NOT a.free AND NOT a.beyond AND p.known
			ON CONFLICT (customer_id, resource_id, unit_from, unit_to, COALESCE(rate_plan, '')) WHERE status <> 'closed' DO NOTHING
			RETURNING id, created_at)
		SELECT (SELECT id FROM r), (SELECT open FROM r), (SELECT supplier FROM r), (SELECT free FROM a),
			(SELECT beyond FROM a), (SELECT known FROM p), (SELECT id FROM ins), (SELECT created_at FROM ins),
			-- every waiting entry over its units joined before it (the statement does not see it)
			CASE WHEN EXISTS (SELECT 1 FROM ins) THEN (SELECT count(*) + 1 FROM waitlist_entries o
				WHERE o.resource_id = (SELECT id FROM r) AND o.status = 'waiting' AND o.unit_from < $3 AND o.unit_to > $2) END`,
		site, from, to, req.Quantity, code, req.VenueID != "", req.CustomerID, j.CreatedBy, nullable(j.ChannelID),
		nullable(j.AgentID), plan).Scan(&resource, &open, &supplier, &free, &beyond, &known, &entry, &created, &place)
	switch {
	case pgCode(err) == codeForeignKeyViolation:
		return e, false, true, fmt.Errorf("%w: the channel %q or agent %q is not known", domain.ErrInvalid, j.ChannelID, j.AgentID)
	case err != nil:
		return e, false, true, err
	case resource == nil && req.VenueID != "":
		return e, false, true, fmt.Errorf("%w: venue %q has no resource %q", domain.ErrNotFound, req.VenueID, req.ResourceID)
	case resource == nil:
		return e, false, true, fmt.Errorf("%w: hotel %s has no room type %q", domain.ErrNotFound, req.HotelID, req.RoomTypeID)
	case !*known:
		return e, false, true, fmt.Errorf("%w: hotel %s has no rate plan %q", domain.ErrNotFound, req.HotelID, req.RatePlan)
	case *supplier != "" || !*open:
		return e, false, true, checkWaitlistWindow(ctx, s.pool, req, line{resourceID: *resource, from: from})
	case *beyond: // it could never be offered, and under a fit rule of wait would hold up the line
		return e, false, true, fmt.Errorf("%w: quantity %d is more than the product has on some of its units", domain.ErrInvalid, req.Quantity)
	case *free:
		return e, false, false, nil // its units are free: judged with the channel's shares and the rules
	case entry == nil: // already waiting: that entry
		id, err := openEntryID(ctx, s.pool, req.CustomerID, line{resourceID: *resource, from: from, to: to}, plan)
		if err != nil {
			return e, false, true, err
		}
		entry = &id
	default: // the entry as written, without reading it again
		e = domain.WaitlistEntry{ID: *entry, WaitlistRequest: req, CreatedBy: j.CreatedBy, ChannelID: j.ChannelID,
			AgentID: j.AgentID, Status: domain.WaitlistWaiting, Place: *place, CreatedAt: *created}
		if plan == nil {
			e.RatePlan = ""
		}
		if req.VenueID != "" {
			e.Start, e.End = from, to
		}
		return e, true, true, nil
	}
	e, err = getWaitlistEntry(ctx, s.pool, *entry)
	return e, false, true, err
}
