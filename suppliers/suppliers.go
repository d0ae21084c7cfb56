// Package suppliers talks to the outside suppliers of hotel rooms: it reads their stock, asks
// them for quotes, asks them to confirm or cancel a booking, and verifies the stock they push.
// The protocol is JSON over HTTP; testsuite's simulated supplier serves it.
package suppliers

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bookflow/bookflow/domain"
)

// QuoteRequest asks a supplier what a stay costs and whether it has the rooms.
type QuoteRequest struct {
	HotelID    string      `json:"hotelId"`
	RoomTypeID string      `json:"roomTypeId"`
	CheckIn    domain.Date `json:"checkIn"`
	CheckOut   domain.Date `json:"checkOut"`
	Quantity   int         `json:"quantity"`
}

// Quote is a supplier's answer: available, and the price of the whole quantity per night.
type Quote struct {
	Available bool               `json:"available"`
	Currency  string             `json:"currency,omitempty"`
	Nights    []domain.NightRate `json:"nights,omitempty"`
	Total     int64              `json:"total,omitempty"`
}

// Validate checks an available quote against the stay it was asked for: one positive amount
// per night of the stay, in order, in one currency, adding up to the total.
func (q Quote) Validate(r QuoteRequest) error {
	if !q.Available {
		return nil
	}
	bad := func(why string) error { return fmt.Errorf("%w: the supplier's quote %s", ErrRefused, why) }
	if err := domain.ValidateCurrency(q.Currency); err != nil {
		return bad("has no valid currency")
	}
	if len(q.Nights) != r.CheckIn.DaysUntil(r.CheckOut) {
		return bad("does not price every night of the stay")
	}
	var sum int64
	for i, n := range q.Nights {
		if n.Date != r.CheckIn.AddDays(i) || n.Amount <= 0 || n.Amount > domain.MaxSupplierRate*int64(r.Quantity) {
			return bad("prices a night it was not asked for, or at no or an impossible price")
		}
		sum += n.Amount
	}
	if sum != q.Total {
		return bad("does not add up to its total")
	}
	return nil
}

// Price is the quote as a booking's price snapshot.
func (q Quote) Price() domain.Price {
	return domain.Price{Currency: q.Currency, Total: q.Total, Nights: q.Nights}
}

// HoldRequest asks a supplier to confirm a booking; Reference (the booking id) makes it
// idempotent: asking again answers the first outcome.
type HoldRequest struct {
	Reference string `json:"reference"`
	QuoteRequest
}

// Hold outcomes.
const (
	HoldConfirmed = "confirmed"
	HoldRejected  = "rejected"
)

// HoldAnswer is the supplier's word on a booking: confirmed (with its confirmation number) or
// rejected (with a reason).
type HoldAnswer struct {
	Status       string `json:"status"`
	Confirmation string `json:"confirmation,omitempty"`
	Reason       string `json:"reason,omitempty"`
}

// Client calls suppliers' endpoints.
type Client struct {
	HTTP *http.Client // http.Client with a 10 s timeout when nil
}

// ErrRefused marks an answer the supplier will give again however often it is asked (a 4xx):
// retrying does not help.
var ErrRefused = errors.New("the supplier refused the request")

func (c Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 10 * time.Second}
}

// Stock reads a hotel's stock for the nights [from, to).
func (c Client) Stock(ctx context.Context, endpoint, hotelID string, from, to domain.Date) (domain.StockReport, error) {
	var r domain.StockReport
	q := url.Values{"hotelId": {hotelID}, "from": {from.String()}, "to": {to.String()}}
	err := c.call(ctx, http.MethodGet, endpoint+"/stock?"+q.Encode(), nil, &r)
	return r, err
}

// Quote asks what a stay costs and whether the supplier has the rooms. A quote that does not
// price the stay it was asked for is refused (ErrRefused).
func (c Client) Quote(ctx context.Context, endpoint string, q QuoteRequest) (Quote, error) {
	var out Quote
	err := c.call(ctx, http.MethodPost, endpoint+"/quotes", q, &out)
	if err == nil {
		err = out.Validate(q)
	}
	return out, err
}

// Hold asks the supplier to confirm a booking.
func (c Client) Hold(ctx context.Context, endpoint string, h HoldRequest) (HoldAnswer, error) {
	var out HoldAnswer
	err := c.call(ctx, http.MethodPost, endpoint+"/holds", h, &out)
	if err == nil && out.Status != HoldConfirmed && out.Status != HoldRejected {
		err = fmt.Errorf("the supplier answered hold status %q", out.Status)
	}
	return out, err
}

// Cancel tells the supplier a booking is off; cancelling one it never confirmed, or twice, is
// not an error.
func (c Client) Cancel(ctx context.Context, endpoint, reference string) error {
	return c.call(ctx, http.MethodPost, endpoint+"/holds/"+url.PathEscape(reference)+"/cancel", nil, nil)
}

func (c Client) call(ctx context.Context, method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http().Do(req)
	if err != nil {
		return fmt.Errorf("supplier %s %s: %w", method, redact(u), err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return err
	}
	switch {
	case res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("supplier %s %s: %s", method, redact(u), res.Status)
	case res.StatusCode >= 400:
		return fmt.Errorf("%w: %s %s: %s: %.200s", ErrRefused, method, redact(u), res.Status, raw)
	case out == nil:
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("supplier %s %s: malformed answer: %w", method, redact(u), err)
	}
	return nil
}

// redact drops a URL's query and credentials from error messages.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(endpoint)"
	}
	p.User, p.RawQuery = nil, ""
	return p.String()
}

// SignatureHeader carries a pushed report's signature: "t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<body>" under the supplier's push secret>". Agents' webhooks are signed the same way.
const SignatureHeader = "Bookflow-Signature"

// DefaultTolerance is how old a signed timestamp may be: as far as a supplier's clock may be off.
const DefaultTolerance = domain.SupplierClockSkew

// Sign returns the signature header value for body at instant at.
func Sign(body []byte, secret string, at time.Time) string {
	return SignAll(body, []string{secret}, at)
}

// SignAll is Sign with a v1 signature for each secret: a receiver rotating its secret verifies
// with either.
func SignAll(body []byte, secrets []string, at time.Time) string {
	t := strconv.FormatInt(at.Unix(), 10)
	header := "t=" + t
	for _, secret := range secrets {
		header += ",v1=" + mac(body, secret, t)
	}
	return header
}

func mac(body []byte, secret, t string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t + "."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// ErrBadSignature: the signature is missing, malformed, too old or not made with the secret.
var ErrBadSignature = errors.New("bad signature")

// Verify checks a signature header for body against secret, at now, within tolerance.
func Verify(body []byte, header, secret string, now time.Time, tolerance time.Duration) error {
	if secret == "" {
		return fmt.Errorf("%w: no secret is set to verify it with", ErrBadSignature)
	}
	t, sigs := parseSignature(header)
	sec, err := strconv.ParseInt(t, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: want %s: t=<unix seconds>,v1=<hex>", ErrBadSignature, SignatureHeader)
	}
	if age := now.Sub(time.Unix(sec, 0)); age > tolerance || age < -tolerance {
		return fmt.Errorf("%w: the timestamp is outside the %s tolerance", ErrBadSignature, tolerance)
	}
	want := mac(body, secret, t)
	if !slices.ContainsFunc(sigs, func(s string) bool { return hmac.Equal([]byte(s), []byte(want)) }) {
		return fmt.Errorf("%w: no signature matches", ErrBadSignature)
	}
	return nil
}

// parseSignature splits a signature header into its timestamp and its v1 signatures.
func parseSignature(header string) (t string, sigs []string) {
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			t = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	return t, sigs
}

// Digest identifies a signed message by the SHA-256 of its signed timestamp and body: the same
// push sent again has the same digest, however its signatures are listed; one signed anew (a
// new timestamp) has another.
func Digest(body []byte, header string) string {
	t, _ := parseSignature(header)
	h := sha256.New()
	h.Write([]byte(t + "."))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// OpenAPIYAML is the supplier-facing OpenAPI document (suppliers/openapi.yaml): the calls
// bookflow makes to a supplier and the push it accepts. Its test holds this package's client
// and the simulated supplier to it.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte
