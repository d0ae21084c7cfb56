package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// The money clients: besides the checkout clients, guests who amend a paid booking up (and pay
// the balance, pay it too late, or let it lapse) or down, the front desk taking payments and
// giving part back, and venue orders amended down at the desk. Each client runs its stories one
// after another, every command under an idempotency key sent again until it is answered, and
// writes what it was told in the ledger; countMoney judges the money against it.

// The stories.
const (
	storyAmendUp   = "amend-up"
	storyAmendDown = "amend-down"
	storyDesk      = "desk"
	storyVenue     = "venue"
)

// The venue the money clients order at: one lane sold by the hour, places to spare.
const (
	chaosVenue   = "chaos-venue"
	chaosLane    = "chaos-lane"
	laneDays     = 7
	lanePrice    = 1500
	laneCapacity = 10_000
)

// prepareVenue sets up the venue the money clients order at: a lane with places to spare, one
// slot an hour for laneDays from the stay's check-in, holds waiting a minute for payment.
func (h *harness) prepareVenue(ctx context.Context) error {
	v := domain.NewVenue(chaosVenue, "Chaos lanes", "UTC")
	v.PaymentWindowMinutes = 1
	r := domain.VenueResource{ID: chaosLane, VenueID: chaosVenue, Kind: domain.KindQuotaSlot, Unit: domain.UnitSlot,
		Name: "lane", Capacity: laneCapacity}
	sched := domain.Schedule{From: h.stay.CheckIn, To: h.stay.CheckIn.AddDays(laneDays), Opens: "00:00", Closes: "24:00",
		SlotMinutes: 60, Price: domain.Money{Amount: lanePrice, Currency: "EUR"}}
	if err := v.Validate(); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	if err := sched.Validate(r.Unit); err != nil {
		return err
	}
	if _, err := h.store.PutVenue(ctx, v); err != nil {
		return err
	}
	if _, err := h.store.PutVenueResource(ctx, r); err != nil {
		return err
	}
	_, err := h.store.ApplySchedule(ctx, chaosVenue, chaosLane, sched)
	return err
}

// moneyClient is one money client's tokens: the guest's, and the front desk's of the chaos
// hotels and venue.
type moneyClient struct {
	ld          *load
	settle      context.Context
	guest, desk string
	n           int
	hotels      []string // those with rooms to spare: amendments add rooms
	stay        domain.Stay
	venueStarts time.Time
}

func (ld *load) moneyClient(settle context.Context, c int, hotels []string) *moneyClient {
	name := fmt.Sprintf("r%d-m%d", ld.run, c)
	guest, _ := auth.Mint(ld.s.jwtSecret, domain.Principal{Subject: name, Roles: []domain.Role{domain.RoleCustomer}},
		time.Hour, auth.MintOptions{})
	desk, _ := auth.Mint(ld.s.jwtSecret, domain.Principal{Subject: "desk-" + name, Roles: []domain.Role{domain.RoleFrontDesk},
		Hotels: hotels, Venues: []string{chaosVenue}}, time.Hour, auth.MintOptions{})
	return &moneyClient{ld: ld, settle: settle, guest: guest, desk: desk, hotels: hotels[1:], stay: ld.stay,
		venueStarts: ld.stay.CheckIn.Time()}
}

// story runs one story, chosen at random; ctx bounds its start, settle its steps.
func (m *moneyClient) story(ctx context.Context) {
	m.n++
	switch r := rand.Float64(); {
	case r < 0.3:
		m.amendUp(ctx)
	case r < 0.5:
		m.amendDown(ctx)
	case r < 0.75:
		m.deskMoney(ctx)
	default:
		m.venueOrder(ctx)
	}
}

// paidBooking holds quantity rooms, pays through the checkout and waits until it is confirmed;
// "" when the story ends before (sold out, no answer, not confirmed in time).
func (m *moneyClient) paidBooking(ctx context.Context, story string, quantity int) (moneyView, bool) {
	hotel := m.hotels[rand.IntN(len(m.hotels))]
	b, ok := m.hold(ctx, story, "/api/v1/bookings", map[string]any{"hotelId": hotel, "roomTypeId": "double",
		"checkIn": m.stay.CheckIn, "checkOut": m.stay.CheckOut, "quantity": quantity})
	if !ok {
		return b, false
	}
	pi := m.ld.checkout(m.settle, b.ID, m.guest)
	m.ld.pay(m.settle, pi, b.ID, b.Price.Total, true, rand.Float64() < 0.2)
	return m.confirmed(b.ID)
}

// hold makes a hold as the guest under a key of its own, sent again until answered.
func (m *moneyClient) hold(ctx context.Context, story, path string, body map[string]any) (moneyView, bool) {
	m.ld.l.count()
	var b moneyView
	for ctx.Err() == nil {
		status, ok := m.ld.call(ctx, http.MethodPost, path, m.guest, fmt.Sprintf("%s-%d", story, m.n), body, &b)
		if (status == http.StatusCreated || status == http.StatusOK) && ok && b.ID != "" && b.Status == "HOLD" {
			m.ld.l.book(b.ID, &granted{run: m.ld.run, hotel: b.HotelID, price: b.Price.Total, expiresAt: b.ExpiresAt, story: story})
			return b, true
		}
		if status != 0 && status < 500 {
			return b, false
		}
		sleep(ctx, 300*time.Millisecond)
	}
	return b, false
}

// confirmed waits up to 20 s for the booking to be CONFIRMED.
func (m *moneyClient) confirmed(id string) (moneyView, bool) {
	var b moneyView
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && m.settle.Err() == nil; {
		if status, ok := m.ld.call(m.settle, http.MethodGet, "/api/v1/bookings/"+id, m.guest, "", nil, &b); status == http.StatusOK && ok {
			switch b.Status {
			case "CONFIRMED":
				return b, true
			case "HOLD":
			default:
				return b, false
			}
		}
		sleep(m.settle, 250*time.Millisecond)
	}
	return b, false
}

// amendUp adds a night or a room to a paid booking, then pays the balance in time, pays it
// too late, or lets it lapse; sometimes the guest cancels afterwards.
func (m *moneyClient) amendUp(ctx context.Context) {
	b, ok := m.paidBooking(ctx, storyAmendUp, 1)
	if !ok {
		return
	}
	change := map[string]any{"quantity": 2}
	if rand.IntN(2) == 0 {
		change = map[string]any{"checkOut": m.stay.CheckOut.AddDays(1)}
	}
	var out amendmentAnswer
	status := m.command(b.ID, m.guest, "/api/v1/bookings/"+b.ID+"/amendments", fmt.Sprintf("up-%d", m.n), change, &out)
	if status != http.StatusOK || out.Amendment.Status != string(domain.AmendmentBalanceDue) {
		m.maybeCancel(b.ID, 0.3)
		return
	}
	a := out.Amendment
	switch r := rand.Float64(); {
	case r < 0.6: // the balance paid through its checkout
		m.payBalance(m.ld.checkout(m.settle, b.ID, m.guest), b.ID, a) // the checkout answers the balance's payment
	case r < 0.75: // paid after its window: given back as a second payment
		sleep(m.settle, time.Until(a.DueBy)+time.Second)
		m.payBalance(fmt.Sprintf("pi_chaos_balance_r%d_%d", m.ld.run, rand.Int64()), b.ID, a)
	default: // left to lapse
		sleep(m.settle, time.Until(a.DueBy)+500*time.Millisecond)
	}
	m.maybeCancel(b.ID, 0.25)
}

// payBalance pays the amendment's balance at the provider and delivers its webhook, naming
// the amendment as bookflow's checkout does.
func (m *moneyClient) payBalance(pi, id string, a amendmentView) {
	m.ld.l.pay(pi, &paid{run: m.ld.run, bookingID: id, amount: a.Difference, amendmentID: a.ID, dueBy: a.DueBy})
	m.ld.deliver(m.settle, pi, a.Difference, payments.BalanceIntentObject(pi, id, a.ID, a.Difference, "EUR"), false)
}

// amendDown holds two rooms, pays, and gives one back: the difference is refunded whole (the
// hotels refund in full until check-in).
func (m *moneyClient) amendDown(ctx context.Context) {
	b, ok := m.paidBooking(ctx, storyAmendDown, 2)
	if !ok {
		return
	}
	var out amendmentAnswer
	m.command(b.ID, m.guest, "/api/v1/bookings/"+b.ID+"/amendments", fmt.Sprintf("down-%d", m.n), map[string]any{"quantity": 1}, &out)
	m.maybeCancel(b.ID, 0.25)
}

// deskMoney holds a room and the desk takes a cash deposit, which confirms the hold (issue 39)
// owing the rest at the desk. The desk takes the rest (sometimes after the guest paid it online
// too: a second payment, given back whole), then gives part back, once or twice, and sometimes
// the guest cancels. Or the rest is left due and the guest cancels, the deposit going back: the
// money count wants a booking that holds its room to keep its price (less staff refunds), so a
// booking left owing at the desk is not left so.
func (m *moneyClient) deskMoney(ctx context.Context) {
	hotel := m.hotels[rand.IntN(len(m.hotels))]
	b, ok := m.hold(ctx, storyDesk, "/api/v1/bookings", map[string]any{"hotelId": hotel, "roomTypeId": "double",
		"checkIn": m.stay.CheckIn, "checkOut": m.stay.CheckOut, "quantity": 1})
	if !ok {
		return
	}
	deposit := b.Price.Total / 4
	if !m.deskPayment(b.ID, fmt.Sprintf("deposit-%d", m.n), deposit) {
		return
	}
	defer m.handOverAtTheDesk(b.ID) // what a guest's cancel gives back of the cash waits there
	switch r := rand.Float64(); {
	case r < 0.25: // the rest left due
		m.cancelOwing(b.ID)
		return
	case r < 0.5: // paid online too: the booking is confirmed, so it goes back whole
		pi := fmt.Sprintf("pi_chaos_rest_r%d_%d", m.ld.run, rand.Int64())
		m.ld.pay(m.settle, pi, b.ID, b.Price.Total-deposit, false, false)
	}
	if !m.deskPayment(b.ID, fmt.Sprintf("rest-%d", m.n), b.Price.Total-deposit) {
		m.cancelOwing(b.ID)
		return
	}
	if _, ok := m.confirmed(b.ID); !ok {
		return
	}
	m.partialRefunds(b.ID, b.Price.Total)
	m.maybeCancel(b.ID, 0.25)
}

// cancelOwing has the guest cancel a booking that owes part of its price, sent again until
// answered: everything it keeps goes back.
func (m *moneyClient) cancelOwing(id string) {
	m.ld.l.cancelTried(id)
	if m.command(id, m.guest, "/api/v1/bookings/"+id+"/cancel", fmt.Sprintf("cancel-%d", m.n), nil, nil) == http.StatusOK {
		m.ld.l.cancelled(id)
	}
}

// handOverAtTheDesk is the desk handing over, when the guest comes by, what a guest's cancel of
// booking id gives back of the cash (it waits at the desk until someone does, issue 39), part
// after part, until the booking is no longer refunding.
func (m *moneyClient) handOverAtTheDesk(id string) {
	for m.settle.Err() == nil {
		var money struct {
			Status  string `json:"status"`
			Refunds []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Method string `json:"method"`
			} `json:"refunds"`
		}
		if status, ok := m.ld.call(m.settle, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", m.desk, "", nil, &money); status == http.StatusOK && ok {
			waiting := false
			for _, r := range money.Refunds {
				if r.Status == "pending" && r.Method != domain.MethodProvider {
					waiting = true
					m.ld.call(m.settle, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds/hand-over", m.desk, "",
						map[string]any{"refundId": r.ID}, nil)
				}
			}
			if !waiting && money.Status != "REFUNDING" {
				return
			}
		}
		sleep(m.settle, 500*time.Millisecond)
	}
}

// deskSweep is the desk handing over, once a second until ctx ends, whatever still waits there
// after the stories: a story's own hand-over (handOverAtTheDesk) can end before the workflow
// begins a refund, as when its desk payment crossed the guest's online one under a fault and the
// second one goes back whole later.
func (ld *load) deskSweep(ctx context.Context, store *db.Store) {
	desk, _ := auth.Mint(ld.s.jwtSecret, domain.Principal{Subject: fmt.Sprintf("desk-r%d-sweep", ld.run),
		Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: ld.hotels, Venues: []string{chaosVenue}}, time.Hour, auth.MintOptions{})
	for ctx.Err() == nil {
		rows, err := store.Pool().Query(ctx, `SELECT booking_id, id FROM refunds WHERE status = 'pending' AND last_error = $1`,
			db.DueAtTheDesk)
		if err == nil {
			var waiting [][2]string
			for rows.Next() {
				var r [2]string
				if rows.Scan(&r[0], &r[1]) == nil {
					waiting = append(waiting, r)
				}
			}
			rows.Close()
			for _, r := range waiting {
				ld.call(ctx, http.MethodPost, "/api/v1/staff/bookings/"+r[0]+"/refunds/hand-over", desk, "",
					map[string]any{"refundId": r[1]}, nil)
			}
		}
		sleep(ctx, time.Second)
	}
}

// venueOrder orders lane places at the chaos venue, pays, and the desk takes one place off
// (refunded whole, the order has not begun), gives part back, or cancels the order.
func (m *moneyClient) venueOrder(ctx context.Context) {
	start := m.venueStarts.Add(time.Duration(rand.IntN(laneDays*24)) * time.Hour)
	places := 2 + rand.IntN(3)
	line := func(q int) []map[string]any {
		return []map[string]any{{"resourceId": chaosLane, "start": start, "end": start.Add(time.Hour), "quantity": q}}
	}
	b, ok := m.hold(ctx, storyVenue, "/api/v1/venues/"+chaosVenue+"/bookings", map[string]any{"lines": line(places)})
	if !ok {
		return
	}
	pi := m.ld.checkout(m.settle, b.ID, m.guest)
	m.ld.pay(m.settle, pi, b.ID, b.Price.Total, true, false)
	if _, ok := m.confirmed(b.ID); !ok {
		return
	}
	var out amendmentAnswer
	if m.command(b.ID, m.desk, "/api/v1/staff/bookings/"+b.ID+"/amendments", fmt.Sprintf("fewer-%d", m.n),
		map[string]any{"lines": line(places - 1)}, &out) == http.StatusOK && rand.IntN(2) == 0 {
		m.partialRefunds(b.ID, b.Price.Total-lanePrice)
	}
	m.maybeCancel(b.ID, 0.25)
}

// deskPayment records a cash payment at the desk; false when it was not taken (or its
// outcome never came).
func (m *moneyClient) deskPayment(id, key string, amount int64) bool {
	var out moneyView
	status := m.command(id, m.desk, "/api/v1/staff/bookings/"+id+"/desk-payments", key,
		map[string]any{"amount": amount, "currency": "EUR", "method": domain.MethodCash}, &out)
	if status == http.StatusOK {
		m.ld.l.deskPaid(id, key, amount)
	}
	return status == http.StatusOK
}

// partialRefunds has the desk give back part of what the booking keeps (at most price), once
// or twice, keeping its units.
func (m *moneyClient) partialRefunds(id string, price int64) {
	for i := range 1 + rand.IntN(2) {
		amount := 100 * (1 + rand.Int64N(max(price/400, 1)))
		var out moneyView
		if m.command(id, m.desk, "/api/v1/staff/bookings/"+id+"/refunds", fmt.Sprintf("goodwill-%d-%d", m.n, i),
			map[string]any{"amount": amount, "currency": "EUR", "reason": "chaos goodwill"}, &out) == http.StatusOK {
			m.ld.l.refundAnswered(id, amount)
		}
	}
}

// maybeCancel has the guest cancel with probability p.
func (m *moneyClient) maybeCancel(id string, p float64) {
	if rand.Float64() >= p {
		return
	}
	m.ld.l.cancelTried(id)
	if status, _ := m.ld.call(m.settle, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", m.guest, "", nil, nil); status == http.StatusOK {
		m.ld.l.cancelled(id)
	}
}

// command sends a money command under its key until it is answered (no answer, a 5xx or a
// 503 pending: the same key again, as the docs ask); a command never answered leaves the
// booking's outcome unknown to the client.
func (m *moneyClient) command(id, token, path, key string, body, out any) int {
	for end := time.Now().Add(45 * time.Second); time.Now().Before(end) && m.settle.Err() == nil; {
		status, _ := m.ld.call(m.settle, http.MethodPost, path, token, key, body, out)
		if status != 0 && status < 500 {
			return status
		}
		sleep(m.settle, 400*time.Millisecond)
	}
	m.ld.l.unsure(id)
	return 0
}

// moneyView is the part of a booking's answer the money clients read.
type moneyView struct {
	ID        string    `json:"id"`
	HotelID   string    `json:"hotelId"`
	Status    string    `json:"status"`
	ExpiresAt time.Time `json:"expiresAt"`
	Price     struct {
		Total int64 `json:"total"`
	} `json:"price"`
}

// amendmentAnswer is an amendment's answer.
type amendmentAnswer struct {
	Amendment amendmentView `json:"amendment"`
}

type amendmentView struct {
	ID         int64     `json:"id"`
	Status     string    `json:"status"`
	Difference int64     `json:"difference"`
	Refund     int64     `json:"refund"`
	DueBy      time.Time `json:"dueBy"`
}
