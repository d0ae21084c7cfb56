// Package suppliersim is a simulated hotel-room supplier: an HTTP server speaking the
// suppliers protocol (stock, quotes, holds, cancels) from stock it keeps in memory, and able to
// push its stock to bookflow. Tests and the local demo use it; it can be told to be slow, to
// fail, to reject every hold, or to report fewer rooms than bookflow sold (disagree).
package suppliersim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
)

// Behaviour is how the supplier misbehaves; the zero value behaves.
type Behaviour struct {
	Delay    time.Duration // every answer waits this long
	Fail     bool          // every request answers 503
	Reject   bool          // every hold is rejected
	Disagree int           // stock reports and quotes show this many rooms fewer than it has
	// NoReportTime leaves reportedAt out of stock reports, as suppliers from before it did.
	NoReportTime bool
}

type key struct {
	hotel, roomType string
	date            domain.Date
}

type night struct {
	total    *int // nil: unlimited
	sold     int
	rate     int64
	currency string
}

type hold struct {
	answer    suppliers.HoldAnswer
	req       suppliers.HoldRequest
	cancelled bool
}

// Sim is the simulated supplier.
type Sim struct {
	mu        sync.Mutex
	stock     map[key]*night
	holds     map[string]*hold
	behaviour Behaviour
	calls     map[string]int
	seq       int
}

// New returns a supplier with no stock.
func New() *Sim {
	return &Sim{stock: map[key]*night{}, holds: map[string]*hold{}, calls: map[string]int{}}
}

// SetStock sets a room type's total (nil: unlimited) and rate on the nights [from, to); what it
// sold stays sold.
func (s *Sim) SetStock(hotel, roomType string, from, to domain.Date, total *int, rate int64, currency string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := from; d.Before(to); d = d.AddDays(1) {
		k := key{hotel, roomType, d}
		n := s.stock[k]
		if n == nil {
			n = &night{}
			s.stock[k] = n
		}
		n.total, n.rate, n.currency = total, rate, currency
	}
}

// Set changes how the supplier behaves from now on.
func (s *Sim) Set(b Behaviour) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.behaviour = b
}

// Hold returns the supplier's answer to a booking, if it was asked.
func (s *Sim) Hold(reference string) (suppliers.HoldAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.holds[reference]
	if !ok {
		return suppliers.HoldAnswer{}, false
	}
	return h.answer, true
}

// Cancelled reports whether the supplier was told a booking is off.
func (s *Sim) Cancelled(reference string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.holds[reference]
	return ok && h.cancelled
}

// Calls counts the requests to a path ("/stock", "/quotes", "/holds", "/cancel").
func (s *Sim) Calls(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

// Report is the hotel's stock on the nights [from, to), as the supplier reports it now.
func (s *Sim) Report(hotel string, from, to domain.Date) domain.StockReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := domain.StockReport{HotelID: hotel, RoomTypes: []domain.RoomTypeStock{}}
	if !s.behaviour.NoReportTime {
		now := time.Now()
		r.ReportedAt = &now
	}
	byType := map[string]int{}
	for d := from; d.Before(to); d = d.AddDays(1) {
		for k, n := range s.stock {
			if k.hotel != hotel || k.date != d {
				continue
			}
			i, ok := byType[k.roomType]
			if !ok {
				i = len(r.RoomTypes)
				byType[k.roomType] = i
				r.RoomTypes = append(r.RoomTypes, domain.RoomTypeStock{RoomTypeID: k.roomType})
			}
			r.RoomTypes[i].Nights = append(r.RoomTypes[i].Nights, domain.StockNight{Date: d, Total: s.reported(n),
				Rate: n.rate, Currency: n.currency})
		}
	}
	return r
}

// reported is a night's total as the supplier reports it (fewer when it disagrees).
func (s *Sim) reported(n *night) *int {
	if n.total == nil {
		return nil
	}
	t := max(*n.total-s.behaviour.Disagree, 0)
	return &t
}

// Handler serves the suppliers protocol.
func (s *Sim) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stock", s.serveStock)
	mux.HandleFunc("POST /quotes", s.guard("/quotes", s.serveQuote))
	mux.HandleFunc("POST /holds", s.guard("/holds", s.serveHold))
	mux.HandleFunc("POST /holds/{reference}/cancel", s.guard("/cancel", s.serveCancel))
	return mux
}

// guard counts the call and applies the behaviour's failure and delay.
func (s *Sim) guard(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.arrive(w, r, name) {
			h(w, r)
		}
	}
}

// arrive counts a call, waits the behaviour's delay and answers its failure; it reports whether
// the request goes on.
func (s *Sim) arrive(w http.ResponseWriter, r *http.Request, name string) bool {
	s.mu.Lock()
	s.calls[name]++
	b := s.behaviour
	s.mu.Unlock()
	if b.Delay > 0 {
		select {
		case <-time.After(b.Delay):
		case <-r.Context().Done():
			return false
		}
	}
	if b.Fail {
		http.Error(w, "supplier unavailable", http.StatusServiceUnavailable)
		return false
	}
	return true
}

// serveStock reads the stock when asked and answers after the delay, as a slow supplier's report
// is the stock as it was when it read it.
func (s *Sim) serveStock(w http.ResponseWriter, r *http.Request) {
	from, err1 := domain.ParseDate(r.URL.Query().Get("from"))
	to, err2 := domain.ParseDate(r.URL.Query().Get("to"))
	if err1 != nil || err2 != nil || !to.After(from) {
		http.Error(w, "from and to are dates, to after from", http.StatusBadRequest)
		return
	}
	report := s.Report(r.URL.Query().Get("hotelId"), from, to)
	if s.arrive(w, r, "/stock") {
		writeJSON(w, report)
	}
}

func (s *Sim) serveQuote(w http.ResponseWriter, r *http.Request) {
	var q suppliers.QuoteRequest
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.Quantity < 1 || !q.CheckOut.After(q.CheckIn) {
		http.Error(w, "malformed quote request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, s.quote(q))
}

// quote prices the stay when every night has the rooms (the lock is held).
func (s *Sim) quote(q suppliers.QuoteRequest) suppliers.Quote {
	out := suppliers.Quote{Available: true}
	for d := q.CheckIn; d.Before(q.CheckOut); d = d.AddDays(1) {
		n := s.stock[key{q.HotelID, q.RoomTypeID, d}]
		if n == nil || (n.total != nil && *s.reported(n)-n.sold < q.Quantity) {
			return suppliers.Quote{}
		}
		out.Currency = n.currency
		out.Nights = append(out.Nights, domain.NightRate{Date: d, Amount: n.rate * int64(q.Quantity)})
		out.Total += n.rate * int64(q.Quantity)
	}
	return out
}

func (s *Sim) serveHold(w http.ResponseWriter, r *http.Request) {
	var h suppliers.HoldRequest
	if err := json.NewDecoder(r.Body).Decode(&h); err != nil || h.Reference == "" || h.Quantity < 1 {
		http.Error(w, "malformed hold request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.holds[h.Reference]; ok {
		writeJSON(w, prev.answer) // asked again: the first answer
		return
	}
	ans := suppliers.HoldAnswer{Status: suppliers.HoldRejected, Reason: "no rooms left"}
	switch {
	case s.behaviour.Reject:
		ans.Reason = "the supplier rejects every booking (simulated)"
	case s.quote(h.QuoteRequest).Available:
		for d := h.CheckIn; d.Before(h.CheckOut); d = d.AddDays(1) {
			s.stock[key{h.HotelID, h.RoomTypeID, d}].sold += h.Quantity
		}
		s.seq++
		ans = suppliers.HoldAnswer{Status: suppliers.HoldConfirmed, Confirmation: fmt.Sprintf("SIM-%05d", s.seq)}
	}
	s.holds[h.Reference] = &hold{answer: ans, req: h}
	writeJSON(w, ans)
}

func (s *Sim) serveCancel(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("reference")
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.holds[ref]
	if !ok {
		// Never asked (or the request was lost before it arrived): nothing to undo, but
		// remember the cancel so a hold arriving late is not confirmed.
		s.holds[ref] = &hold{answer: suppliers.HoldAnswer{Status: suppliers.HoldRejected, Reason: "cancelled"}, cancelled: true}
		writeJSON(w, map[string]string{"status": "cancelled"})
		return
	}
	if !h.cancelled && h.answer.Status == suppliers.HoldConfirmed {
		for d := h.req.CheckIn; d.Before(h.req.CheckOut); d = d.AddDays(1) {
			s.stock[key{h.req.HotelID, h.req.RoomTypeID, d}].sold -= h.req.Quantity
		}
	}
	h.cancelled = true
	writeJSON(w, map[string]string{"status": "cancelled"})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Push sends a stock report to bookflow's push endpoint at baseURL, signed with secret.
func Push(ctx context.Context, baseURL, supplierID, secret string, report domain.StockReport) error {
	body, err := json.Marshal(report)
	if err != nil {
		return err
	}
	url := strings.TrimRight(baseURL, "/") + "/api/v1/suppliers/" + supplierID + "/stock"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(suppliers.SignatureHeader, suppliers.Sign(body, secret, time.Now()))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var e map[string]any
		_ = json.NewDecoder(res.Body).Decode(&e)
		return fmt.Errorf("push answered %s: %v", res.Status, e)
	}
	return nil
}
