package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Site is a hotel or a venue: what a daily report covers.
type Site struct {
	HotelID string
	VenueID string
}

// Money channels of the daily report.
const (
	ChannelOnline = "online" // through the payment provider: payments and refunds as recorded
	ChannelDesk   = "desk"   // confirmed at the front desk, paid there at the booking's price
	// ChannelAccount: sold by a channel's agent and confirmed on the channel's account, at the
	// booking's price; no money moved here, the channel owes it.
	ChannelAccount = "account"
)

// ReportItem is one movement of money in a daily report: a payment (positive) or a refund
// (negative), in minor units.
type ReportItem struct {
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"` // payment or refund
	Channel   string    `json:"channel"`
	ChannelID string    `json:"channelId,omitempty"` // the sales channel of an account item
	BookingID string    `json:"bookingId"`
	PaymentID string    `json:"paymentId,omitempty"`
	RefundID  string    `json:"refundId,omitempty"`
	Amount    int64     `json:"amount"`
	Currency  string    `json:"currency"`
}

// ReportTotal sums a day's items of one channel (and sales channel, for account) and currency.
// Paid and Refunded are both positive; Net is Paid less Refunded.
type ReportTotal struct {
	Channel   string `json:"channel"`
	ChannelID string `json:"channelId,omitempty"`
	Currency  string `json:"currency"`
	Payments  int    `json:"payments"`
	Paid      int64  `json:"paid"`
	Refunds   int    `json:"refunds"`
	Refunded  int64  `json:"refunded"`
	Net       int64  `json:"net"`
}

// DailyReport is a site's money over one local day.
type DailyReport struct {
	Day    domain.Span `json:"day"`
	Orders int         `json:"orders"` // bookings made that day
	// OrdersByStatus counts those bookings by the status they are in now.
	OrdersByStatus map[string]int `json:"ordersByStatus"`
	Totals         []ReportTotal  `json:"totals"`
	Items          []ReportItem   `json:"items"`
}

// DailyReport lists the money a site took and gave back over day (a local day as real time):
// succeeded provider payments and refunds as recorded (each counts when it succeeded), and
// bookings confirmed without a payment at their price, from the state changes the database
// recorded (counted when they were confirmed, at the price they had then; an amendment of one
// since then counts its difference when it was applied; given back when such a booking is cancelled):
// at the desk, or on a sales channel's account when an agent sold it; with totals per channel
// and currency that are the sums of the items. A payment for a booking
// bookflow never had belongs to no site (the invariant checker reports it).
func (s *Store) DailyReport(ctx context.Context, site Site, day domain.Span) (DailyReport, error) {
	r := DailyReport{Day: day, OrdersByStatus: map[string]int{}, Totals: []ReportTotal{}}
	const ofSite = `FROM bookings b JOIN resources r ON r.id = b.resource_id
		WHERE (($1 <> '' AND r.hotel_id = $1) OR ($2 <> '' AND b.venue_id = $2))`
	rows, err := s.pool.Query(ctx, `WITH site AS (SELECT b.id, b.total, b.currency, b.payment_id, b.channel_id `+ofSite+`)
		SELECT p.succeeded_at, 'payment', 'online', '', p.booking_id, p.payment_id, '', p.amount, p.currency
		FROM payments p JOIN site ON site.id = p.booking_id
		WHERE p.status = 'succeeded' AND p.succeeded_at >= $3 AND p.succeeded_at < $4
		UNION ALL
		SELECT f.updated_at, 'refund', 'online', '', f.booking_id, f.payment_id, f.id, -f.amount, f.currency
		FROM refunds f JOIN site ON site.id = f.booking_id
		WHERE f.status = 'succeeded' AND f.updated_at >= $3 AND f.updated_at < $4
		UNION ALL
		SELECT c.at, CASE WHEN c.to_status = 'CONFIRMED' THEN 'payment' ELSE 'refund' END,
			CASE WHEN site.channel_id IS NULL THEN 'desk' ELSE 'account' END, COALESCE(site.channel_id, ''), c.booking_id, '', '',
			-- confirmed at the price it had then: amendments applied since move money on their own day
			CASE WHEN c.to_status = 'CONFIRMED' THEN site.total - COALESCE((SELECT sum(m.difference) FROM booking_amendments m
				WHERE m.booking_id = c.booking_id AND m.status = 'APPLIED' AND m.decided_at > c.at), 0)
			ELSE -site.total END, site.currency
		FROM booking_changes c JOIN site ON site.id = c.booking_id
		WHERE site.payment_id IS NULL AND c.at >= $3 AND c.at < $4 AND (
			(c.from_status = 'HOLD' AND c.to_status = 'CONFIRMED') OR
			(c.from_status IN ('CONFIRMED', 'COMPLETED') AND c.to_status = 'CANCELLED'))
		UNION ALL
		SELECT m.decided_at, CASE WHEN m.difference > 0 THEN 'payment' ELSE 'refund' END,
			CASE WHEN site.channel_id IS NULL THEN 'desk' ELSE 'account' END, COALESCE(site.channel_id, ''), m.booking_id, '', '',
			m.difference, m.currency
		FROM booking_amendments m JOIN site ON site.id = m.booking_id
		WHERE site.payment_id IS NULL AND m.status = 'APPLIED' AND m.difference <> 0 AND m.decided_at >= $3 AND m.decided_at < $4
			AND m.decided_at > (SELECT min(c.at) FROM booking_changes c
				WHERE c.booking_id = m.booking_id AND c.from_status = 'HOLD' AND c.to_status = 'CONFIRMED')
		ORDER BY 1, 5`, site.HotelID, site.VenueID, day.Start, day.End)
	if err != nil {
		return r, err
	}
	r.Items, err = pgx.CollectRows(rows, pgx.RowToStructByPos[ReportItem])
	if err != nil {
		return r, err
	}
	r.Items = orEmpty(r.Items)
	for _, it := range r.Items {
		i := len(r.Totals)
		for j, t := range r.Totals {
			if t.Channel == it.Channel && t.ChannelID == it.ChannelID && t.Currency == it.Currency {
				i = j
			}
		}
		if i == len(r.Totals) {
			r.Totals = append(r.Totals, ReportTotal{Channel: it.Channel, ChannelID: it.ChannelID, Currency: it.Currency})
		}
		t := &r.Totals[i]
		if it.Kind == "refund" {
			t.Refunds, t.Refunded = t.Refunds+1, t.Refunded-it.Amount
		} else {
			t.Payments, t.Paid = t.Payments+1, t.Paid+it.Amount
		}
		t.Net = t.Paid - t.Refunded
	}
	rows, err = s.pool.Query(ctx, `SELECT b.status, count(*) `+ofSite+` AND b.created_at >= $3 AND b.created_at < $4
		GROUP BY 1`, site.HotelID, site.VenueID, day.Start, day.End)
	if err != nil {
		return r, err
	}
	counts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Status string
		N      int
	}])
	for _, c := range counts {
		r.OrdersByStatus[c.Status] = c.N
		r.Orders += c.N
	}
	return r, err
}
