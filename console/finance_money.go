package console

import (
	"net/http"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// bookingMoneyView is a booking's money as finance reads it: what it costs, what came in and what
// went back, each payment and each refund attempt.
type bookingMoneyView struct {
	Booking  domain.Booking
	Site     string // "hotel:X" or "venue:X", for the report link
	Loc      *time.Location
	Payments []db.PaymentRecord `json:"payments"`
	Refunds  []db.RefundAttempt `json:"refunds"`
	Price    domain.Price       `json:"price"`
	Paid     int64              `json:"paid"`
	Due      int64              `json:"refundDue"`
	Status   domain.Status      `json:"status"`
}

// financeBookingMoney shows one booking's payments and refunds (GET /staff/bookings/:id/payments),
// at its site's local time.
func (c *Console) financeBookingMoney(r *request) error {
	id := r.Param("id")
	var b domain.Booking
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id), nil, "", &b); err != nil {
		return r.fail(err)
	}
	var v bookingMoneyView
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id)+"/payments", nil, "", &v); err != nil {
		return r.fail(err)
	}
	v.Booking = b
	kind, site := "hotel", b.HotelID
	if b.VenueID != "" {
		kind, site = "venue", b.VenueID
	}
	v.Site = kind + ":" + site
	zone := b.TimeZone
	if zone == "" {
		s, err := r.site(kind, site)
		if err != nil {
			return r.fail(err)
		}
		zone = s.TimeZone
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return r.fail(err)
	}
	v.Loc = loc
	return r.render(http.StatusOK, "finance_money", r.text.T("finance.moneyTitle", b.ID), v)
}
