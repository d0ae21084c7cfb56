package db

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A pickup is a booking under a group code. It takes its rooms from the block first, night by
// night, then (when the block allows overflow) from the hotel's open stock: drawing moves rooms
// from the block's held count to the booking without the night's reserved count changing, so a
// booking's give-back, which subtracts its whole quantity, first puts its drawn rooms back on
// the block's account (before the cut-off) and so frees nothing that was the block's.

// blockSale is the block a pickup draws from.
type blockSale struct {
	id, code string
	overflow bool
	ratePlan string // sold under this plan; empty: at the nights' negotiated prices
	currency string
	prices   map[time.Time]int64
}

// blockForPickup finds the block a reservation's group code names and judges the reservation
// by it (judgePickup), then reads its negotiated prices. refusal is set, with blk nil, when it
// may not be picked up.
func blockForPickup(ctx context.Context, tx pgx.Tx, p ReserveParams, resourceID int64) (blk *blockSale, refusal string, err error) {
	b, refusal, err := judgePickup(ctx, tx, p, resourceID)
	if err != nil || refusal != "" {
		return nil, refusal, err
	}
	req := p.Request
	if b.ratePlan == "" {
		rows, err := tx.Query(ctx, `SELECT unit_start, price FROM block_nights WHERE block_id = $1 AND unit_start >= $2 AND unit_start < $3`,
			b.id, req.CheckIn.Time(), req.CheckOut.Time())
		if err != nil {
			return nil, "", err
		}
		b.prices = map[time.Time]int64{}
		var start time.Time
		var price int64
		if _, err := pgx.ForEachRow(rows, []any{&start, &price}, func() error { b.prices[start] = price; return nil }); err != nil {
			return nil, "", err
		}
		if len(b.prices) != req.Nights() {
			return nil, "group " + b.code + " has no rooms on some nights of the stay", nil
		}
	}
	return &b, "", nil
}

// judgePickup reads the block a reservation's group code names and judges the reservation by it:
// the room type, a definite block, the channel, the stay within its nights, and the rate plan.
// refusal says why it may not be picked up.
func judgePickup(ctx context.Context, q querier, p ReserveParams, resourceID int64) (b blockSale, refusal string, err error) {
	req := p.Request
	var blockResource int64
	var status domain.BlockStatus
	var direct bool
	var channels []string
	var first, end time.Time
	err = q.QueryRow(ctx, `SELECT b.id, b.group_code, b.resource_id, b.status, b.overflow, COALESCE(b.rate_plan, ''),
			COALESCE(b.currency, ''), b.direct, b.channel_ids,
			(SELECT min(unit_start) FROM block_nights n WHERE n.block_id = b.id),
			(SELECT max(unit_start) + interval '1 day' FROM block_nights n WHERE n.block_id = b.id)
		FROM blocks b WHERE b.hotel_id = $1 AND lower(b.group_code) = lower($2)`, req.HotelID, req.GroupCode).
		Scan(&b.id, &b.code, &blockResource, &status, &b.overflow, &b.ratePlan, &b.currency, &direct, &channels, &first, &end)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, "hotel " + req.HotelID + " has no group " + req.GroupCode, nil
	}
	if err != nil {
		return b, "", err
	}
	group := "group " + b.code
	switch {
	case blockResource != resourceID:
		return b, group + "'s rooms are of another room type", nil
	case status == domain.BlockInquiry:
		return b, group + "'s block is tentative: its rooms are not set aside yet", nil
	case status != domain.BlockDefinite:
		return b, group + "'s block is " + strings.ToLower(string(status)), nil
	case p.ChannelID == "" && !direct:
		return b, group + " is booked through its channels", nil
	case p.ChannelID != "" && !slices.Contains(channels, p.ChannelID):
		return b, group + " cannot be booked through channel " + p.ChannelID, nil
	case req.CheckIn.Time().Before(first) || req.CheckOut.Time().After(end):
		return b, fmt.Sprintf("%s's nights are %s to %s: book the nights outside them without the code", group,
			first.Format(time.DateOnly), end.Format(time.DateOnly)), nil
	case req.RatePlan != "" && req.Plan() != cmpOr(b.ratePlan, domain.DefaultRatePlan):
		return b, group + " is sold at its own rate, not under rate plan " + req.RatePlan, nil
	}
	return b, "", nil
}

// PickupRefusal says why a reservation under a group code would be refused by its block, read
// now and without a lock (empty when it may be tried): the API's answer before it starts a
// workflow, since a pickup passes the sold-out gate. The reservation judges it again.
func (s *Store) PickupRefusal(ctx context.Context, p ReserveParams) (string, error) {
	resourceID, err := roomTypeResource(ctx, s.pool, p.Request.HotelID, p.Request.RoomTypeID)
	if err != nil {
		return "", err
	}
	_, refusal, err := judgePickup(ctx, s.pool, p, resourceID)
	return refusal, err
}

// takePickup takes a group's pickup of l, whose units are locked, as takeUnits does a sale: in
// a savepoint, so a refusal after a partial draw changes nothing. A block with negotiated rates
// prices it at them.
func takePickup(ctx context.Context, tx pgx.Tx, bookingID string, l line, stay domain.Stay, channel string, blk *blockSale) (*domain.Price, string, error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return nil, "", err
	}
	defer sp.Rollback(ctx) //nolint:errcheck // a no-op once released
	// Read again under the units' locks, which every change of a block's status holds: a block
	// cancelled or released since blockForPickup read it sells nothing more.
	var status domain.BlockStatus
	if err := sp.QueryRow(ctx, `SELECT status FROM blocks WHERE id = $1`, blk.id).Scan(&status); err != nil {
		return nil, "", err
	}
	if status != domain.BlockDefinite {
		return nil, "group " + blk.code + "'s block is " + strings.ToLower(string(status)), nil
	}
	rates, currency, refusal, err := takeGroupLine(ctx, sp, bookingID, l, channel, blk, blk.overflow)
	if err != nil || refusal != "" {
		return nil, refusal, err
	}
	if err := sp.Commit(ctx); err != nil {
		return nil, "", err
	}
	if blk.ratePlan == "" {
		price := blk.price(stay, l.quantity)
		return &price, "", nil
	}
	price := priceAt(currency, rates, l.quantity)
	return &price, "", nil
}

// takeGroupLine takes a pickup's line, whose units are locked, from block blk first and then,
// where overflow allows (blk's own rule; always for a retake, whose guest has paid), from the
// open stock as a sale through channel would take it. It returns the rates of the units taken
// and their currency, or why not, with a partial draw left for the caller to undo.
func takeGroupLine(ctx context.Context, tx pgx.Tx, bookingID string, l line, channel string, blk *blockSale, overflow bool) ([]unitRate, string, string, error) {
	drawn, err := drawFromBlock(ctx, tx, bookingID, blk.id, l)
	if err != nil {
		return nil, "", "", err
	}
	if nights := int(l.to.Sub(l.from).Hours() / 24); len(drawn) < nights && !overflow {
		return nil, "", "group " + blk.code + " has no rooms on some nights of the stay", nil
	}
	for _, start := range slices.SortedFunc(maps.Keys(drawn), time.Time.Compare) { // the first short night, every time
		if d := drawn[start]; d < l.quantity && !overflow {
			return nil, "", fmt.Sprintf("group %s has %d rooms left on the night of %s", blk.code, d, start.Format(time.DateOnly)), nil
		}
	}
	st, err := lineAvailable(ctx, tx, l)
	if err == nil && st.ok && st.allocated {
		st.ok, err = takeShares(ctx, tx, bookingID, l, channel, drawn)
	}
	if err != nil {
		return nil, "", "", err
	}
	if !st.ok {
		return nil, "", cmpOr(st.refusal(), "group "+blk.code+"'s block and the hotel's open stock are short"), nil
	}
	rates, err := takeLine(ctx, tx, l, st.units)
	return rates, st.currency, "", err
}

// drawFromBlock moves up to l's quantity of rooms on each of its nights from block blockID's held
// rooms to booking bookingID (booking_blocks), taking them off the nights' reserved count so the
// line's take counts them again as the booking's. It returns what it drew per night.
func drawFromBlock(ctx context.Context, tx pgx.Tx, bookingID, blockID string, l line) (map[time.Time]int, error) {
	rows, err := tx.Query(ctx, `WITH draw AS (
			SELECT unit_start, LEAST(held, $4) AS d FROM block_nights WHERE block_id = $1 AND unit_start >= $2 AND unit_start < $3),
		taken AS (
			UPDATE block_nights n SET held = n.held - draw.d, picked = n.picked + draw.d FROM draw
			WHERE n.block_id = $1 AND n.unit_start = draw.unit_start AND draw.d > 0 RETURNING n.resource_id, n.unit_start, draw.d),
		freed AS (
			UPDATE inventory i SET reserved = i.reserved - t.d FROM taken t
			WHERE i.resource_id = t.resource_id AND i.unit_start = t.unit_start),
		noted AS (
			INSERT INTO booking_blocks (booking_id, block_id, unit_start, quantity) SELECT $5, $1, unit_start, d FROM taken
			ON CONFLICT (booking_id, unit_start) DO UPDATE SET quantity = booking_blocks.quantity + EXCLUDED.quantity)
		SELECT unit_start, d FROM draw`, blockID, l.from, l.to, l.quantity, bookingID)
	if err != nil {
		return nil, err
	}
	drawn := map[time.Time]int{}
	var start time.Time
	var d int
	_, err = pgx.ForEachRow(rows, []any{&start, &d}, func() error { drawn[start] = d; return nil })
	return drawn, err
}

// returnToBlock gives back what booking bookingID drew from its block on the locked nights of l
// beyond keep (per unit; nil keeps nothing): to the block's held rooms while it is definite and
// the night's cut-off has not passed (added to the night's reserved count, which the caller's
// give-back of the whole quantity then leaves as it was), to sale otherwise (counted released).
// It returns what the booking keeps of its block's rooms per night of l.
func returnToBlock(ctx context.Context, tx pgx.Tx, bookingID string, l line, keep map[unitKey]int) (map[time.Time]int, error) {
	var starts []time.Time
	var keeps []int
	for k, q := range keep {
		if k.resourceID == l.resourceID {
			starts, keeps = append(starts, k.start), append(keeps, q)
		}
	}
	rows, err := tx.Query(ctx, `WITH cur AS (
			SELECT bb.unit_start, bb.block_id, bb.quantity, LEAST(bb.quantity, COALESCE(k.keep, 0)) AS keep
			FROM booking_blocks bb LEFT JOIN unnest($4::timestamp[], $5::int[]) AS k(d, keep) ON k.d = bb.unit_start
			WHERE bb.booking_id = $1 AND bb.unit_start >= $2 AND bb.unit_start < $3),
		gone AS (
			DELETE FROM booking_blocks bb USING cur WHERE bb.booking_id = $1 AND bb.unit_start = cur.unit_start AND cur.keep = 0),
		kept AS (
			UPDATE booking_blocks bb SET quantity = cur.keep FROM cur
			WHERE bb.booking_id = $1 AND bb.unit_start = cur.unit_start AND cur.keep > 0 AND cur.keep < cur.quantity),
		back AS (
			UPDATE block_nights n SET picked = n.picked - (cur.quantity - cur.keep),
				held = n.held + CASE WHEN `+blockNightOpen+` THEN cur.quantity - cur.keep ELSE 0 END,
				released = n.released + CASE WHEN `+blockNightOpen+` THEN 0 ELSE cur.quantity - cur.keep END
			FROM cur JOIN blocks b ON b.id = cur.block_id
			WHERE n.block_id = cur.block_id AND n.unit_start = cur.unit_start AND cur.quantity > cur.keep
			RETURNING n.resource_id, n.unit_start, CASE WHEN `+blockNightOpen+` THEN cur.quantity - cur.keep ELSE 0 END AS kept),
		aside AS (
			UPDATE inventory i SET reserved = i.reserved + back.kept FROM back
			WHERE i.resource_id = back.resource_id AND i.unit_start = back.unit_start AND back.kept > 0)
		SELECT unit_start, keep FROM cur`,
		bookingID, l.from, l.to, starts, keeps)
	if err != nil {
		return nil, err
	}
	kept := map[time.Time]int{}
	var start time.Time
	var q int
	_, err = pgx.ForEachRow(rows, []any{&start, &q}, func() error { kept[start] = q; return nil })
	return kept, err
}

// blockNightOpen is whether block night n of block b still takes rooms back: the block is
// definite and the night's cut-off has not passed.
const blockNightOpen = `(b.status = 'DEFINITE' AND n.released_at IS NULL AND (n.release_at IS NULL OR n.release_at > now()))`

// price prices a pickup's stay at its block's negotiated rates.
func (b *blockSale) price(stay domain.Stay, qty int) domain.Price {
	price := domain.Price{Currency: b.currency}
	for d := stay.CheckIn; d.Before(stay.CheckOut); d = d.AddDays(1) {
		amount := b.prices[d.Time()] * int64(qty)
		price.Nights = append(price.Nights, domain.NightRate{Date: d, Amount: amount})
		price.Total += amount
	}
	return price
}

// retakePickup takes a group pickup's units again for a payment that arrived after its hold
// ended, its locked lines (one) drawn from its block first and then from the open stock, and
// reads the booking back into b.
func retakePickup(ctx context.Context, tx pgx.Tx, b *domain.Booking, lines []line) error {
	blk := &blockSale{id: b.BlockID, code: b.GroupCode}
	for _, l := range lines {
		_, _, refusal, err := takeGroupLine(ctx, tx, b.ID, l, b.ChannelID, blk, true)
		if err != nil {
			return err
		}
		if refusal != "" {
			return fmt.Errorf("%w: the units of booking %s were sold or closed after its hold expired", domain.ErrUnavailable, b.ID)
		}
	}
	var err error
	*b, err = getBooking(ctx, tx, b.ID)
	return err
}
