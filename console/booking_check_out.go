package console

import (
	"net/http"

	"github.com/bookflow/bookflow/domain"
)

// Check-out on the booking page (issue 39): a checked-in hotel guest leaves, early or on the
// last night. The page shows, before the desk confirms, what leaving now does (the API's
// preview: the nights not stayed, what the rate's policy gives back of them, what is still
// due); the banner afterwards says what it did.

// departure is the API's answer on what a check-out does (api/check_out.go).
type departure struct {
	CheckOut        domain.Date `json:"checkOut"`
	Early           bool        `json:"early"`
	NightsNotStayed int         `json:"nightsNotStayed"`
	Refund          int64       `json:"refund"`
	Currency        string      `json:"currency"`
	Policy          string      `json:"policy"`
	Due             int64       `json:"due"`
}

// checkOutPreview is what checking the guest out now would do, when the page offers it (nil
// otherwise, or when the API could not say: the page then offers the step without it).
func (c *Console) checkOutPreview(r *request, v *bookingPageView) *departure {
	if !v.Offers.CheckOut {
		return nil
	}
	var d departure
	if err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/"+seg(v.B.ID)+"/check-out", nil, "", &d); err != nil {
		r.c.cfg.Logger.Warn("check-out preview", "booking", v.B.ID, "err", err)
		return nil
	}
	return &d
}

// checkOut checks the guest out through the API and says what it did.
func (c *Console) checkOut(r *request) error {
	id := r.Param("id")
	var out struct {
		Departure departure `json:"departure"`
	}
	if err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/check-out", nil, "", &out); err != nil {
		return r.failOn(id, err)
	}
	r.flash(departureText(r.text, out.Departure, true))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}

// departureText says what a check-out does (done: did) to the stay, in the page's language.
func departureText(text catalogue, d departure, done bool) string {
	prefix := "checkOut.will."
	if done {
		prefix = "checkOut.did."
	}
	switch {
	case !d.Early:
		return text.T(prefix + "onTime")
	case d.Refund > 0:
		return text.T(prefix+"early", d.CheckOut, d.NightsNotStayed) + " " +
			text.T("checkOut.refund."+d.Policy, formatMoney(d.Refund, d.Currency))
	}
	return text.T(prefix+"early", d.CheckOut, d.NightsNotStayed) + " " + text.T("checkOut.keeps."+d.Policy)
}

// checkOutText is the check-out's messages.
var checkOutText = texts{
	"en": {
		"checkOut.title": "Check out", "checkOut.open": "Check the guest out…", "checkOut.button": "Check out",
		"checkOut.due":                  "Still due once the guest has gone: %s. Take it first, or it stays owed.",
		"checkOut.will.onTime":          "The stay ends today, as booked.",
		"checkOut.will.early":           "Leaving early: the stay ends on %s, %d night(s) not stayed go back on sale.",
		"checkOut.did.onTime":           "Checked out.",
		"checkOut.did.early":            "Checked out early: the stay ends on %s, %d night(s) not stayed are back on sale.",
		"checkOut.refund.all":           "The rate's policy gives them back: %s is refunded to the guest.",
		"checkOut.refund.all_but_first": "The rate's policy gives them back but the first: %s is refunded to the guest.",
		"checkOut.keeps.none":           "The rate's policy keeps the nights not stayed: nothing is given back.",
		"checkOut.keeps.all":            "Nothing was paid for them, so nothing is given back.",
		"checkOut.keeps.all_but_first":  "The policy keeps the first of them and nothing else was paid: nothing is given back.",
		"checkOut.checkedOut":           "Checked out at %s by %s.",
	},
	"zh-Hans": {
		"checkOut.title": "退房", "checkOut.open": "为客人办理退房…", "checkOut.button": "退房",
		"checkOut.due":                  "客人离开后仍欠：%s。请先收取，否则将一直记为欠款。",
		"checkOut.will.onTime":          "住宿按预订于今天结束。",
		"checkOut.will.early":           "提前离店：住宿于 %s 结束，未入住的 %d 晚重新开放销售。",
		"checkOut.did.onTime":           "已退房。",
		"checkOut.did.early":            "已提前退房：住宿于 %s 结束，未入住的 %d 晚已重新开放销售。",
		"checkOut.refund.all":           "按房价政策全部退还：已向客人退款 %s。",
		"checkOut.refund.all_but_first": "按房价政策退还除第一晚外的房费：已向客人退款 %s。",
		"checkOut.keeps.none":           "按房价政策，未入住的房晚不予退还。",
		"checkOut.keeps.all":            "这些房晚未曾付款，因此无需退款。",
		"checkOut.keeps.all_but_first":  "政策保留其中第一晚，其余未曾付款：无需退款。",
		"checkOut.checkedOut":           "%s 由 %s 办理退房。",
	},
}
