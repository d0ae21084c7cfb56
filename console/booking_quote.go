package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/bookflow/bookflow/domain"
)

// Before committing (issue 39): the booking page's "Change the stay" form can first ask what the
// change would cost. "See the price first" sends the form to the API's quote (POST
// /staff/bookings/{id}/amendments/quote: judged as the change would be, then rolled back; it takes
// and stores nothing) and to the hotel's availability for the new stay, and shows both above the
// form, kept as typed; "Change the stay" then makes the change. The form also changes the room
// type and the rate plan.

// amendForm is the "Change the stay" form as shown: the booking's stay, or what was typed.
type amendForm struct {
	CheckIn, CheckOut, Quantity, RoomTypeID, RatePlan string
}

// amendQuote is what the quote answered: the price after the change against the price before,
// and what is left of the room type over the new stay; or why the change would be refused.
type amendQuote struct {
	Refused            string
	Before, After      domain.Price
	Difference, Refund int64
	RoomTypeID         string
	Stay               domain.Stay
	Left               int
	Unlimited          bool
}

// amendView is the "Change the stay" form on a hotel booking's page: as typed (or the stay), the
// quote asked for it, and the room types and rate plans it offers.
type amendView struct {
	Form      amendForm
	Quote     *amendQuote
	RoomTypes []string
	Plans     []domain.Offer
}

// amendView is booking v's amend form, when its state allows a change of its stay. The room types
// and plans are those of its hotel (a search of its first night); when they cannot be read, the
// form offers the booking's own.
func (c *Console) amendView(r *request, v bookingPageView) *amendView {
	if !v.Offers.Amend {
		return nil
	}
	b := v.B.Booking
	a := &amendView{Form: bookedAmendForm(b), RoomTypes: []string{b.RoomTypeID}}
	if f, ok := r.Get(keyAmendForm).(amendForm); ok {
		a.Form = f
	}
	if q, ok := r.Get(keyAmendQuote).(amendQuote); ok {
		a.Quote = &q
	}
	if site, err := r.site("hotel", b.HotelID); err == nil {
		a.RoomTypes = a.RoomTypes[:0]
		for _, res := range site.Resources {
			a.RoomTypes = append(a.RoomTypes, res.ID)
		}
	}
	plans, err := c.deskPlans(r, b.HotelID, b.CheckIn)
	if err != nil || len(plans) == 0 {
		plans = []domain.Offer{{RatePlan: b.RatePlan}}
	}
	a.Plans = plans
	return a
}

// Keys carrying a quote and the form as typed to the booking page drawn again.
const (
	keyAmendQuote = "console.amendQuote"
	keyAmendForm  = "console.amendForm"
)

// typedAmendForm is the amend form as posted.
func typedAmendForm(r *request) amendForm {
	v := func(f string) string { return strings.TrimSpace(r.FormValue(f)) }
	return amendForm{CheckIn: v("checkIn"), CheckOut: v("checkOut"), Quantity: v("quantity"), RoomTypeID: v("roomTypeId"),
		RatePlan: v("ratePlan")}
}

// bookedAmendForm is the amend form filled in with booking b's stay.
func bookedAmendForm(b domain.Booking) amendForm {
	return amendForm{CheckIn: b.CheckIn.String(), CheckOut: b.CheckOut.String(), Quantity: strconv.Itoa(b.Quantity),
		RoomTypeID: b.RoomTypeID, RatePlan: b.RatePlan}
}

// amendChange is the change the amend form asks for: its dates and rooms, and the room type and
// rate plan when they are not the booking's now (the form's "was" fields say what they were).
func amendChange(r *request) (map[string]any, error) {
	f := typedAmendForm(r)
	change := map[string]any{}
	for field, v := range map[string]string{"checkIn": f.CheckIn, "checkOut": f.CheckOut} {
		if v == "" {
			continue
		}
		d, err := domain.ParseDate(v)
		if err != nil {
			return nil, &apiError{Status: http.StatusBadRequest, Code: "invalid_request", Message: r.text.T("booking.badDate")}
		}
		change[field] = d
	}
	if f.Quantity != "" {
		n, err := formQuantity(r, "quantity")
		if err != nil {
			return nil, err
		}
		change["quantity"] = n
	}
	if f.RoomTypeID != "" && f.RoomTypeID != r.FormValue("wasRoomType") {
		change["roomTypeId"] = f.RoomTypeID
	}
	if f.RatePlan != "" && f.RatePlan != r.FormValue("wasRatePlan") {
		change["ratePlan"] = f.RatePlan
	}
	return change, nil
}

// quoteAmendment shows the booking page with what the typed change would cost and leave.
func (c *Console) quoteAmendment(r *request) error {
	id := r.Param("id")
	r.Set(keyAmendForm, typedAmendForm(r))
	change, err := amendChange(r)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			r.Set(keyAmendQuote, amendQuote{Refused: ae.Message})
			return c.bookingPage(r)
		}
		return r.fail(err)
	}
	var out struct {
		Amendment domain.Amendment `json:"amendment"`
		Booking   domain.Booking   `json:"booking"`
	}
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/amendments/quote", change, "", &out)
	var ae *apiError
	switch {
	case errors.As(err, &ae) && ae.Status < http.StatusInternalServerError && ae.Status != http.StatusForbidden &&
		ae.Status != http.StatusNotFound:
		r.Set(keyAmendQuote, amendQuote{Refused: r.refusalText(ae)})
		return c.bookingPage(r)
	case err != nil:
		return r.failOn(id, err)
	}
	a := out.Amendment
	q := amendQuote{Before: a.PriceBefore, After: a.PriceAfter, Difference: a.Difference, Refund: a.Refund,
		RoomTypeID: a.After.RoomTypeID, Stay: a.After.Stay()}
	if q.RoomTypeID == "" {
		q.RoomTypeID = out.Booking.RoomTypeID
	}
	q.Left, q.Unlimited = c.roomsLeft(r, out.Booking.HotelID, q.RoomTypeID, q.Stay)
	r.Set(keyAmendQuote, q)
	return c.bookingPage(r)
}

// roomsLeft is what is left of a hotel's room type over a stay (-1 when it cannot be read: the
// quote stands without it).
func (c *Console) roomsLeft(r *request, hotel, roomType string, stay domain.Stay) (int, bool) {
	var search struct {
		RoomTypes []struct {
			RoomTypeID string `json:"roomTypeId"`
			Available  int    `json:"available"`
			Unlimited  bool   `json:"unlimited"`
		} `json:"roomTypes"`
	}
	path := "/hotels/" + seg(hotel) + "/availability?checkIn=" + stay.CheckIn.String() + "&checkOut=" + stay.CheckOut.String()
	if stay.CheckIn.IsZero() || c.api.call(r.ctx(), r.who, http.MethodGet, path, nil, "", &search) != nil {
		return -1, false
	}
	for _, rt := range search.RoomTypes {
		if rt.RoomTypeID == roomType {
			return rt.Available, rt.Unlimited
		}
	}
	return -1, false
}
