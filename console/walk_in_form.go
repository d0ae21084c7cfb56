package console

import (
	"errors"
	"net/http"
	"regexp"
	"slices"
)

// walkInForm is a walk-in form (a hotel's or a venue slot's) as the desk typed it, and why it was
// refused: a field's error beside it (Errors, by field name, in the page's language), or Refused
// above the form when no field is to blame. A refused form is shown again as typed, never
// thrown away for an error page (issue 39).
type walkInForm struct {
	RoomTypeID, RatePlan, CheckIn, Nights, Quantity string
	Phone, Name                                     string
	Errors                                          map[string]string
	Refused                                         string
	// Status is the refusal's: the API's (400, 404, 409, 422), or 400 for what the console could
	// not read.
	Status int
}

// postedWalkIn is the walk-in form as posted.
func postedWalkIn(r *request) walkInForm {
	return walkInForm{RoomTypeID: r.FormValue("roomTypeId"), RatePlan: r.FormValue("ratePlan"),
		CheckIn: r.FormValue("checkIn"), Nights: r.FormValue("nights"), Quantity: r.FormValue("quantity"),
		Phone: r.FormValue("phone"), Name: r.FormValue("name"), Errors: map[string]string{}}
}

// invalid marks field as refused with the message key's sentence (a form the console could not
// read: nothing was sent).
func (f *walkInForm) invalid(t catalogue, field, key string) {
	f.Errors[field], f.Status = t.T(key), http.StatusBadRequest
}

// walkInReasons turn the API's refusals of a walk-in into a field and a sentence, the first
// match winning. The messages are domain.NormalisePhoneIn's, domain.Stay's, domain.OrderRequest's
// and the staff booking handlers' (api/bookings.go, api/venues.go).
var walkInReasons = []refusalReason{
	{regexp.MustCompile(`phone needs its country code .*no country`), "phone", "form.err.phoneNoCountry"},
	{regexp.MustCompile(`phone needs its country code .*national numbers of`), "phone", "form.err.phoneCountryUnknown"},
	{regexp.MustCompile(`phone is not a number of`), "phone", "form.err.phoneNational"},
	{regexp.MustCompile(`phone may hold only`), "phone", "form.err.phoneCharacters"},
	{regexp.MustCompile(`phone must be an international number`), "phone", "form.err.phoneDigits"},
	{regexp.MustCompile(`name the guest by customerId, or by phone`), "phone", "form.err.phoneMissing"},
	{regexp.MustCompile(`name is at most`), "name", "form.err.name"},
	{regexp.MustCompile(`checkIn \S+ is in the past`), "checkIn", "form.err.past"},
	{regexp.MustCompile(`beyond the sale horizon`), "checkIn", "form.err.horizon"},
	{regexp.MustCompile(`a stay may last at most`), "nights", "form.err.nights"},
	{regexp.MustCompile(`quantity must be`), "quantity", "walkin.quantity"},
	{regexp.MustCompile(`(?i)rate plan|ratePlan`), "ratePlan", "form.err.ratePlan"},
	{regexp.MustCompile(`has no room type`), "roomTypeId", "form.err.roomType"},
	{regexp.MustCompile(`starts in the past|has begun`), "", "form.err.slotPast"},
	{regexp.MustCompile(`cuts a unit`), "", "form.err.slotUnit"},
}

// refusal puts the API's refusal err beside the field it concerns, or above the form (the
// catalogue's sentence, or the API's own words for a refusal the console has none for). It is
// false for what is no refusal of the form (the API down or busy): the caller shows its error
// page.
func (f *walkInForm) refusal(t catalogue, err error) bool {
	var ae *apiError
	if !errors.As(err, &ae) || !slices.Contains([]int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound,
		http.StatusConflict, http.StatusUnprocessableEntity}, ae.Status) {
		return false
	}
	f.Status = ae.Status
	if ae.Status == http.StatusConflict && ae.Code == "unavailable" { // sold out, whatever its words
		f.Refused = t.T("form.err.soldOut")
		return true
	}
	for _, p := range walkInReasons {
		if p.re.MatchString(ae.Message) {
			if p.field == "" {
				f.Refused = t.T(p.key)
			} else {
				f.Errors[p.field] = t.T(p.key)
			}
			return true
		}
	}
	if ae.Code == "idempotency_key_reused" {
		f.Refused = t.T("form.err.sentTwice")
	} else {
		f.Refused = t.T("form.err.refused", ae.Message)
	}
	return true
}
