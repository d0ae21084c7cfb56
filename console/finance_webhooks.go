package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// unprocessableEvent is a signed webhook event bookflow could not act on, as the API lists it.
type unprocessableEvent struct {
	EventID    string          `json:"eventId"`
	Type       string          `json:"type"`
	Problem    string          `json:"problem"`
	Payload    json.RawMessage `json:"payload"`
	ReceivedAt time.Time       `json:"receivedAt"`
}

// PayloadText is the raw event as the provider sent it, for finance to read.
func (e unprocessableEvent) PayloadText() string { return string(e.Payload) }

// webhooksView is one page of them.
type webhooksView struct {
	Events []unprocessableEvent `json:"events"`
	Next   string               `json:"next"`
	Older  string               `json:"-"` // the link to the next page, when there is one
	First  bool                 `json:"-"` // whether this is the newest page
	UTC    *time.Location       `json:"-"` // events belong to no site: shown in UTC
}

// financeWebhooks lists the signed provider events bookflow could never act on, newest first, a
// page at a time (before: the receivedAt the previous page ended at).
func (c *Console) financeWebhooks(r *request) error {
	var v webhooksView
	before := r.QueryParam("before")
	if err := r.c.api.call(r.ctx(), r.who, http.MethodGet, q("/staff/webhooks/unprocessable", "before", before), nil, "", &v); err != nil {
		return r.fail(err)
	}
	v.First, v.UTC = before == "", time.UTC
	if v.Next != "" {
		v.Older = Prefix + "/finance/webhooks?before=" + url.QueryEscape(v.Next)
	}
	return r.render(http.StatusOK, "finance_webhooks", r.text.T("finance.webhooksTitle"), v)
}
