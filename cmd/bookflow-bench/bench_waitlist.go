package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/worker"
)

// waitlistBench is what the waitlist's figures need of the cache bench: the API on its loopback
// port, the sold-out product of its flash sale, and the gate's sold-out answers measured there.
type waitlistBench struct {
	d        *deps
	queue    string
	root     string
	httpc    *http.Client
	token    string // the bench customer's, which holds
	o        benchOptions
	run      string
	flash    string // the flash sale's body: a sold-out stay
	soldOut  *result
	stay     domain.Stay
	customer func(i int) (string, error) // a token of a customer of its own
}

// benchWaitlist measures joining a sold-out product's waitlist behind the gate (each join a
// customer of its own, answered 201), against the gate's sold-out answers; then the time from a
// room freed by a guest's cancel to its offer's booking workflow holding it for the first in line.
func benchWaitlist(ctx context.Context, w waitlistBench) error {
	joins := measure(ctx, "join the waitlist behind the gate (201)", w.o.clients, 0, w.o.duration, func(ctx context.Context, i int) error {
		tok, err := w.customer(i)
		if err != nil {
			return err
		}
		code, body, err := w.post(ctx, "/waitlist", tok, "", w.flash)
		if err == nil && code != http.StatusCreated {
			err = fmt.Errorf("status %d: %s", code, body)
		}
		return err
	})
	joins.print(w.soldOut)
	return w.offerLatency(ctx)
}

// offerLatency frees rooms one at a time, 100 ms apart, by cancelling holds of a sold-out room
// type through the API, with as many customers waiting; each cancel's room is offered to the next
// in line, and the time until that offer's workflow is started is what a guest waits to be told.
func (w waitlistBench) offerLatency(ctx context.Context) error {
	const rooms = 30
	starter := &worker.OfferStarter{Temporal: w.d.temporal, Store: w.d.store,
		Resume: worker.ResumeOptions{TaskQueue: w.queue, LateWindow: time.Second}}
	starterCtx, stop := context.WithCancel(ctx)
	defer stop()
	go starter.Run(starterCtx)

	hotel := "bench-waitlist-" + w.run
	if err := w.d.store.SetInventory(ctx, db.SetInventoryParams{HotelID: hotel, RoomTypeID: "double",
		From: w.stay.CheckIn, To: w.stay.CheckOut, TotalRooms: rooms, Rate: &benchRate}); err != nil {
		return err
	}
	body := fmt.Sprintf(`{"hotelId":%q,"roomTypeId":"double","checkIn":%q,"checkOut":%q,"quantity":1}`, hotel, w.stay.CheckIn, w.stay.CheckOut)
	var holds []string
	for i := range rooms {
		code, answer, err := w.post(ctx, "/bookings", w.token, fmt.Sprintf("wl-hold-%d", i), body)
		if err != nil || code != http.StatusCreated {
			return fmt.Errorf("hold %d: %d %v %s", i, code, err, answer)
		}
		holds = append(holds, between(answer, `"id":"`, `"`))
	}
	var entries []string
	for i := range rooms {
		tok, err := w.customer(1_000_000_000 + i)
		if err != nil {
			return err
		}
		code, answer, err := w.post(ctx, "/waitlist", tok, "", body)
		if err != nil || code != http.StatusCreated {
			return fmt.Errorf("join %d: %d %v %s", i, code, err, answer)
		}
		entries = append(entries, between(answer, `"id":`, `,`))
	}
	freed := make([]time.Time, rooms)
	for i, id := range holds {
		freed[i] = time.Now()
		if code, answer, err := w.post(ctx, "/bookings/"+id+"/cancel", w.token, "", ""); err != nil || code != http.StatusOK {
			return fmt.Errorf("cancel %d: %d %v %s", i, code, err, answer)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var latencies []time.Duration
	deadline := time.Now().Add(time.Minute)
	for i, entry := range entries {
		var started *time.Time
		for started == nil {
			if err := w.d.store.Pool().QueryRow(ctx, `SELECT s.started_at FROM waitlist_entries e
				JOIN waitlist_offer_starts s ON s.booking_id = e.offer_booking_id WHERE e.id = $1`, entry).Scan(&started); err != nil &&
				!strings.Contains(err.Error(), "no rows") {
				return err
			}
			if started == nil {
				if time.Now().After(deadline) {
					return fmt.Errorf("entry %s's offer was not started within a minute", entry)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		latencies = append(latencies, started.Sub(freed[i]))
	}
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		return latencies[int(p*float64(len(latencies)-1))].Round(time.Millisecond)
	}
	fmt.Printf("  a room freed by a cancel, to its offer's workflow holding it: %d offers, p50 %s, p95 %s (goal p95 <= 5s); "+
		"the offer's hold itself commits with the cancel\n", len(latencies), pct(0.50), pct(0.95))
	return nil
}

// post sends body as the token's caller and answers the status and the body.
func (w waitlistBench) post(ctx context.Context, path, token, key, body string) (int, string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.root+"/api/v1"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := w.httpc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	return res.StatusCode, string(answer), err
}

// between is the text of s after the first from, up to the next to.
func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}

// customerTokens mints a customer's token of its own per index, for the run.
func customerTokens(run string) func(i int) (string, error) {
	return func(i int) (string, error) {
		return auth.Mint(benchIDKey, domain.Principal{Subject: fmt.Sprintf("waiter-%s-%d", run, i),
			Roles: []domain.Role{domain.RoleCustomer}}, time.Hour, auth.MintOptions{})
	}
}
