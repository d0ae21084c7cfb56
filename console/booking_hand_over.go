package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A refund waiting at the desk (issue 39, defect 1): money the desk took that the guest's own
// cancel or a no-show gives back is not recorded as given until someone hands it over. The booking
// page says what is due at the desk and offers, to the desk, a confirmed "Hand over" per refund,
// which sends the API's POST /staff/bookings/{id}/refunds/hand-over under the person's name.

// handOverRoutes is the booking page's hand-over.
func (c *Console) handOverRoutes(page func(method, path string, h handler, roles []domain.Role), desk []domain.Role) {
	page(http.MethodPost, "/bookings/:id/refunds/hand-over", c.handOver, desk)
}

// handOver records that the person handed refund refundId over, with their note.
func (c *Console) handOver(r *request) error {
	id := r.Param("id")
	body := map[string]string{"refundId": r.FormValue("refundId"), "note": strings.TrimSpace(r.FormValue("note"))}
	var got db.RefundAttempt
	err := c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/bookings/"+seg(id)+"/refunds/hand-over", body, "", &got)
	if err != nil {
		return r.failOn(id, err)
	}
	r.flash(r.text.T("refund.handedOver", formatMoney(got.Amount, got.Currency), r.text.T("method."+got.Method)))
	return r.Redirect(http.StatusSeeOther, Prefix+"/bookings/"+seg(id))
}

// atTheDesk reports whether refund a waits at the desk for someone to hand it over.
func atTheDesk(a db.RefundAttempt) bool {
	return a.Status == "pending" && a.Method != domain.MethodProvider
}

// dueAtTheDesk sums the refunds that wait at the desk, by currency (a booking's are in one).
func dueAtTheDesk(refunds []db.RefundAttempt) (amount int64, currency string) {
	for _, a := range refunds {
		if atTheDesk(a) {
			amount, currency = amount+a.Amount, a.Currency
		}
	}
	return amount, currency
}

// dueList is the refunds waiting at a site's desk, on today's page of its day: the desk's list of
// money to hand back when the guests come by (each is handed over from its booking's page).
type dueList struct {
	Refunds []db.DueRefund
	Zone    *time.Location // the site's, for when each began waiting
	Desk    bool           // the person hands refunds over here (the hint says how)
	Failed  bool           // the list could not be read: the page says so
}

// dueAt reads the refunds waiting at site siteID's desk. A failed read (a hotel and a venue
// sharing the id, say) does not cost the desk its day: the page says the list is missing.
func (c *Console) dueAt(r *request, siteID string, zone *time.Location, desk bool) dueList {
	var out struct {
		Refunds []db.DueRefund `json:"refunds"`
	}
	err := c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/sites/"+seg(siteID)+"/due-at-the-desk", nil, "", &out)
	if err != nil {
		c.cfg.Logger.Warn("console: the refunds due at the desk", "site", siteID, "err", err)
	}
	return dueList{Refunds: out.Refunds, Zone: zone, Desk: desk, Failed: err != nil}
}

// handOverText is the messages of a hand-over.
var handOverText = texts{
	"en": {
		"refund.atDesk":         "Due at the desk",
		"refund.dueAtDesk":      "%s is due to the guest at the desk: hand it over when they come, below.",
		"refund.handOver":       "Hand over…",
		"refund.handOverHint":   "Give the guest %s (%s) now. It is recorded under your name, in your cash-up.",
		"refund.handOverNote":   "Note (optional)",
		"refund.handOverButton": "Handed over %s",
		"refund.handedOver":     "Recorded: %s handed over (%s).",
		"refusal.notAtDesk":     "This refund no longer waits at the desk: someone handed it over or it was given back another way. The page shows how it stands now.",
		"refusal.shiftCashedUp": "Your shift was cashed up while this was recorded: nothing was recorded. Send it again.",
		"due.title":             "Due to guests at the desk (%d)",
		"due.hint":              "Money to give back when the guest comes by: open the booking to hand it over.",
		"due.since":             "Waiting since",
		"due.failed":            "The refunds due to guests at the desk could not be read just now: each booking's page still shows its own.",
	},
	"zh-Hans": {
		"refund.atDesk":         "待前台退还",
		"refund.dueAtDesk":      "需在前台向客人退还 %s：客人到来时请在下方办理。",
		"refund.handOver":       "当面退还…",
		"refund.handOverHint":   "现在将 %s（%s）交给客人。此操作以您的名义记录，计入您的交班清点。",
		"refund.handOverNote":   "备注（可选）",
		"refund.handOverButton": "已退还 %s",
		"refund.handedOver":     "已记录：已退还 %s（%s）。",
		"refusal.notAtDesk":     "这笔退款已不在前台等待：已有人退还，或已通过其他方式退还。页面显示其当前状态。",
		"refusal.shiftCashedUp": "记录时您的班次已交班清点：未记录任何内容。请重新提交。",
		"due.title":             "待在前台退还给客人（%d）",
		"due.hint":              "客人到来时需退还的款项：打开预订办理当面退还。",
		"due.since":             "等待自",
		"due.failed":            "暂时无法读取待在前台退还的款项：每个预订的页面仍会显示其自身的退款。",
	},
}
