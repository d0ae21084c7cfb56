package console

import (
	"cmp"
	"errors"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// bookingRoutes are a booking's page and the desk's actions on it. Each action is the API's
// route for it, so what a booking's state allows is the API's (and its workflow's) to say.
func (c *Console) bookingRoutes(page func(method, path string, h handler, roles []domain.Role), desk, anyStaff []domain.Role) {
	page(http.MethodGet, "/bookings/:id", c.bookingPage, anyStaff)
	page(http.MethodPost, "/bookings/:id/check-in", c.bookingAction("check-in"), desk)
	page(http.MethodPost, "/bookings/:id/confirm", c.bookingAction("confirm"), desk)
	page(http.MethodPost, "/bookings/:id/cancel", c.withReason("cancel"), desk)
	page(http.MethodPost, "/bookings/:id/check-out", c.checkOut, desk)
	c.noShowRoutes(page, desk)   // a no-show by hand, from the page or the venue grid (booking_no_show.go)
	c.handOverRoutes(page, desk) // a refund waiting at the desk, handed over (booking_hand_over.go)
	page(http.MethodPost, "/bookings/:id/desk-payments", c.deskPayment, desk)
	page(http.MethodPost, "/bookings/:id/refunds", c.refund, anyStaff)
	page(http.MethodPost, "/bookings/:id/price", c.changePrice, desk)
	page(http.MethodPost, "/bookings/:id/amendments", c.amend, desk)
	page(http.MethodPost, "/bookings/:id/amendments/quote", c.quoteAmendment, desk)
	page(http.MethodPost, "/bookings/:id/lines", c.moveLine, desk)
	c.guestRoutes(page, desk, anyStaff) // the guest's form and the desk's search (booking_guest.go)
	c.folioRoutes(page, desk, anyStaff) // the extras and the receipt (booking_folio.go)
}

// bookingWithMoney is a staff booking as the API shows it, with its money summary.
type bookingWithMoney struct {
	domain.Booking
	Nights int             `json:"nights"`
	Reason string          `json:"reason"`
	Money  db.MoneySummary `json:"money"`
	// GuestName and Guest: who stays or plays under it (the staff booking's own, booking_guest.go).
	GuestName string         `json:"guestName"`
	Guest     db.StoredGuest `json:"guest"`
	// Rooms are a hotel stay's rooms by night range (booking_room.go).
	Rooms []db.RoomAssignment `json:"rooms"`
}

// bookingPageView is what the booking page shows.
type bookingPageView struct {
	B        bookingWithMoney
	Zone     *time.Location
	Payments []db.PaymentRecord
	Refunds  []db.RefundAttempt
	// AtTheDesk is what the refunds waiting at the desk come to, as shown ("" when none wait).
	AtTheDesk string
	Changes   []db.BookingChange
	Actions   []db.AuditEntry   // staff actions, for finance and admins
	Desk      bool              // the person may act on it as its desk
	Refund    bool              // the person may refund it: its desk, finance, an admin
	Site      string            // /console/<kind>s/<id>/day
	Keys      map[string]string // each money form's idempotency key (formKey), by form, and "reverse:<paymentId>"
	Methods   []string
	Offers    offers     // the actions the booking's state allows
	Money     moneySum   // its money, summed so that it adds up
	Shown     string     // how the booking stood when the page was drawn (shownAs), for each form
	Leaving   *departure // what checking the guest out now would do, when offered (booking_check_out.go)
	// FolioSection is the extras and the charge form (booking_folio.go).
	FolioSection template.HTML
	Amend        *amendView // the "Change the stay" form, when offered (booking_quote.go)
}

// bookingPage shows a booking: its lines, price, payments and refunds, its history with who did
// what, and the actions its state allows.
func (c *Console) bookingPage(r *request) error {
	id := r.Param("id")
	var v bookingPageView
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id), nil, "", &v.B); err != nil {
		return r.fail(err)
	}
	var money struct {
		Payments []db.PaymentRecord `json:"payments"`
		Refunds  []db.RefundAttempt `json:"refunds"`
		Ledger   []db.LedgerEntry   `json:"ledger"`
		Balances *db.LedgerMoney    `json:"balances"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id)+"/payments", nil, "", &money); err != nil {
		return r.fail(err)
	}
	var history struct {
		Changes      []db.BookingChange `json:"changes"`
		StaffActions []db.AuditEntry    `json:"staffActions"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id)+"/history", nil, "", &history); err != nil {
		return r.fail(err)
	}
	zone, err := time.LoadLocation(v.B.TimeZone)
	if err != nil {
		zone = time.UTC
	}
	v.Zone, v.Payments, v.Refunds, v.Changes, v.Actions = zone, money.Payments, money.Refunds, history.Changes, history.StaffActions
	if amount, currency := dueAtTheDesk(v.Refunds); amount > 0 {
		v.AtTheDesk = formatMoney(amount, currency)
	}
	v.Desk = r.who.CanBookAt(v.B.Booking)
	v.Refund = v.Desk || r.who.Has(domain.RoleFinance, domain.RoleAdmin)
	v.Site = Prefix + "/hotels/" + seg(v.B.HotelID) + "/day"
	var venue []db.ResourceSummary
	if v.B.VenueID != "" {
		v.Site = Prefix + "/venues/" + seg(v.B.VenueID) + "/day"
		if v.Desk {
			site, err := r.site("venue", v.B.VenueID)
			if err != nil {
				return r.fail(err)
			}
			venue = site.Resources
		}
	}
	v.Methods, v.Shown = domain.DeskMethods, shownAs(v.B.Booking)
	kept, balances := keptByPayment(money.Ledger), money.Balances
	if balances == nil { // an answer without the ledger: the booking's own word on what it keeps
		balances = &db.LedgerMoney{Kept: v.B.Paid}
		for _, p := range v.Payments {
			kept[p.PaymentID] = p.Amount
		}
	}
	v.Offers = offersFor(v.B, v.Desk, v.Refund, c.cfg.Now(), zone, kept, balances.Kept, v.Payments, venue)
	v.Money = r.sumMoney(v.B, *balances)
	v.Leaving = c.checkOutPreview(r, &v)
	v.Amend = c.amendView(r, v)
	if v.FolioSection, err = c.folioSection(r, v); err != nil { // the page is the desk's still
		r.c.cfg.Logger.Warn("console: a booking's folio", "booking", id, "err", err)
	}
	v.Keys = map[string]string{"pay": r.formKey("pay-", "pay:"+id), "refund": r.formKey("refund-", "refund:"+id),
		"amend": r.formKey("amend-", "amend:"+id)}
	for _, p := range v.Payments {
		v.Keys["reverse:"+p.PaymentID] = r.formKey("reverse-", "reverse:"+id+":"+p.PaymentID)
	}
	return c.renderBooking(r, v) // with its guest, named by them (booking_guest.go)
}

// bookingAction sends one of the API's booking commands (check-in, confirm, cancel, no-show).
func (c *Console) bookingAction(action string) handler {
	return func(r *request) error {
		id := r.Param("id")
		var body any
		if reason := strings.TrimSpace(r.FormValue("reason")); (action == "cancel" || action == "no-show") && reason != "" {
			body = map[string]string{"reason": reason} // for the audit entry
		}
		if err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/"+action, body, "", nil); err != nil {
			if r.alreadyDone(id, action) { // a double click: the first did it
				return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
			}
			return r.failOn(id, err)
		}
		r.flash(r.text.T("booking.done." + action))
		return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
	}
}

// withReason sends one of the API's booking commands (cancel, no-show) once staff confirmed it
// with a reason (the page's second step), which the API keeps in its audit entry.
func (c *Console) withReason(action string) handler {
	return func(r *request) error {
		id := r.Param("id")
		// Whether the person may act on it is the API's to say first: another site's desk is 403.
		if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id), nil, "", nil); err != nil {
			return r.fail(err)
		}
		if strings.TrimSpace(r.FormValue("reason")) == "" {
			return r.refuseForm(id, "refusal.reasonNeeded")
		}
		return c.bookingAction(action)(r)
	}
}

// refuseForm shows a form of the booking page refused before the API was asked, with a way
// back to the booking.
func (r *request) refuseForm(id, key string, args ...any) error {
	return r.render(http.StatusBadRequest, "error", r.text.T("booking.refusedHeading"), errorPage{Status: http.StatusBadRequest,
		Heading: r.text.T("booking.refusedHeading"), Message: r.text.T(key, args...), Back: Prefix + "/bookings/" + seg(id)})
}

// deskPayment records money the desk took, by method, under the form's idempotency key.
func (c *Console) deskPayment(r *request) error {
	id, currency := r.Param("id"), r.FormValue("currency")
	amount, err := parseAmount(r.FormValue("amount"), currency)
	if err != nil || amount == 0 {
		return r.refuseForm(id, "refusal.amount")
	}
	body := map[string]any{"amount": amount, "currency": currency, "method": r.FormValue("method"), "note": r.FormValue("note")}
	key := r.keyFor("pay:" + id)
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/desk-payments", body, key, nil)
	if r.settle("pay:"+id, key, err); err != nil {
		return r.failOn(id, err)
	}
	r.flash(r.text.T("booking.done.payment", formatMoney(amount, currency)))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}

// refund gives money back by the API's staff refund: in part or whole, keeping the units or
// giving them back, or reversing one desk payment.
func (c *Console) refund(r *request) error {
	id, currency := r.Param("id"), r.FormValue("currency")
	amount, err := parseAmount(r.FormValue("amount"), currency)
	if err != nil || amount == 0 {
		return r.refuseForm(id, "refusal.amount")
	}
	body := map[string]any{"amount": amount, "currency": currency, "reason": r.FormValue("reason"),
		"releaseUnits": r.FormValue("releaseUnits") == "on", "reverses": r.FormValue("reverses")}
	if method := r.FormValue("method"); method != "" { // how it is given back; left out: as it was paid
		body["method"] = method
	}
	intent := "refund:" + id
	if reverses := r.FormValue("reverses"); reverses != "" {
		intent = "reverse:" + id + ":" + reverses
	}
	key := r.keyFor(intent)
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/refunds", body, key, nil)
	if r.settle(intent, key, err); err != nil {
		return r.failOn(id, err)
	}
	r.flash(r.text.T("booking.done.refund", formatMoney(amount, currency)))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}

// changePrice sets a hold's price by hand, with a reason.
func (c *Console) changePrice(r *request) error {
	id, currency := r.Param("id"), r.FormValue("currency")
	total, err := parseAmount(r.FormValue("total"), currency)
	if err != nil {
		return r.refuseForm(id, "refusal.amount")
	}
	body := map[string]any{"total": total, "currency": currency, "reason": r.FormValue("reason")}
	if err := c.api.call(r.ctx(), r.who, http.MethodPut, "/staff/bookings/"+seg(id)+"/price", body, "", nil); err != nil {
		return r.failOn(id, err)
	}
	r.flash(r.text.T("booking.done.price", formatMoney(total, currency)))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}

// failOn shows an action's refusal in a sentence for staff (refusals.go), with how the booking
// stands now. It says "it changed meanwhile" only when the booking no longer stands as its page
// showed it when the form was sent (paid online meanwhile, expired, checked in by a colleague);
// otherwise the action was refused for what it is (too early, sold out, more than is kept).
func (r *request) failOn(bookingID string, err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		return r.fail(err)
	}
	message := r.refusalText(ae)
	heading, now := r.text.T("booking.refusedHeading"), ""
	var b bookingWithMoney
	if r.c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(bookingID), nil, "", &b) == nil {
		now = r.text.T("booking.nowStands", r.text.T("status."+string(b.Status)),
			formatMoney(b.Money.Paid, b.Money.Currency), formatMoney(b.Money.Paid-b.Money.Refunded-b.Money.Refunding, b.Money.Currency),
			formatMoney(b.Money.Due, b.Money.Currency))
		if shown := r.FormValue("shown"); shown != "" && shown != shownAs(b.Booking) {
			heading = r.text.T("error.409")
		}
	}
	back := cmp.Or(sameSiteReferer(r.Request()), Prefix+"/bookings/"+seg(bookingID))
	return r.render(ae.Status, "error", heading, errorPage{Status: ae.Status, Heading: heading, Message: message,
		Changed: now, Back: back})
}

// doneBy are the states each command leaves a booking in.
var doneBy = map[string][]domain.Status{
	"check-in": {domain.StatusCompleted},
	"confirm":  {domain.StatusConfirmed},
	"cancel":   {domain.StatusCancelled, domain.StatusRefunding, domain.StatusRefunded},
	"no-show":  {domain.StatusNoShow},
}

// alreadyDone reports whether a refused command finds the booking where it would have left it
// (a second click of the same button), and says so.
func (r *request) alreadyDone(id, action string) bool {
	var b bookingWithMoney
	if r.c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(id), nil, "", &b) != nil ||
		!slices.Contains(doneBy[action], b.Status) {
		return false
	}
	r.flash(r.text.T("booking.done.already", r.text.T("status."+string(b.Status))))
	return true
}
