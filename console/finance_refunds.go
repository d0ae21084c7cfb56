package console

import (
	"net/http"
	"strings"

	"github.com/bookflow/bookflow/domain"
)

// manualRefundForm is the form for a refund finance made outside bookflow.
type manualRefundForm struct {
	Key       string // the form's idempotency key: sending it twice records one refund (keyFor: again after a timeout too)
	PaymentID string
	Methods   []string
}

// financeManualRefundForm asks for a refund finance gave back by hand for a payment no booking
// keeps (the invariant checker's unmatched_payment).
func (c *Console) financeManualRefundForm(r *request) error {
	return r.render(http.StatusOK, "finance_refunds", r.text.T("finance.manualTitle"),
		manualRefundForm{Key: "manual-" + newToken(), PaymentID: r.QueryParam("payment"), Methods: domain.DeskMethods})
}

// financeManualRefund records it through the API, which refuses a payment a booking keeps and
// more than is left of it.
func (c *Console) financeManualRefund(r *request) error {
	payment := strings.TrimSpace(r.FormValue("payment"))
	currency := strings.ToUpper(strings.TrimSpace(r.FormValue("currency")))
	if payment == "" || len(currency) != 3 {
		return r.c.renderError(r, http.StatusBadRequest, r.text.T("finance.manualInvalid"))
	}
	amount, err := parseAmount(r.FormValue("amount"), currency)
	if err != nil || amount <= 0 {
		return r.c.renderError(r, http.StatusBadRequest, r.text.T("finance.badAmount", r.FormValue("amount"), currency))
	}
	body := map[string]any{"amount": amount, "currency": currency, "method": r.FormValue("method"),
		"reference": strings.TrimSpace(r.FormValue("reference")), "reason": strings.TrimSpace(r.FormValue("reason"))}
	intent := "manual-refund:" + payment
	key := r.keyFor(intent)
	err = r.c.api.call(r.ctx(), r.who, http.MethodPost, "/staff/payments/"+seg(payment)+"/manual-refunds", body, key, nil)
	if r.settle(intent, key, err); err != nil {
		return r.fail(err)
	}
	r.flash(r.text.T("finance.manualDone", formatMoney(amount, currency), payment))
	return r.Redirect(http.StatusSeeOther, Prefix+"/finance/manual-refunds")
}
