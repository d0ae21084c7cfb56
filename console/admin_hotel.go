package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// adminHotelRoutes are a hotel's admin page and its forms.
func (c *Console) adminHotelRoutes(page func(method, path string, h handler, roles []domain.Role), admin []domain.Role) {
	page(http.MethodGet, "/admin/hotels/:hotelId", c.adminHotel, admin)
	page(http.MethodPost, "/admin/hotels/:hotelId/inventory", c.adminInventory, admin)
	page(http.MethodPost, "/admin/hotels/:hotelId/rates", c.adminRates, admin)
	page(http.MethodPost, "/admin/hotels/:hotelId/cancellation-policy", c.adminPolicy, admin)
}

// stockNights is how many nights from today the hotel's page shows.
const stockNights = 14

// adminHotelView is a hotel's admin page.
type adminHotelView struct {
	Site   db.SiteSummary
	Policy domain.CancellationPolicy
	// PolicyFee is the fixed fee as a decimal amount, for the form.
	PolicyFee string
	From, To  string
	// Stock is each room type's nights from today, by room type id.
	Stock map[string][]db.StockNightView
	Early []string
	t     catalogue
}

// inventoryFields are what the inventory form's fields need: their ids' prefix, and whether
// they name a new room type.
type inventoryFields struct {
	T   catalogue
	P   string
	New bool
	// Country is the hotel's, which the form shows and sends again.
	Country string
}

// Fields are the inventory form's fields under prefix p (a template calls it for each form).
func (v adminHotelView) Fields(p string, isNew bool) inventoryFields {
	return inventoryFields{T: v.t, P: p, New: isNew, Country: v.Site.Country}
}

func (c *Console) adminHotel(r *request) error {
	id := r.Param("hotelId")
	site, err := r.site("hotel", id)
	if err != nil {
		return r.fail(err)
	}
	v := adminHotelView{Site: site, Stock: map[string][]db.StockNightView{}, t: r.text,
		Early: []string{domain.EarlyDepartureNone, domain.EarlyDepartureAll, domain.EarlyDepartureAllButFirst}}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/admin/hotels/"+seg(id)+"/cancellation-policy", nil, "", &v.Policy); err != nil {
		return r.fail(err)
	}
	if v.Policy.EarlyDeparture == "" {
		v.Policy.EarlyDeparture = domain.EarlyDepartureNone
	}
	if v.Policy.FeeFixed > 0 {
		v.PolicyFee = formatAmount(v.Policy.FeeFixed, v.Policy.FeeCurrency)
	}
	loc, err := time.LoadLocation(site.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	today := domain.DateOf(r.c.cfg.Now(), loc)
	v.From, v.To = today.String(), today.AddDays(stockNights).String()
	var stock struct {
		Nights []db.StockNightView `json:"nights"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, q("/admin/hotels/"+seg(id)+"/stock", "from", v.From, "to", v.To),
		nil, "", &stock); err != nil {
		return r.fail(err)
	}
	for _, n := range stock.Nights {
		v.Stock[n.RoomTypeID] = append(v.Stock[n.RoomTypeID], n)
	}
	return r.render(http.StatusOK, "admin_hotel", r.text.T("admin.hotelTitle", site.ID), v)
}

// adminInventory sets a room type's rooms (and optionally its rate) over a range of nights; a
// room type the hotel does not have yet is made.
func (c *Console) adminInventory(r *request) error {
	hotelID := r.Param("hotelId")
	if done, err := r.putInventory(hotelID, ""); !done {
		return err
	}
	return r.Redirect(http.StatusSeeOther, Prefix+"/admin/hotels/"+seg(hotelID)+"#room-"+r.FormValue("roomTypeId"))
}

// putInventory sends the inventory form to the API for hotelID (timeZone, when given, for a new
// hotel) and flashes what changed. When it is not done, the refusal was shown (err is the
// page's own).
func (r *request) putInventory(hotelID, timeZone string) (done bool, err error) {
	roomTypeID := strings.TrimSpace(r.FormValue("roomTypeId"))
	body := map[string]any{"from": r.FormValue("from"), "to": r.FormValue("to")}
	if timeZone != "" {
		body["timeZone"] = timeZone
	}
	if country := strings.ToUpper(strings.TrimSpace(r.FormValue("country"))); country != "" {
		body["country"] = country // left empty: the hotel keeps its country
	}
	if r.FormValue("unlimited") != "" {
		body["unlimited"] = true
	} else {
		n, given, err := r.formInt("totalRooms")
		if err == nil && !given { // left blank: not 0 rooms, which would close the nights
			err = formError{"totalRooms", ""}
		}
		if err != nil {
			return false, r.badForm(err)
		}
		body["totalRooms"] = n
	}
	if strings.TrimSpace(r.FormValue("rate")) != "" {
		rate, currency, err := r.rateForm()
		if err != nil {
			return false, r.badForm(err)
		}
		body["rate"], body["currency"], body["free"] = rate, currency, r.FormValue("free") != ""
	}
	var out struct {
		Nights     int  `json:"nights"`
		TotalRooms *int `json:"totalRooms"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPut,
		"/admin/hotels/"+seg(hotelID)+"/room-types/"+seg(roomTypeID)+"/inventory", body, "", &out); err != nil {
		return false, r.fail(err)
	}
	rooms := r.text.T("admin.unlimited")
	if out.TotalRooms != nil {
		rooms = r.text.T("admin.rooms", *out.TotalRooms)
	}
	r.flash(r.text.T("admin.inventorySaved", hotelID, roomTypeID, rooms, out.Nights, r.FormValue("from"), r.FormValue("to")))
	return true, nil
}

// rateForm reads the form's rate, a decimal amount typed in its currency, as minor units.
func (r *request) rateForm() (int64, string, error) {
	currency := strings.ToUpper(strings.TrimSpace(r.FormValue("currency")))
	rate, err := parseAmount(r.FormValue("rate"), currency)
	return rate, currency, err
}

// adminRates sets a room type's nightly rate over a range of nights on sale.
func (c *Console) adminRates(r *request) error {
	hotelID, roomTypeID := r.Param("hotelId"), strings.TrimSpace(r.FormValue("roomTypeId"))
	rate, currency, err := r.rateForm()
	if err != nil {
		return r.badForm(err)
	}
	body := map[string]any{"from": r.FormValue("from"), "to": r.FormValue("to"), "rate": rate, "currency": currency,
		"free": r.FormValue("free") != ""}
	var out struct {
		NightsUpdated int `json:"nightsUpdated"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPut,
		"/admin/hotels/"+seg(hotelID)+"/room-types/"+seg(roomTypeID)+"/rates", body, "", &out); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("admin.ratesSaved", roomTypeID, formatMoney(rate, currency), out.NightsUpdated))
	return r.Redirect(http.StatusSeeOther, Prefix+"/admin/hotels/"+seg(hotelID)+"#room-"+roomTypeID)
}

// adminPolicy replaces the hotel's cancellation policy: a percentage fee or a fixed one.
func (c *Console) adminPolicy(r *request) error {
	hotelID := r.Param("hotelId")
	var p domain.CancellationPolicy
	var err error
	for _, f := range []struct {
		field string
		to    *int
	}{{"freeUntilHours", &p.FreeUntilHours}, {"noRefundHours", &p.NoRefundHours}, {"feePercent", &p.FeePercent}} {
		if *f.to, _, err = r.formInt(f.field); err != nil {
			return r.badForm(err)
		}
	}
	if fee := strings.TrimSpace(r.FormValue("feeFixed")); fee != "" {
		p.FeeCurrency = strings.ToUpper(strings.TrimSpace(r.FormValue("feeCurrency")))
		if p.FeeFixed, err = parseAmount(fee, p.FeeCurrency); err != nil {
			return r.badForm(err)
		}
	}
	p.EarlyDeparture = r.FormValue("earlyDeparture")
	var out domain.CancellationPolicy
	if err := r.c.api.call(r.ctx(), r.who, http.MethodPut, "/admin/hotels/"+seg(hotelID)+"/cancellation-policy", p, "", &out); err != nil {
		return r.fail(err)
	}
	if out.EarlyDeparture == "" {
		out.EarlyDeparture = domain.EarlyDepartureNone
	}
	fee := r.text.T("admin.feePercent", out.FeePercent)
	if out.FeeFixed > 0 {
		fee = formatMoney(out.FeeFixed, out.FeeCurrency)
	}
	r.flash(r.text.T("admin.policySaved", hotelID, out.FreeUntilHours, fee, out.NoRefundHours, r.text.T("admin.early."+out.EarlyDeparture)))
	return r.Redirect(http.StatusSeeOther, Prefix+"/admin/hotels/"+seg(hotelID)+"#policy")
}
