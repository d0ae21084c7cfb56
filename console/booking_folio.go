package console

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The folio on a booking's page (issue 39): the extras the desk charged (the API's folio,
// db/folio.go), a form to charge another, a void with its reason, and the receipt to print.
// The section is its own template (booking_folio.html), drawn here and placed in the booking page
// by one line, as the guest's is.

// folioRoutes are the desk's charges and voids, and the receipt.
func (c *Console) folioRoutes(page func(method, path string, h handler, roles []domain.Role), desk, anyStaff []domain.Role) {
	page(http.MethodGet, "/bookings/:id/receipt", c.receipt, anyStaff)
	page(http.MethodPost, "/bookings/:id/charges", c.addCharge, desk)
	page(http.MethodPost, "/bookings/:id/charges/:chargeId/void", c.voidCharge, desk)
}

// chargeForm is the charge form as shown: empty, or as the desk typed it when it was refused,
// with each field's error beside it (Errors, by field) or Refused above the form.
type chargeForm struct {
	Kind, Description, Quantity, Unit string
	Errors                            map[string]string
	Refused                           string
	Status                            int // a refusal's; 0 for a form not sent
}

// folioSection is what booking_folio.html's "folio" draws.
type folioSection struct {
	T        catalogue
	CSRF     string
	ID       string
	Currency string
	Zone     *time.Location
	Charges  []db.FolioCharge
	Extras   int64
	Kinds    []string
	Key      string // the charge form's idempotency key
	Shown    string // how the booking stood (shownAs)
	Charge   bool   // the person may charge it: its desk, and a booking the guest has
	Form     chargeForm
}

// keyChargeForm carries a refused charge form to the booking page drawn again.
const keyChargeForm = "console.chargeForm"

// folioSection draws booking v's extras and the desk's charge form.
func (c *Console) folioSection(r *request, v bookingPageView) (template.HTML, error) {
	var f db.Folio
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(v.B.ID)+"/folio", nil, "", &f); err != nil {
		return "", err
	}
	b := v.B
	s := folioSection{T: r.text, CSRF: r.csrf, ID: b.ID, Currency: b.Price.Currency, Zone: v.Zone, Charges: f.Charges,
		Extras: f.Money.Extras, Kinds: domain.ChargeKinds, Key: r.formKey("charge-", "charge:"+b.ID), Shown: v.Shown,
		Form: chargeForm{Kind: domain.ChargeCityTax, Quantity: "1"}}
	s.Charge = v.Desk && (b.Status == domain.StatusConfirmed || b.Status == domain.StatusCompleted) &&
		b.ChannelID == "" && b.SupplierID == ""
	if form, ok := r.Get(keyChargeForm).(chargeForm); ok {
		s.Form = form
	}
	t, ok := c.pages.byName["booking_folio"]
	if !ok {
		return "", errors.New("console: no template booking_folio")
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "folio", s); err != nil {
		return "", err
	}
	//nolint:gosec // the section is html/template's own output, escaped as it was drawn
	return template.HTML(buf.String()), nil
}

// addCharge charges the booking an extra under the form's key; a refused form comes back on the
// booking page as typed, the refusal beside its field.
func (c *Console) addCharge(r *request) error {
	id, currency := r.Param("id"), r.FormValue("currency")
	f := chargeForm{Kind: r.FormValue("kind"), Description: strings.TrimSpace(r.FormValue("description")),
		Quantity: strings.TrimSpace(r.FormValue("quantity")), Unit: strings.TrimSpace(r.FormValue("unit")),
		Errors: map[string]string{}}
	quantity, err := strconv.Atoi(f.Quantity)
	if err != nil || quantity < 1 || quantity > 999 {
		f.Errors["quantity"] = r.text.T("folio.err.quantity")
	}
	unit, err := parseAmount(f.Unit, currency)
	if err != nil || unit <= 0 {
		f.Errors["unit"] = r.text.T("refusal.amount")
	}
	if !slices.Contains(domain.ChargeKinds, f.Kind) {
		f.Errors["kind"] = r.text.T("folio.err.kind")
	}
	if f.Kind == domain.ChargeOther && f.Description == "" {
		f.Errors["description"] = r.text.T("folio.err.description")
	}
	if len(f.Errors) > 0 {
		f.Status = http.StatusBadRequest
		return c.refusedCharge(r, f)
	}
	body := map[string]any{"kind": f.Kind, "description": f.Description, "quantity": quantity, "unitAmount": unit,
		"currency": currency}
	key := r.keyFor("charge:" + id)
	err = c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/charges", body, key, nil)
	if r.settle("charge:"+id, key, err); err != nil {
		var ae *apiError
		if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
			return r.failOn(id, err)
		}
		f.Status, f.Refused = ae.Status, r.refusalText(ae)
		return c.refusedCharge(r, f)
	}
	r.flash(r.text.T("folio.charged", r.text.T("charge."+f.Kind), formatMoney(int64(quantity)*unit, currency)))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}

// refusedCharge shows the booking page again with the charge form as typed and why it was refused.
func (c *Console) refusedCharge(r *request, f chargeForm) error {
	r.Set(keyChargeForm, f)
	return c.bookingPage(r) // the route's id is the booking's
}

// voidCharge voids an extra once staff gave a reason (the page's second step).
func (c *Console) voidCharge(r *request) error {
	id := r.Param("id")
	reason := strings.TrimSpace(r.FormValue("reason"))
	if reason == "" {
		return r.refuseForm(id, "refusal.reasonNeeded")
	}
	path := "/staff/bookings/" + seg(id) + "/charges/" + seg(r.Param("chargeId")) + "/void"
	if err := c.api.call(r.ctx(), r.who, http.MethodPost, path, map[string]string{"reason": reason}, "", nil); err != nil {
		return r.failOn(id, err)
	}
	r.flash(r.text.T("folio.voided"))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}
