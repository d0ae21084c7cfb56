package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// A search's answer is written by hand, byte for byte as encoding/json writes it
// (TestASearchAnswerIsWrittenAsEncodingJSONWritesIt): at a hotel of 20 plans it holds 200 offers
// of terms and nights, and reflection over them was most of the search's time. Each plan's terms
// are encoded once per answer, by encoding/json, and reused for every room type; prices, nights
// and dates are appended without reflection.

// answerBuffers keeps answers' buffers between searches (an answer of 20 plans is about 120 KB).
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// offerTerms are what an offer shares with every room type's offer of its plan.
type offerTerms struct {
	ratePlan, name, includes string
	board                    domain.Board
	policy                   domain.RatePlanPolicy
	payment                  domain.PaymentRule
}

func termsOf(o domain.Offer) offerTerms {
	return offerTerms{ratePlan: o.RatePlan, name: o.Name, includes: o.Includes, board: o.Board, policy: o.Policy,
		payment: o.Payment}
}

// answerWriter appends an answer, keeping each plan's encoded terms: the hotel's, encoded when
// its terms were read (hotelMeta.terms, shared), and its own.
type answerWriter struct {
	shared, terms map[string]encodedTerms // by plan code
	dates         []encodedDate
}

// encodedTerms are an offer's JSON up to its price: {"ratePlan":...,"payment":{...}.
type encodedTerms struct {
	terms offerTerms
	json  []byte
}

// appendAvailability appends v as encoding/json writes it.
func (w *answerWriter) appendAvailability(b []byte, v availabilityView) ([]byte, error) {
	b = append(b, `{"hotelId":`...)
	b = appendString(b, v.HotelID)
	b = w.appendDate(append(b, `,"checkIn":`...), v.CheckIn)
	b = w.appendDate(append(b, `,"checkOut":`...), v.CheckOut)
	b = strconv.AppendInt(append(b, `,"nights":`...), int64(v.Nights), 10)
	if v.ChannelID != "" {
		b = appendString(append(b, `,"channelId":`...), v.ChannelID)
	}
	if v.AgentID != "" {
		b = appendString(append(b, `,"agentId":`...), v.AgentID)
	}
	b = append(b, `,"roomTypes":`...)
	if v.RoomTypes == nil {
		return append(b, "null}"...), nil
	}
	b = append(b, '[')
	for i, r := range v.RoomTypes {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = w.appendRoomType(b, r); err != nil {
			return nil, err
		}
	}
	return append(b, "]}"...), nil
}

func (w *answerWriter) appendRoomType(b []byte, r db.RoomTypeAvailability) ([]byte, error) {
	b = appendString(append(b, `{"roomTypeId":`...), r.RoomTypeID)
	b = strconv.AppendInt(append(b, `,"available":`...), int64(r.Available), 10)
	if r.Unlimited {
		b = append(b, `,"unlimited":true`...)
	}
	b = append(b, `,"nights":`...)
	if r.Nights == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, n := range r.Nights {
			if i > 0 {
				b = append(b, ',')
			}
			b = w.appendDate(append(b, `{"date":`...), n.Date)
			b = strconv.AppendInt(append(b, `,"available":`...), int64(n.Available), 10)
			if n.Unlimited {
				b = append(b, `,"unlimited":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.UnavailableBecause != "" {
		b = appendString(append(b, `,"unavailableBecause":`...), r.UnavailableBecause)
	}
	if r.SupplierPrice != nil {
		supplier, err := json.Marshal(r.SupplierPrice)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"supplierPrice":`...), supplier...)
	}
	if len(r.Offers) > 0 {
		b = append(b, `,"offers":[`...)
		for i, o := range r.Offers {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = w.appendOffer(b, o); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// sellableSuffix ends an offer encoded without its price, sellable or reason.
const sellableSuffix = `,"sellable":false}`

func (w *answerWriter) appendOffer(b []byte, o domain.Offer) ([]byte, error) {
	terms := termsOf(o)
	enc, ok := w.shared[o.RatePlan]
	if !ok || enc.terms != terms {
		enc, ok = w.terms[o.RatePlan]
	}
	if !ok || enc.terms != terms {
		var err error
		if enc, err = encodeTerms(o); err != nil {
			return nil, err
		}
		if w.terms == nil {
			w.terms = map[string]encodedTerms{}
		}
		w.terms[o.RatePlan] = enc
	}
	b = append(b, enc.json...)
	if o.Price != nil {
		var err error
		if b, err = w.appendPrice(append(b, `,"price":`...), *o.Price); err != nil {
			return nil, err
		}
	}
	b = strconv.AppendBool(append(b, `,"sellable":`...), o.Sellable)
	if o.UnsellableBecause != "" {
		b = appendString(append(b, `,"unsellableBecause":`...), o.UnsellableBecause)
	}
	return append(b, '}'), nil
}

// encodeTerms encodes an offer's terms by encoding/json.
func encodeTerms(o domain.Offer) (encodedTerms, error) {
	full, err := json.Marshal(domain.Offer{RatePlan: o.RatePlan, Name: o.Name, Board: o.Board, Includes: o.Includes,
		Policy: o.Policy, Payment: o.Payment})
	return encodedTerms{terms: termsOf(o), json: bytes.TrimSuffix(full, []byte(sellableSuffix))}, err
}

// planTerms are the encoded terms of a hotel's plans, as its offers carry them (OfferTerms).
func planTerms(m hotelMeta) (map[string]encodedTerms, error) {
	out := make(map[string]encodedTerms, len(m.plans.Plans()))
	for _, plan := range m.plans.Plans() {
		enc, err := encodeTerms(plan.OfferTerms(m.hotel.Policy))
		if err != nil {
			return nil, err
		}
		out[plan.Code] = enc
	}
	return out, nil
}

func (w *answerWriter) appendPrice(b []byte, p domain.Price) ([]byte, error) {
	b = appendString(append(b, `{"currency":`...), p.Currency)
	b = strconv.AppendInt(append(b, `,"total":`...), p.Total, 10)
	b = append(b, `,"nights":`...)
	if p.Nights == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, n := range p.Nights {
			if i > 0 {
				b = append(b, ',')
			}
			b = w.appendDate(append(b, `{"date":`...), n.Date)
			b = append(strconv.AppendInt(append(b, `,"amount":`...), n.Amount, 10), '}')
		}
		b = append(b, ']')
	}
	if len(p.Lines) > 0 {
		lines, err := json.Marshal(p.Lines)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"lines":`...), lines...)
	}
	return append(b, '}'), nil
}

// appendDate appends a date as encoding/json writes its MarshalText: quoted digits and dashes. An
// answer writes the stay's few dates again and again: each is kept as written.
func (w *answerWriter) appendDate(b []byte, d domain.Date) []byte {
	for _, e := range w.dates {
		if e.date == d {
			return append(b, e.json...)
		}
	}
	start := len(b)
	b = append(b, '"')
	b, _ = d.AppendText(b) // never fails
	b = append(b, '"')
	if len(w.dates) < maxKeptDates {
		w.dates = append(w.dates, encodedDate{date: d, json: slices.Clone(b[start:])})
	}
	return b
}

// maxKeptDates bounds the dates an answer keeps as written (a stay is at most a few weeks).
const maxKeptDates = 64

type encodedDate struct {
	date domain.Date
	json []byte
}

// appendString appends s quoted as encoding/json writes it: printable ASCII other than the quote,
// the backslash and the characters it escapes for HTML as it stands; anything else through
// encoding/json itself (a string cannot fail to encode).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			quoted, _ := json.Marshal(s)
			return append(b, quoted...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// writeAvailability answers v as c.JSON would (indented with ?pretty or in debug mode, a newline
// at the end), encoded by hand.
func writeAvailability(c echo.Context, m hotelMeta, v availabilityView) error {
	buf := answerBuffers.Get().(*[]byte)
	defer answerBuffers.Put(buf)
	w := answerWriter{shared: m.terms}
	b, err := w.appendAvailability((*buf)[:0], v)
	if err != nil {
		return err
	}
	if _, pretty := c.QueryParams()["pretty"]; pretty || c.Echo().Debug {
		var indented bytes.Buffer
		if err := json.Indent(&indented, b, "", "  "); err != nil {
			return err
		}
		b = append(b[:0], indented.Bytes()...)
	}
	*buf = append(b, '\n')
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, *buf)
}
