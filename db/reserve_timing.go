package db

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Where a reservation's time went. A reservation that ran past its bound (the workflow then
// abandons it) has to be explainable after the fact: a caller that puts a ReserveTiming in the
// context (WithReserveTiming) gets, per Reserve, the time queued for the room type's batch
// writer, the batch it ran in, each round trip to the database with its error, the pool's
// acquire wait, and every lock wait seen, named. Without one nothing is measured.

// lockProbeAfter is how long a round trip runs before the database is asked what it waits for,
// and how often it is asked again while it still runs: a reservation's statements take about a
// millisecond, so a trip this long is waiting (or starved of CPU, which the probe tells apart).
const lockProbeAfter = 100 * time.Millisecond

// ReserveTiming collects one reservation's timings. The batch writer's goroutine and the
// lock probes write to it while its caller waits, hence the mutex. Its methods do nothing on nil.
type ReserveTiming struct {
	mu sync.Mutex
	t  ReserveTimes
}

// ReserveTimes is what a ReserveTiming collected.
type ReserveTimes struct {
	Path      string        // the last way it ran: "batch", "alone", "full"
	Queued    time.Duration // waiting for the room type's batch writer to take it
	BatchSize int           // reservations in the writer's transaction it ran in (0: none)
	SentBack  bool          // the writer sent it back to its caller to run alone (or on the full path)
	Acquire   time.Duration // waiting for a pool connection, all round trips together
	Trips     []Trip
	Locks     []LockWait
}

// Trip is one round trip (or, on the full path, one step) of a reservation.
type Trip struct {
	Step string // reserve_stay, reserve_stays (a batch), or the full path's "hold lock", "booking row", "units", "commit"
	Took time.Duration
	Code string // the SQLSTATE of its error, "" when none
	Err  string // its error, "" when none
}

// LockWait is a lock a round trip waited for.
type LockWait struct {
	Lock string // "customer hold lock", "booking row", "sale lock", "units", or the table
	Step string // the trip's step
	// Waited is from when the database began waiting to the trip's end or the first probe that
	// no longer saw the wait (so up to lockProbeAfter more than the wait).
	Waited   time.Duration
	TimedOut bool   // the wait ended in lock_timeout (SQLSTATE 55P03)
	Holder   string // the blocking session: pid, state and the start of its statement
}

type reserveTimingKey struct{}

// WithReserveTiming returns ctx with a new ReserveTiming that Reserve fills in.
func WithReserveTiming(ctx context.Context) (context.Context, *ReserveTiming) {
	t := &ReserveTiming{}
	return context.WithValue(ctx, reserveTimingKey{}, t), t
}

func reserveTimingOf(ctx context.Context) *ReserveTiming {
	t, _ := ctx.Value(reserveTimingKey{}).(*ReserveTiming)
	return t
}

// Times returns a copy of what was collected so far.
func (t *ReserveTiming) Times() ReserveTimes {
	if t == nil {
		return ReserveTimes{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.t
	c.Trips, c.Locks = append([]Trip(nil), c.Trips...), append([]LockWait(nil), c.Locks...)
	return c
}

func (t *ReserveTiming) update(f func(*ReserveTimes)) {
	if t == nil {
		return
	}
	t.mu.Lock()
	f(&t.t)
	t.mu.Unlock()
}

// acquire takes a pool connection, counting the wait.
func (t *ReserveTiming) acquire(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	if t == nil {
		return pool.Acquire(ctx)
	}
	start := time.Now()
	c, err := pool.Acquire(ctx)
	took := time.Since(start)
	t.update(func(r *ReserveTimes) { r.Acquire += took })
	return c, err
}

// trip runs one round trip of step on the connection of backend pid, recording its time and
// error, and the locks a probe saw it wait for while it ran past lockProbeAfter.
func (t *ReserveTiming) trip(pool *pgxpool.Pool, step string, pid uint32, run func() error) error {
	if t == nil {
		return run()
	}
	w := &lockWatch{pool: pool, pid: pid, start: time.Now()}
	w.mu.Lock()
	w.timer = time.AfterFunc(lockProbeAfter, w.probe)
	w.mu.Unlock()
	err := run()
	end := time.Now()
	waits := w.stop(end)
	tr := Trip{Step: step, Took: end.Sub(w.start)}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		tr.Code = pgErr.Code
	}
	if err != nil {
		tr.Err = err.Error()
		if pgErr != nil && pgErr.Where != "" {
			tr.Err += " at " + pgErr.Where
		}
	}
	if tr.Code == lockNotAvailable {
		lock := lockFromWhere(pgErr)
		found := false
		for i := range waits {
			if waits[i].Lock == lock || lock == "" {
				waits[i].TimedOut, found = true, true
			}
		}
		if !found {
			waits = append(waits, LockWait{Lock: cmpOr(lock, "unknown"), Waited: tr.Took, TimedOut: true})
		}
	}
	for i := range waits {
		waits[i].Step = step
	}
	t.update(func(r *ReserveTimes) {
		r.Trips = append(r.Trips, tr)
		r.Locks = append(r.Locks, waits...)
	})
	return err
}

// atCommit records that the last trip's lock_timeout came at its commit, after its statements
// had answered: the wait for the notify queue's lock (see lockName), the only lock a commit takes.
func (t *ReserveTiming) atCommit() {
	t.update(func(r *ReserveTimes) {
		if n := len(r.Locks); n > 0 && r.Locks[n-1].TimedOut && r.Locks[n-1].Lock == "unknown" {
			r.Locks[n-1].Lock = notifyQueue
		}
	})
}

// queued records that the batch writer took the reservation after it waited since, in a
// transaction of size reservations.
func (t *ReserveTiming) queued(since time.Time, size int) {
	t.update(func(r *ReserveTimes) { r.Queued, r.BatchSize, r.Path = time.Since(since), size, "batch" })
}

// lockWatch asks the database, while a round trip runs, which lock its backend waits for.
type lockWatch struct {
	pool    *pgxpool.Pool
	pid     uint32
	start   time.Time
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
	seen    []seenWait
}

type seenWait struct {
	LockWait
	began   time.Time // when the wait began, on this process's clock
	lastAt  time.Time // the last probe that saw it
	endedBy time.Time // the first later probe that no longer saw it
}

func (w *lockWatch) probe() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	type row struct {
		lock   string
		age    time.Duration
		holder string
	}
	var rows []row
	at := time.Now()
	r, err := w.pool.Query(ctx, `SELECT w.locktype, COALESCE(w.relation::regclass::text, t.rel, w.classid::regclass::text, ''),
			COALESCE(now() - w.waitstart, interval '0'),
			COALESCE((SELECT string_agg(b.pid || ' ' || COALESCE(b.state, '') || ': ' || left(b.query, 160), '; ')
				FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(w.pid))), '')
		FROM pg_locks w
		LEFT JOIN LATERAL (SELECT t.relation::regclass::text AS rel FROM pg_locks t
			WHERE t.pid = w.pid AND t.locktype = 'tuple' AND t.granted LIMIT 1) t ON true
		WHERE w.pid = $1 AND NOT w.granted`, int64(w.pid))
	if err == nil {
		for r.Next() {
			var kind, rel string
			var x row
			if r.Scan(&kind, &rel, &x.age, &x.holder) == nil {
				x.lock = lockName(kind, rel)
				rows = append(rows, x)
			}
		}
		r.Close()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	for i := range w.seen {
		if w.seen[i].endedBy.IsZero() && !hasLock(rows, w.seen[i].Lock, func(x row) string { return x.lock }) {
			w.seen[i].endedBy = at
		}
	}
	for _, x := range rows {
		began := at.Add(-x.age)
		if n := len(w.seen); n > 0 && w.seen[n-1].Lock == x.lock && w.seen[n-1].endedBy.IsZero() {
			w.seen[n-1].lastAt = at
			continue
		}
		w.seen = append(w.seen, seenWait{LockWait: LockWait{Lock: x.lock, Holder: x.holder}, began: began, lastAt: at})
	}
	w.timer = time.AfterFunc(lockProbeAfter, w.probe)
}

func hasLock[T any](rows []T, lock string, name func(T) string) bool {
	for _, x := range rows {
		if name(x) == lock {
			return true
		}
	}
	return false
}

// stop ends the watch at end and returns the waits seen.
func (w *lockWatch) stop(end time.Time) []LockWait {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
	out := make([]LockWait, 0, len(w.seen))
	for _, s := range w.seen {
		until := s.endedBy
		if until.IsZero() {
			until = end
		}
		began := s.began
		if began.Before(w.start) { // a clock's rounding: the wait is this trip's
			began = w.start
		}
		s.Waited = until.Sub(began)
		out = append(out, s.LockWait)
	}
	return out
}

// lockName names a lock a reservation waits for by its pg_locks type and table (or, for an
// object lock, its catalog). A row lock's waiter holds the tuple lock and waits for the holder's
// transaction; an insert that meets another transaction's uncommitted row of the same key waits
// for its transaction alone. A transaction that notified (the availability outbox's trigger
// does) takes the database's lock for the notify queue at commit, one such commit at a time.
func lockName(kind, table string) string {
	switch {
	case kind == "object" && table == "pg_database":
		return notifyQueue
	case kind == "advisory":
		return "customer hold lock" // the only advisory lock a reservation takes (lockCustomerHolds)
	case table == "inventory" || strings.HasPrefix(table, "inventory_"):
		return "units"
	case table == "bookings" || strings.HasPrefix(table, "bookings_"):
		return "booking row"
	case table == "resources" || strings.HasPrefix(table, "resources_"):
		return "sale lock"
	case table != "":
		return table
	case kind == "transactionid" || kind == "speculative token":
		return "booking row" // an insert waiting on the same booking id another transaction wrote
	}
	return kind
}

// notifyQueue is the lock every transaction that notified takes at commit, one at a time in the
// whole cluster (PostgreSQL's PreCommit_Notify), held through the commit's WAL flush.
const notifyQueue = "notify queue (commit)"

var whereRelation = regexp.MustCompile(`in relation "([^"]+)"`)

// lockFromWhere names the lock of a lock_timeout error by its context: the table whose row it
// was locking or checking, or the advisory lock's statement.
func lockFromWhere(e *pgconn.PgError) string {
	if m := whereRelation.FindStringSubmatch(e.Where); m != nil {
		return lockName("", m[1])
	}
	switch {
	case strings.Contains(e.Where, "pg_advisory_xact_lock"):
		return "customer hold lock"
	case strings.Contains(e.Where, "INSERT INTO bookings"):
		return "booking row"
	}
	return ""
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// Summary is the timings in one line each for trips and lock waits, for a log line or a span.
func (r ReserveTimes) Summary() (trips, locks string) {
	var b strings.Builder
	for i, t := range r.Trips {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s", t.Step, t.Took.Round(time.Microsecond))
		if t.Code != "" && !strings.Contains(t.Err, " at ") {
			fmt.Fprintf(&b, " %s", t.Code)
		} else if t.Err != "" {
			fmt.Fprintf(&b, " error: %.120s", t.Err)
		}
	}
	trips = b.String()
	b.Reset()
	for i, l := range r.Locks {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s in %s %s", l.Lock, l.Step, l.Waited.Round(time.Millisecond))
		if l.TimedOut {
			b.WriteString(" lock_timeout")
		}
		if l.Holder != "" {
			fmt.Fprintf(&b, " held by %s", l.Holder)
		}
	}
	return trips, b.String()
}

// RoundTrips is the time of every trip together: the database's answers, lock waits included.
func (r ReserveTimes) RoundTrips() time.Duration {
	var d time.Duration
	for _, t := range r.Trips {
		d += t.Took
	}
	return d
}

// LockWaited is the time of every lock wait together.
func (r ReserveTimes) LockWaited() time.Duration {
	var d time.Duration
	for _, l := range r.Locks {
		d += l.Waited
	}
	return d
}
