package db

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bookflow/bookflow/domain"
)

// Batched reservations. With a synchronous standby a commit holds the nights' locks until the
// standby answers, so the reservations of one hot room type, which run one after another, each
// pay a whole commit round trip. Instead, one writer per room type (per process) runs the direct
// sales that queued while its previous transaction committed as one transaction
// (reserve_stays, migration 00027): each booking is still granted all its nights or none,
// decided on the rows as locked in the order of the check-ins, a booking's failure is undone
// alone (subtransactions), and each caller gets the answer Reserve would have given it alone,
// had the batch's reservations come one after another. A reservation that finds the writer
// idle runs at once, alone, as reserveDirect: there is no timer.

// maxBatch caps one transaction's reservations: the bigger the batch, the longer its first
// caller waits for its last booking's statements.
const maxBatch = 64

// batchLockWait bounds each lock wait of the writer's transactions. A reservation that meets a
// lock held longer (a night an amendment or staff holds, a booking row another worker's retry
// holds) is sent back to its caller, which waits the whole lock timeout alone, in its own
// goroutine: the writer, and every other reservation of the room type queued behind it, wait
// at most this long for it. The locks a batch meets are mostly another process's commit, which
// takes milliseconds even with a synchronous standby.
const batchLockWait = 50 * time.Millisecond

// lockNotAvailable is the SQLSTATE of a lock wait past lock_timeout.
const lockNotAvailable = "55P03"

// SetBatching turns batched reservations on or off (they are on by default, see NewStore).
func (s *Store) SetBatching(on bool) { s.unbatched.Store(!on) }

// Batching reports whether concurrent reservations of a room type share a transaction.
func (s *Store) Batching() bool { return !s.unbatched.Load() }

// batchKey is the room type a writer serves.
type batchKey struct{ hotel, roomType string }

// batchCall is one caller waiting for its reservation.
type batchCall struct {
	ctx    context.Context
	p      ReserveParams
	out    chan batchAnswer // buffered: the writer never waits for a caller that has gone
	queued time.Time        // when it joined the queue
	timing *ReserveTiming   // the caller's (WithReserveTiming), nil when not asked for
}

// batchAnswer is a caller's outcome; with next set, the caller goes on alone (reserveDirect,
// or the full path for a sale that needs it) and b and err mean nothing.
type batchAnswer struct {
	b    domain.Booking
	err  error
	next func(ctx context.Context, p ReserveParams) (domain.Booking, bool, error)
}

// batcher holds the queue of every room type whose writer runs; a room type with no entry has
// no writer.
type batcher struct {
	mu     sync.Mutex
	queues map[batchKey][]*batchCall
	runs   atomic.Int64 // transactions of more than one reservation, for tests
	calls  atomic.Int64 // reservations in them
	failed atomic.Int64 // of those transactions, the ones that failed as a whole
	hook   func()       // tests: called before each batch is taken from the queue
}

// reserveBatched is reserveDirect through the room type's writer.
func (s *Store) reserveBatched(ctx context.Context, p ReserveParams) (domain.Booking, bool, error) {
	t := reserveTimingOf(ctx)
	call := &batchCall{ctx: ctx, p: p, out: make(chan batchAnswer, 1), timing: t}
	if t != nil {
		call.queued = time.Now()
	}
	k := batchKey{p.Request.HotelID, p.Request.RoomTypeID}
	s.batches.mu.Lock()
	if s.batches.queues == nil {
		s.batches.queues = map[batchKey][]*batchCall{}
	}
	q, running := s.batches.queues[k]
	s.batches.queues[k] = append(q, call)
	s.batches.mu.Unlock()
	if !running {
		go s.writeBatches(k)
	}
	select {
	case a := <-call.out:
		if a.next != nil {
			t.update(func(r *ReserveTimes) { r.SentBack = true })
			return a.next(ctx, p)
		}
		return a.b, true, a.err
	case <-ctx.Done():
		// Like a cancelled statement: the reservation may still commit, and the caller's
		// abandonment (AbandonReservation) then releases it.
		t.update(func(r *ReserveTimes) {
			if r.Path == "" { // still queued: the writer never took it
				r.Path, r.Queued = "queued", time.Since(call.queued)
			}
		})
		return domain.Booking{}, true, ctx.Err()
	}
}

// writeBatches is a room type's writer: it runs batches while callers queue, then ends.
func (s *Store) writeBatches(k batchKey) {
	for {
		if s.batches.hook != nil {
			s.batches.hook()
		}
		s.batches.mu.Lock()
		batch, rest := nextBatch(s.batches.queues[k])
		if len(batch) == 0 {
			delete(s.batches.queues, k)
			s.batches.mu.Unlock()
			return
		}
		s.batches.queues[k] = rest
		s.batches.mu.Unlock()
		s.runBatch(k, batch)
	}
}

// nextBatch takes, in their order, up to maxBatch calls whose callers still wait, at most one
// per booking id (a retry waits for its first attempt, as alone), and a customer under a hold
// limit with no other call of theirs (the limit counts their earlier holds as settled); the
// others stay queued.
func nextBatch(q []*batchCall) (batch, rest []*batchCall) {
	seen, limited, ids := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range q {
		customer, limit := c.p.Request.CustomerID, c.p.MaxActiveHolds > 0
		switch {
		case c.ctx.Err() != nil: // its caller has gone: nothing written, nothing to answer
		case len(batch) < maxBatch && !ids[c.p.BookingID] && !limited[customer] && !(limit && seen[customer]):
			seen[customer], limited[customer], ids[c.p.BookingID] = true, limited[customer] || limit, true
			batch = append(batch, c)
		default:
			rest = append(rest, c)
		}
	}
	return batch, rest
}

// stayJSON is a reservation as reserve_stays reads it.
type stayJSON struct {
	ID          string `json:"id"`
	Customer    string `json:"customer"`
	CreatedBy   string `json:"created_by"`
	Idem        string `json:"idem"`
	Fingerprint string `json:"fingerprint"`
	From        string `json:"from"`
	To          string `json:"to"`
	Quantity    int    `json:"quantity"`
	HoldUS      int64  `json:"hold_us"`
	Supplier    string `json:"supplier"`
	MaxHolds    int    `json:"max_holds"`
}

// runBatch answers every call of one batch. A call alone runs as reserveDirect, with its
// caller's context; a batch runs in one implicit transaction (one round trip, one commit),
// under a context of its own, so no caller's cancellation breaks the others' reservations.
func (s *Store) runBatch(k batchKey, calls []*batchCall) {
	wait := min(batchLockWait, s.lockTimeout)
	var timed bool
	for _, c := range calls {
		if c.timing != nil {
			c.timing.queued(c.queued, len(calls))
			timed = true
		}
	}
	if len(calls) == 1 {
		b, done, err := s.reserveDirectWaiting(calls[0].ctx, calls[0].p, wait)
		if pgCode(err) == lockNotAvailable { // nothing was written: it waits alone, off the writer
			calls[0].out <- batchAnswer{next: s.reserveDirect}
			return
		}
		calls[0].out <- directAnswer(b, done, err)
		return
	}
	s.batches.runs.Add(1)
	s.batches.calls.Add(int64(len(calls)))
	stays := make([]stayJSON, len(calls))
	ids := make([]string, len(calls))
	for i, c := range calls {
		p, req := c.p, c.p.Request
		stays[i] = stayJSON{ID: p.BookingID, Customer: req.CustomerID, CreatedBy: p.CreatedBy, Idem: p.IdempotencyKey,
			Fingerprint: req.Fingerprint(), From: req.CheckIn.String(), To: req.CheckOut.String(), Quantity: req.Quantity,
			HoldUS: p.HoldTTL.Microseconds(), Supplier: p.SupplierID, MaxHolds: p.MaxActiveHolds}
		ids[i] = p.BookingID
	}
	payload, err := json.Marshal(stays)
	if err != nil {
		answerAll(calls, batchAnswer{next: s.reserveDirect})
		return
	}
	type outcome struct{ outcome, code, message string }
	outcomes := map[string]outcome{}
	bookings := map[string]domain.Booking{}
	// Every lock wait is bounded by wait, and after one timeout by 10 ms (see 00027); the
	// deadline bounds a stuck connection or a standby that stopped answering.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	batch := &pgx.Batch{}
	batch.Queue(`SELECT o_id, o_outcome, COALESCE(o_code, ''), COALESCE(o_message, '') FROM reserve_stays($1, $2, $3, $4)`,
		k.hotel, k.roomType, wait.Milliseconds(), payload).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id string
			var o outcome
			if err := rows.Scan(&id, &o.outcome, &o.code, &o.message); err != nil {
				return err
			}
			outcomes[id] = o
		}
		return rows.Err()
	})
	batch.Queue(`SELECT `+bookingColumns+` FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = ANY($1)`,
		ids).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			b, err := scanBooking(rows)
			if err != nil {
				return err
			}
			bookings[b.ID] = b
		}
		return rows.Err()
	})
	// The batch's round trip is timed once, on a record of its own, and given to each caller.
	var bt *ReserveTiming
	if timed {
		bt = &ReserveTiming{}
	}
	conn, err := bt.acquire(ctx, s.pool)
	if err == nil {
		err = bt.trip(s.pool, "reserve_stays", conn.Conn().PgConn().PID(), func() error { return conn.SendBatch(ctx, batch).Close() })
		conn.Release()
	}
	if timed {
		shared := bt.Times()
		for _, c := range calls {
			c.timing.update(func(r *ReserveTimes) {
				r.Acquire += shared.Acquire
				r.Trips = append(r.Trips, shared.Trips...)
				r.Locks = append(r.Locks, shared.Locks...)
			})
		}
	}
	if err != nil {
		s.batches.failed.Add(1)
		if pgCode(err) == codeNeedsFullPath { // a sale rule was set while the batch began
			answerAll(calls, batchAnswer{next: s.reserveFull})
			return
		}
		// Nothing was written (or, if the commit's answer was lost, what was is found by a
		// retry): each caller tries alone.
		answerAll(calls, batchAnswer{next: s.reserveDirect})
		return
	}
	for _, c := range calls {
		o, ok := outcomes[c.p.BookingID]
		if !ok {
			c.out <- batchAnswer{next: s.reserveDirect}
			continue
		}
		c.out <- s.batchOutcome(c.p, o.outcome, o.code, o.message, bookings[c.p.BookingID])
	}
}

// batchOutcome is what reserveDirect would answer p for reserve_stays' outcome of it.
func (s *Store) batchOutcome(p ReserveParams, outcome, code, message string, b domain.Booking) batchAnswer {
	req := p.Request
	switch outcome {
	case "unknown":
		return batchAnswer{err: fmt.Errorf("%w: hotel %q has no room type %q", domain.ErrNotFound, req.HotelID, req.RoomTypeID)}
	case "full_path":
		return batchAnswer{next: s.reserveFull}
	case "error":
		switch code {
		case codeTooManyHolds:
			return batchAnswer{err: fmt.Errorf("%w: %s", domain.ErrTooManyHolds, message)}
		case codeForeignKeyViolation: // the full path says which reference is wrong
			return batchAnswer{next: s.reserveFull}
		case lockNotAvailable: // undone alone; it waits the whole lock timeout alone, off the writer
			return batchAnswer{next: s.reserveDirect}
		}
		return batchAnswer{err: &pgconn.PgError{Severity: "ERROR", Code: code, Message: message}}
	}
	if b.ID == "" {
		return batchAnswer{err: fmt.Errorf("%w: booking %s", domain.ErrNotFound, p.BookingID)}
	}
	if outcome == "exists" && b.Fingerprint != req.Fingerprint() {
		return batchAnswer{err: fmt.Errorf("%w: booking %s", domain.ErrIdempotencyMismatch, p.BookingID)}
	}
	s.oneTrips.Add(1)
	return batchAnswer{b: b}
}

// directAnswer is reserveDirect's result as an answer.
func directAnswer(b domain.Booking, done bool, err error) batchAnswer {
	if !done {
		return batchAnswer{next: func(context.Context, ReserveParams) (domain.Booking, bool, error) { return b, false, nil }}
	}
	return batchAnswer{b: b, err: err}
}

// reserveFull sends a caller to the full path (Reserve's statements).
func (s *Store) reserveFull(context.Context, ReserveParams) (domain.Booking, bool, error) {
	return domain.Booking{}, false, nil
}

func answerAll(calls []*batchCall, a batchAnswer) {
	for _, c := range calls {
		c.out <- a
	}
}
