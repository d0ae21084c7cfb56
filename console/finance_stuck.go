package console

import (
	"net/http"
	"strings"

	"github.com/bookflow/bookflow/domain"
)

// stuckView is one booking whose refund waits for finance, as the API lists it.
type stuckView struct {
	WorkflowID string         `json:"workflowId"`
	Reason     string         `json:"reason"`
	Issue      string         `json:"issue"`
	Booking    domain.Booking `json:"booking"`
}

// financeStuck lists the bookings whose refund is stuck (PAYMENT_STUCK), each with a form to
// retry it or to mark it settled by hand.
func (c *Console) financeStuck(r *request) error {
	var out struct {
		Bookings []stuckView `json:"bookings"`
	}
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, "/staff/bookings/stuck", nil, "", &out); err != nil {
		return r.fail(err)
	}
	return r.render(http.StatusOK, "finance_stuck", r.text.T("finance.stuckTitle"), out.Bookings)
}

// financeStuckAction retries a stuck refund or marks it settled by hand ("retry" or "resolve"),
// with the reason finance gives, which the API audits. A booking no longer stuck is the API's
// 409, shown as the error page.
func (c *Console) financeStuckAction(action string) handler {
	return func(r *request) error {
		id := r.Param("id")
		reason := strings.TrimSpace(r.FormValue("reason"))
		if reason == "" {
			return r.c.renderError(r, http.StatusBadRequest, r.text.T("finance.reasonRequired"))
		}
		path := "/staff/bookings/" + seg(id) + "/refund/" + action
		if err := r.c.api.call(r.ctx(), r.who, http.MethodPost, path, map[string]string{"reason": reason}, "", nil); err != nil {
			return r.fail(err)
		}
		r.flash(r.text.T("finance."+action+"Done", id))
		return r.Redirect(http.StatusSeeOther, Prefix+"/finance/stuck")
	}
}
