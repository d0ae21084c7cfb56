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
	ChannelOnline = "online" // through the payment provider, and refunds of those payments settled by hand
	ChannelDesk   = "desk"   // taken at the front desk by one of its methods, and given back there
	// ChannelAccount: sold by a channel's agent and confirmed on the channel's account, at the
	// booking's price; no money moved here, the channel owes it.
	ChannelAccount = "account"
)

// MethodAccount is the method of an account item: owed by the sales channel, not taken.
const MethodAccount = "account"

// ReportItem is one movement of money in a daily report: a payment (positive) or a refund
// (negative), in minor units. Method is how the money moved: the payment's or refund's own
// (provider, cash, card_terminal, bank_transfer, other), or account.
type ReportItem struct {
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"` // payment or refund
	Channel   string    `json:"channel"`
	ChannelID string    `json:"channelId,omitempty"` // the sales channel of an account item
	Method    string    `json:"method"`
	BookingID string    `json:"bookingId"`
	PaymentID string    `json:"paymentId,omitempty"`
	RefundID  string    `json:"refundId,omitempty"`
	Amount    int64     `json:"amount"`
	Currency  string    `json:"currency"`
	Reference string    `json:"reference,omitempty"` // finance's reference of a refund settled by hand
	// TakenBy is who took a desk payment, or recorded a refund at the desk or by hand.
	TakenBy string `json:"takenBy,omitempty"`
	// Guest is the name the booking is shown by (GuestNames); Reason a refund's; Note what the
	// desk wrote on a payment it took (issue 39: finance reads who and why).
	Reason string `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"`
	Guest  string `json:"guest,omitempty" db:"-"`
}

// ReportTotal sums a day's items of one channel (and sales channel, for account), method and
// currency. Paid and Refunded are both positive; Net is Paid less Refunded.
type ReportTotal struct {
	Channel   string `json:"channel"`
	ChannelID string `json:"channelId,omitempty"`
	Method    string `json:"method"`
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

// DailyReport lists the money a site took and gave back over day (a local day as real time),
// one item per entry of the money ledger that moved money or a channel's promise of it, each
// counted when it was posted: a payment when it was captured, a refund when it was given back. A
// provider payment and its refunds are online, a refund of one settled by hand too (by its own
// method, with its reference); a desk payment and its refunds are the desk's, by their method. A
// channel's sale confirmed on its account without a payment is the channel's (account): its
// price when confirmed, an amendment's difference when applied, what the channel still owed when
// it was cancelled. A booking confirmed by staff without money moved none and has no item. Totals
// per channel, method and currency are the sums of the items. A payment for a booking bookflow
// never had belongs to no site (the invariant checker reports it).
//
// The items are read from the day's entries (money_ledger_at), each looked up in its booking to
// keep the site's: the report of a day reads that day's entries, however many bookings the site
// has and however long the ledger is.
func (s *Store) DailyReport(ctx context.Context, site Site, day domain.Span) (DailyReport, error) {
	r := DailyReport{Day: day, OrdersByStatus: map[string]int{}, Totals: []ReportTotal{}}
	q := s.reads(ctx) // both parts of the report from one node
	rows, err := q.Query(ctx, dailyReportItems, site.HotelID, site.VenueID, day.Start, day.End)
	if err != nil {
		return r, err
	}
	r.Items, err = pgx.CollectRows(rows, pgx.RowToStructByPos[ReportItem])
	if err != nil {
		return r, err
	}
	r.Items = orEmpty(r.Items)
	ids := make([]string, len(r.Items))
	for i, it := range r.Items {
		ids[i] = it.BookingID
	}
	names, err := s.GuestNames(ctx, ids) // one read for the day's bookings, not one an entry
	if err != nil {
		return r, err
	}
	for i := range r.Items {
		r.Items[i].Guest = names[r.Items[i].BookingID]
	}
	for _, it := range r.Items {
		i := len(r.Totals)
		for j, t := range r.Totals {
			if t.Channel == it.Channel && t.ChannelID == it.ChannelID && t.Method == it.Method && t.Currency == it.Currency {
				i = j
			}
		}
		if i == len(r.Totals) {
			r.Totals = append(r.Totals, ReportTotal{Channel: it.Channel, ChannelID: it.ChannelID, Method: it.Method,
				Currency: it.Currency})
		}
		t := &r.Totals[i]
		if it.Kind == "refund" {
			t.Refunds, t.Refunded = t.Refunds+1, t.Refunded-it.Amount
		} else {
			t.Payments, t.Paid = t.Payments+1, t.Paid+it.Amount
		}
		t.Net = t.Paid - t.Refunded
	}
	rows, err = q.Query(ctx, `SELECT b.status, count(*) FROM bookings b JOIN resources r ON r.id = b.resource_id
		WHERE `+ofSite+` AND b.created_at >= $3 AND b.created_at < $4
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

// ofSite is the condition that booking b (joined to its resource r) is of the site $1 (a hotel)
// or $2 (a venue).
const ofSite = `(($1 <> '' AND r.hotel_id = $1) OR ($2 <> '' AND b.venue_id = $2))`

// dailyReportItems reads the items of the site $1 or $2 posted in [$3, $4): the ledger's entries
// of that time of the kinds the report shows (by money_ledger_at), each kept when its booking,
// looked up by its key, is the site's. The lateral LIMIT 1 keeps it one lookup an entry: joined to
// the site's bookings instead, the query listed every booking of the site first (100,000 of one
// hotel, for a day of 2,700 entries in BenchmarkOverAMillionLedgerEntries).
const dailyReportItems = `WITH day AS (SELECT l.* FROM money_ledger l
		CROSS JOIN LATERAL (SELECT FROM bookings b JOIN resources r ON r.id = b.resource_id
			WHERE b.id = l.booking_id AND ` + ofSite + ` LIMIT 1) site
		WHERE l.at >= $3 AND l.at < $4
			AND l.kind IN ('captured', 'refund_succeeded', 'settled_by_hand', 'sold_on_account', 'on_account_reversed'))
	-- money that moved, from the ledger: a payment when it was captured, a refund when it was given back
	SELECT l.at, 'payment', CASE WHEN l.method = 'provider' THEN 'online' ELSE 'desk' END, '', l.method,
		l.booking_id, l.payment_id, '', l.amount, l.currency, '', COALESCE(l.actor, ''), '',
		COALESCE((SELECT p.note FROM payments p WHERE p.payment_id = l.payment_id), '')
	FROM day l
	WHERE l.kind = 'captured'
	UNION ALL
	-- a refund is in the channel of the payment it gives back, by its own method
	SELECT l.at, 'refund', CASE WHEN COALESCE(p.method, 'provider') = 'provider' THEN 'online' ELSE 'desk' END, '',
		l.method, l.booking_id, l.payment_id, l.ref, -l.amount, l.currency, COALESCE(f.reference, ''), COALESCE(l.actor, ''),
		COALESCE(f.reason, ''), ''
	FROM day l LEFT JOIN payments p ON p.payment_id = l.payment_id
		LEFT JOIN refunds f ON f.id = l.ref
	WHERE l.kind IN ('refund_succeeded', 'settled_by_hand')
	UNION ALL
	-- a channel's promise, from the ledger: sold to its account (channel:<id>), or moved back from it
	SELECT l.at, CASE WHEN l.kind = 'sold_on_account' THEN 'payment' ELSE 'refund' END, 'account',
		substr(CASE WHEN l.kind = 'sold_on_account' THEN l.credit ELSE l.debit END, length('channel:') + 1), 'account',
		l.booking_id, '', '', CASE WHEN l.kind = 'sold_on_account' THEN l.amount ELSE -l.amount END, l.currency, '', '', '', ''
	FROM day l
	WHERE l.kind IN ('sold_on_account', 'on_account_reversed')
	ORDER BY 1, 6, 8`
