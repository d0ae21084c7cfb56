package api

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// The read path and the sold-out gate. A search for a direct sale reads what is left of each
// night from the availability cache (Redis, fed by the outbox relay) and the hotel's terms from a
// short-lived copy in the process; a miss, a night split between channels, or Redis down sends it
// to the database. The gate refuses a hold before any workflow starts only when the cache says a
// night is short and no change of those nights is still on its way to the cache.

// metaTTL is how long a process keeps a hotel's terms (time zone, supplier, sale rules, room
// types, rate plans): a search may show a rule or a plan up to this late; a reservation always
// judges the rules and prices the plan as they stand.
const metaTTL = 2 * time.Second

// hotelMeta is a hotel's terms as a search reads them.
type hotelMeta struct {
	hotel    db.Hotel
	supplier db.Supplier
	rules    []domain.SaleRule
	rooms    []db.RoomTypeRef
	plans    domain.PlanPricer
	terms    map[string]encodedTerms // each plan's offer terms as a search writes them (planTerms)
	loaded   time.Time
}

func (m hotelMeta) room(code string) (db.RoomTypeRef, bool) {
	for _, r := range m.rooms {
		if r.Code == code {
			return r, true
		}
	}
	return db.RoomTypeRef{}, false
}

// metaCache keeps hotels' terms for metaTTL.
type metaCache struct {
	mu     sync.Mutex
	hotels map[string]hotelMeta
}

// forget drops every hotel's terms: a change made through this process (a rule, a supplier, a
// room type) shows in its next search. Other API processes see it within metaTTL.
func (c *metaCache) forget() {
	c.mu.Lock()
	c.hotels = nil
	c.mu.Unlock()
}

// hotelMeta returns a hotel's terms, from the process's copy when it is fresh.
func (s *Server) hotelMeta(ctx context.Context, hotelID string) (hotelMeta, error) {
	s.meta.mu.Lock()
	m, ok := s.meta.hotels[hotelID]
	s.meta.mu.Unlock()
	if ok && time.Since(m.loaded) < metaTTL {
		return m, nil
	}
	t, err := s.store.HotelTerms(ctx, hotelID)
	if err != nil {
		return m, err
	}
	m = hotelMeta{hotel: t.Hotel, supplier: t.Supplier, rules: t.Rules, rooms: t.Rooms, plans: domain.NewPlanPricer(t.Plans),
		loaded: time.Now()}
	if m.terms, err = planTerms(m); err != nil {
		return m, err
	}
	s.meta.mu.Lock()
	if s.meta.hotels == nil || len(s.meta.hotels) > 10_000 {
		s.meta.hotels = map[string]hotelMeta{}
	}
	s.meta.hotels[hotelID] = m
	s.meta.mu.Unlock()
	return m, nil
}

// unitKeys are the keys of a room type's nights over a stay.
func unitKeys(resourceID int64, stay domain.Stay) []db.UnitKey {
	nights := stay.NightDates()
	keys := make([]db.UnitKey, len(nights))
	for i, n := range nights {
		keys[i] = db.UnitKey{ResourceID: resourceID, Start: n.Time()}
	}
	return keys
}

// unlimitedLeft is what the cache and the database show as left on a night without a total.
const unlimitedLeft = 1_000_000_000

// cachedAvailability answers a direct sale's search from the cache. ok is false when the cache
// cannot answer (no cache, Redis down, a night split between channels): the caller asks the
// database. A miss is read through: read from the database and written to the cache.
func (s *Server) cachedAvailability(ctx context.Context, m hotelMeta, stay domain.Stay) ([]db.RoomTypeAvailability, bool) {
	if s.cfg.Cache == nil || len(m.rooms) == 0 {
		return nil, false
	}
	var keys []db.UnitKey
	for _, r := range m.rooms {
		keys = append(keys, unitKeys(r.ResourceID, stay)...)
	}
	states, found, err := s.cfg.Cache.GetPriced(ctx, keys)
	if err != nil {
		s.cfg.Logger.WarnContext(ctx, "availability cache unreachable: searching the database", "err", err)
		return nil, false
	}
	if !found {
		if states, err = s.store.UnitStates(ctx, keys); err != nil {
			return nil, false
		}
		if err := s.cfg.Cache.Fill(ctx, states); err != nil {
			s.cfg.Logger.WarnContext(ctx, "availability cache: read-through failed", "err", err)
		}
	}
	out := make([]db.RoomTypeAvailability, 0, len(m.rooms))
	per := stay.Nights()
	for i, r := range m.rooms {
		room := db.RoomTypeAvailability{RoomTypeID: r.Code, Unlimited: true, Nights: make([]db.NightAvailability, per),
			NightRates: make([]domain.NightRates, per)}
		for j, st := range states[i*per : (i+1)*per] {
			if st.Split {
				return nil, false // a channel's share of a night is the database's to say
			}
			unlimited := st.Left >= unlimitedLeft
			room.Nights[j] = db.NightAvailability{Date: domain.DateOf(st.Start, time.UTC), Available: st.Left, Unlimited: unlimited}
			room.NightRates[j] = st.Prices
			if j == 0 || st.Left < room.Available {
				room.Available = st.Left
			}
			room.Unlimited = room.Unlimited && unlimited
		}
		out = append(out, room)
	}
	return out, true
}

// DefaultGateWait bounds how long the gate waits for a change on its way to the cache before it
// answers "retry shortly".
const DefaultGateWait = 100 * time.Millisecond

// gateVerdict is what the sold-out gate makes of a hold.
type gateVerdict int

const (
	gateOpen    gateVerdict = iota // let it through to the workflow and the database
	gateSoldOut                    // the database would refuse it too: 409 at once
	gateBusy                       // short, but a change is on its way: 429, retry shortly
)

// gate reads the stay's nights from the cache. A night with fewer than qty rooms left while no
// change of those nights is on its way to the cache means the database would refuse the hold too
// (sold out). When a change is on its way (a release, say), it waits for the relay up to
// GateWait, then answers busy: the client retries, and a relay that stays down stops vouching
// for the cache within seconds, when the gate opens. Any doubt (no cache, a miss, Redis down, no
// live relay) opens it: the gate fails open to the database, never to "sold out".
func (s *Server) gate(ctx context.Context, resourceID int64, stay domain.Stay, qty int) gateVerdict {
	if s.cfg.Cache == nil {
		return gateOpen
	}
	gen, listening := s.cfg.Changes.Generation() // noted before the check: a change during it voids the note
	if listening && s.soldOut.holds(resourceID, stay, qty, gen) {
		return gateSoldOut
	}
	v := s.checkGate(ctx, resourceID, stay, qty)
	if v == gateSoldOut && listening {
		s.soldOut.note(resourceID, stay, qty, gen)
	}
	return v
}

// checkGate is the gate's check against the cache and the outbox.
func (s *Server) checkGate(ctx context.Context, resourceID int64, stay domain.Stay, qty int) gateVerdict {
	keys := unitKeys(resourceID, stay)
	short := func() bool {
		states, found, err := s.cfg.Cache.Get(ctx, keys)
		if err != nil || !found {
			return false
		}
		for _, st := range states {
			if st.Left < qty {
				return true
			}
		}
		return false
	}
	if !short() {
		return gateOpen
	}
	if alive, err := s.cfg.Cache.RelayAlive(ctx); err != nil || !alive {
		return gateOpen // no relay has applied the outbox lately: the cache may be stale with nothing pending
	}
	wait := s.cfg.GateWait
	if wait <= 0 {
		wait = DefaultGateWait
	}
	deadline := time.Now().Add(wait)
	from, to := stay.CheckIn.Time(), stay.CheckOut.Time()
	for {
		// Nothing on its way at this moment, and still short afterwards: every change
		// committed before the check is in the cache, so the shortage is real.
		var pending bool
		var err error
		if !s.gateRead(ctx, func() { pending, err = s.store.OutboxPending(ctx, resourceID, from, to) }) {
			return gateBusy // no room for the read in time: retry shortly
		}
		switch {
		case err != nil, !short():
			return gateOpen
		case !pending:
			return gateSoldOut
		case time.Now().After(deadline):
			return gateBusy
		}
		select {
		case <-ctx.Done():
			return gateOpen
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// gateRead runs one of the gate's PostgreSQL reads (is a change on its way? is this request a
// retry?) once fewer than the process's bound run at once, waiting up to GateWait for that. It
// reports whether the read ran; the read's own error is the caller's. Under a flood of requests
// for a sold-out stay the database's load stays bounded: a request that finds no room in time
// is told to retry shortly, never "sold out".
func (s *Server) gateRead(ctx context.Context, read func()) bool {
	wait := s.cfg.GateWait
	if wait <= 0 {
		wait = DefaultGateWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case s.gateReads <- struct{}{}:
	case <-timer.C:
		return false
	case <-ctx.Done():
		return false
	}
	defer func() { <-s.gateReads }()
	read()
	return true
}

// soldOutMemo keeps the stays the gate found sold out, each with the count of inventory
// changes (cache.Changes) when the check began. While no change has committed since, and for
// soldOutMemoTTL at most (a listener that stalls without an error), the same stay is sold out for
// the same quantity or more without reading Redis and the outbox: a flash sale's late buyers cost
// the process their HTTP handling and the primary-key read that tells a retry (gateRead). The
// memo is as fresh as the commit notifications, which arrive within milliseconds of a release.
type soldOutMemo struct {
	mu    sync.Mutex
	stays map[soldOutKey]soldOutNote
}

type soldOutKey struct {
	resourceID int64
	from, to   domain.Date
}

type soldOutNote struct {
	qty        int // the smallest quantity found short
	generation uint64
	at         time.Time
}

// soldOutMemoTTL bounds how long a sold-out is repeated without a check, whatever the listener
// says.
const soldOutMemoTTL = 250 * time.Millisecond

// holds reports whether qty of the stay was found short with no change since generation gen.
func (m *soldOutMemo) holds(resourceID int64, stay domain.Stay, qty int, gen uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.stays[soldOutKey{resourceID, stay.CheckIn, stay.CheckOut}]
	return ok && n.generation == gen && qty >= n.qty && time.Since(n.at) < soldOutMemoTTL
}

// note records that qty of the stay was found short, by a check begun at generation gen.
func (m *soldOutMemo) note(resourceID int64, stay domain.Stay, qty int, gen uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stays == nil || len(m.stays) > 10_000 {
		m.stays = map[soldOutKey]soldOutNote{} // notes older than a change are worthless anyway
	}
	k := soldOutKey{resourceID, stay.CheckIn, stay.CheckOut}
	if n, ok := m.stays[k]; ok && n.generation == gen && time.Since(n.at) < soldOutMemoTTL {
		qty = min(qty, n.qty)
	}
	m.stays[k] = soldOutNote{qty: qty, generation: gen, at: time.Now()}
}

// admissionMargin is how many holds may race for a room type's stay beyond the rooms the cache
// shows left: a release may be on its way.
const admissionMargin = 2

// admit lets at most as many holds race for a room type's stay (by its check-in date) as the
// cache shows rooms left, plus admissionMargin; the rest are told to retry shortly (429), since
// a hold in flight may still be released. It returns the function to call once the hold's
// outcome is known; a hold whose process never calls it stops counting after 30 s. Any doubt (no
// cache, a miss, Redis down) admits.
func (s *Server) admit(ctx context.Context, bookingID string, resourceID int64, stay domain.Stay, qty int) (done func(), ok bool) {
	done = func() {}
	if s.cfg.Cache == nil {
		return done, true
	}
	states, found, err := s.cfg.Cache.Get(ctx, unitKeys(resourceID, stay))
	if err != nil || !found {
		return done, true
	}
	left := unlimitedLeft
	for _, st := range states {
		left = min(left, st.Left)
	}
	if left >= unlimitedLeft {
		return done, true
	}
	key := s.cfg.Cache.RacingKey(resourceID, stay.CheckIn.Time())
	member := bookingID + ":" + strconv.FormatInt(time.Now().UnixNano(), 36)
	admitted, err := s.cfg.Cache.Race(ctx, key, member, left/qty+admissionMargin)
	switch {
	case err != nil:
		return done, true
	case !admitted:
		return done, false
	}
	return func() { s.cfg.Cache.Finish(context.WithoutCancel(ctx), key, member) }, true
}
