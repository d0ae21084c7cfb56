package console

import (
	"cmp"
	"net/http"
	"time"

	"github.com/bookflow/bookflow/db"
)

// The receipt (issue 39): a booking's folio as the guest takes it away. One page, printed by the
// browser: the print stylesheet (console.css, @media print) leaves out the console's header and
// buttons, so what is printed, or saved as a PDF, is the bill alone.

// receiptView is what receipt.html shows.
type receiptView struct {
	B         bookingWithMoney
	F         db.Folio
	Site      string // the hotel's or venue's name
	Zone      *time.Location
	Charges   []db.FolioCharge // the live ones: a voided charge is not billed
	Refunded  []db.RefundAttempt
	Total     int64 // price and extras
	PrintedAt time.Time
	PrintedBy string
}

// receipt shows a booking's bill for printing.
func (c *Console) receipt(r *request) error {
	id := r.Param("id")
	var v receiptView
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id), nil, "", &v.B); err != nil {
		return r.fail(err)
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id)+"/folio", nil, "", &v.F); err != nil {
		return r.fail(err)
	}
	kind, site := "hotel", v.B.HotelID
	if v.B.VenueID != "" {
		kind, site = "venue", v.B.VenueID
	}
	s, err := r.site(kind, site)
	if err != nil {
		return r.fail(err)
	}
	v.Site = cmp.Or(s.Name, site)
	if v.Zone, err = time.LoadLocation(v.B.TimeZone); err != nil {
		v.Zone = time.UTC
	}
	for _, ch := range v.F.Charges {
		if ch.VoidedAt == nil {
			v.Charges = append(v.Charges, ch)
		}
	}
	for _, f := range v.F.Refunds {
		if f.Status == "succeeded" {
			v.Refunded = append(v.Refunded, f)
		}
	}
	v.Total = v.F.Price.Total + v.F.Money.Extras
	v.PrintedAt, v.PrintedBy = c.cfg.Now(), r.who.Subject
	name := cmp.Or(v.F.GuestName, r.text.Guest(v.B.CustomerID))
	return r.render(http.StatusOK, "receipt", r.text.T("receipt.title", name), v)
}
