package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bookflow/bookflow/domain"
)

// A cash-up closes one cashier's shift at a site: what the money ledger says they took at the
// desk by each method and currency over the shift, less what they gave back there, against
// what they counted in the drawer and on the card terminal's slip (migration 00058).

// CountedMethods are the methods a cashier counts at a cash-up: the drawer and the terminal.
// Bank transfers and other methods are shown for information: nothing of them is in the drawer.
var CountedMethods = []string{domain.MethodCash, domain.MethodCardTerminal}

// MaxShift bounds a cash-up's window: a typo of a day (a whole month's takings) is refused.
const MaxShift = 24 * time.Hour

// CashUpShift is one cashier's shift at a site: the time [From, To).
type CashUpShift struct {
	Site    Site
	Cashier string // the staff subject who took the payments (payments.taken_by)
	From    time.Time
	To      time.Time
}

// CashUpLine is a cash-up's figures for one method and currency. Expected is Taken less
// GivenBack; Counted and Difference (Counted less Expected) are those of the counted methods,
// nil for the others and in a preview.
type CashUpLine struct {
	Method     string `json:"method"`
	Currency   string `json:"currency"`
	Taken      int64  `json:"taken"`
	Payments   int    `json:"payments"`
	GivenBack  int64  `json:"givenBack"`
	Refunds    int    `json:"refunds"`
	Expected   int64  `json:"expected"`
	Counted    *int64 `json:"counted,omitempty"`
	Difference *int64 `json:"difference,omitempty"`
}

// CashCount is what a cashier counted of one method and currency, in minor units.
type CashCount struct {
	Method   string `json:"method"`
	Currency string `json:"currency"`
	Amount   int64  `json:"amount"`
}

// CashUpNote is a note added to a closed cash-up: a difference explained afterwards.
type CashUpNote struct {
	ID     int64     `json:"id"`
	Note   string    `json:"note"`
	Author string    `json:"author"`
	At     time.Time `json:"at"`
}

// CashUp is a closed cash-up, as it was closed, with the notes added since.
type CashUp struct {
	ID       int64        `json:"id"`
	SiteKind string       `json:"siteKind"`
	SiteID   string       `json:"siteId"`
	Cashier  string       `json:"cashier"`
	From     time.Time    `json:"from"`
	To       time.Time    `json:"to"`
	ClosedBy string       `json:"closedBy"`
	ClosedAt time.Time    `json:"closedAt"`
	Note     string       `json:"note,omitempty"`
	Lines    []CashUpLine `json:"lines"`
	Notes    []CashUpNote `json:"notes"`
}

// CloseCashUp asks to close a shift with what was counted, under an idempotency key.
type CloseCashUp struct {
	CashUpShift
	Counted  []CashCount
	Note     string
	Key      string
	ClosedBy string
}

// KindAndID are a site's kind ("hotel" or "venue") and id.
func (s Site) KindAndID() (string, string) {
	if s.VenueID != "" {
		return "venue", s.VenueID
	}
	return "hotel", s.HotelID
}

// SiteByID finds the hotel or the venue of id, with its time zone. An id both a hotel and a
// venue use is refused (ErrConflict): the caller cannot say which it means.
func (s *Store) SiteByID(ctx context.Context, id string) (Site, *time.Location, error) {
	rows, err := s.pool.Query(ctx, `SELECT 'hotel', time_zone FROM hotels WHERE id = $1
		UNION ALL SELECT 'venue', time_zone FROM venues WHERE id = $1`, id)
	if err != nil {
		return Site{}, nil, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Kind, Zone string }])
	switch {
	case err != nil:
		return Site{}, nil, err
	case len(found) == 0:
		return Site{}, nil, fmt.Errorf("%w: no hotel or venue %s", domain.ErrNotFound, id)
	case len(found) > 1:
		return Site{}, nil, fmt.Errorf("%w: both a hotel and a venue are called %s", domain.ErrConflict, id)
	}
	loc, err := time.LoadLocation(found[0].Zone)
	if err != nil {
		return Site{}, nil, fmt.Errorf("site %s: time zone %q: %w", id, found[0].Zone, err)
	}
	if found[0].Kind == "venue" {
		return Site{VenueID: id}, loc, nil
	}
	return Site{HotelID: id}, loc, nil
}

// checkShift refuses a window that is empty, longer than MaxShift, or without a cashier.
func checkShift(sh CashUpShift) error {
	switch {
	case sh.Cashier == "":
		return fmt.Errorf("%w: a cash-up names its cashier", domain.ErrInvalid)
	case !sh.From.Before(sh.To):
		return fmt.Errorf("%w: a shift's from is before its to", domain.ErrInvalid)
	case sh.To.Sub(sh.From) > MaxShift:
		return fmt.Errorf("%w: a shift is at most %s long", domain.ErrInvalid, MaxShift)
	}
	return nil
}

// CashUpExpected is what the cashier of shift should hold at its end, per desk method and
// currency, read from the money ledger: the desk payments they took at the site in the window
// (captured entries with their name), less the refunds they made at the desk there (the
// succeeded desk refunds and those settled by hand that they recorded: a goodwill refund drawn
// on a cash payment, the reversal of one entered by mistake, a guest's cancel's refund they
// handed over). Other cashiers' money is in no line of theirs, and a refund still waiting at the
// desk in nobody's. Ordered by method (as DeskMethods), then currency.
func (s *Store) CashUpExpected(ctx context.Context, sh CashUpShift) ([]CashUpLine, error) {
	if err := checkShift(sh); err != nil {
		return nil, err
	}
	return cashUpExpected(ctx, s.pool, sh)
}

// cashierOf is whose drawer a desk ledger entry l moves: its actor's, but a reversal's (a desk
// payment entered by mistake, given back) is the reversed payment's taker's, whoever records it:
// the money never left their drawer. The entry's staff refund is the one whose steps begin its
// ref, the longest key first (db/refund_methods.go).
var cashierOf = `CASE WHEN l.kind <> 'captured' AND starts_with(l.ref, l.booking_id || '/staff-') AND (SELECT r.kind = 'reversal'
		FROM staff_refunds r WHERE r.booking_id = l.booking_id AND ` + staffRefundBegins("l.booking_id", "l.ref") + `
		ORDER BY length(r.id) DESC LIMIT 1)
	THEN (SELECT p.taken_by FROM payments p WHERE p.payment_id = l.payment_id) ELSE l.actor END`

// cashUpLedgerLines sums the site $1/$2's desk entries of cashier $5 posted in [$3, $4) (the
// lateral lookup of each entry's booking, as the daily report does).
var cashUpLedgerLines = `SELECT l.method, l.currency,
		COALESCE(sum(l.amount) FILTER (WHERE l.kind = 'captured'), 0)::bigint,
		count(*) FILTER (WHERE l.kind = 'captured')::int,
		COALESCE(sum(l.amount) FILTER (WHERE l.kind <> 'captured'), 0)::bigint,
		count(*) FILTER (WHERE l.kind <> 'captured')::int
	FROM money_ledger l
	CROSS JOIN LATERAL (SELECT FROM bookings b JOIN resources r ON r.id = b.resource_id
		WHERE b.id = l.booking_id AND ` + ofSite + ` LIMIT 1) site
	WHERE l.at >= $3 AND l.at < $4 AND ` + cashierOf + ` = $5
		AND l.kind IN ('captured', 'refund_succeeded', 'settled_by_hand')
		AND l.method IN ('cash', 'card_terminal', 'bank_transfer', 'other')
	GROUP BY 1, 2`

func cashUpExpected(ctx context.Context, q querier, sh CashUpShift) ([]CashUpLine, error) {
	rows, err := q.Query(ctx, cashUpLedgerLines, sh.Site.HotelID, sh.Site.VenueID, sh.From, sh.To, sh.Cashier)
	if err != nil {
		return nil, err
	}
	lines := []CashUpLine{}
	var l CashUpLine
	_, err = pgx.ForEachRow(rows, []any{&l.Method, &l.Currency, &l.Taken, &l.Payments, &l.GivenBack, &l.Refunds},
		func() error {
			l.Expected = l.Taken - l.GivenBack
			lines = append(lines, l)
			return nil
		})
	sortLines(lines)
	return lines, err
}

// sortLines orders a cash-up's lines by method (as domain.DeskMethods lists them), then currency.
func sortLines(lines []CashUpLine) {
	slices.SortFunc(lines, func(a, b CashUpLine) int {
		return cmp.Or(cmp.Compare(slices.Index(domain.DeskMethods, a.Method), slices.Index(domain.DeskMethods, b.Method)),
			cmp.Compare(a.Currency, b.Currency))
	})
}

// countLines sets what was counted on the expected lines: every counted method's line expected
// needs its count, a count of a currency nothing was expected in adds a line (money found in the
// drawer), and the methods not counted take no count.
func countLines(expected []CashUpLine, counted []CashCount) ([]CashUpLine, error) {
	lines := slices.Clone(expected)
	for i, c := range counted {
		switch {
		case !slices.Contains(CountedMethods, c.Method):
			return nil, fmt.Errorf("%w: method %q is not counted at a cash-up: count cash and card_terminal", domain.ErrInvalid, c.Method)
		case domain.ValidateCurrency(c.Currency) != nil:
			return nil, fmt.Errorf("%w: currency %q is not an ISO 4217 code", domain.ErrInvalid, c.Currency)
		case c.Amount < 0:
			return nil, fmt.Errorf("%w: a count is never below zero", domain.ErrInvalid)
		case slices.ContainsFunc(counted[:i], func(o CashCount) bool { return o.Method == c.Method && o.Currency == c.Currency }):
			return nil, fmt.Errorf("%w: %s %s is counted twice", domain.ErrInvalid, c.Method, c.Currency)
		}
		at := slices.IndexFunc(lines, func(l CashUpLine) bool { return l.Method == c.Method && l.Currency == c.Currency })
		if at < 0 {
			lines, at = append(lines, CashUpLine{Method: c.Method, Currency: c.Currency}), len(lines)
		}
		amount, diff := c.Amount, c.Amount-lines[at].Expected
		lines[at].Counted, lines[at].Difference = &amount, &diff
	}
	for _, l := range lines {
		if slices.Contains(CountedMethods, l.Method) && l.Counted == nil {
			return nil, fmt.Errorf("%w: %s in %s is expected (%d): give what was counted, 0 when nothing", domain.ErrInvalid,
				l.Method, l.Currency, l.Expected)
		}
	}
	sortLines(lines)
	return lines, nil
}

// CloseCashUp closes a shift: in one transaction it reads what was expected from the ledger,
// sets what was counted, stores the cash-up and audits it ("cash-up"). The shift must have ended
// by the database's clock (a payment taken after closing would be in no cash-up). The same key
// again with the same shift and counts answers the cash-up it closed (fresh false); with
// anything else it is ErrIdempotencyMismatch. A shift of the same cashier at the same site that
// overlaps one closed before is refused (ErrConflict) by the table's exclusion constraint,
// however two closes race.
func (s *Store) CloseCashUp(ctx context.Context, c CloseCashUp) (CashUp, bool, error) {
	// PostgreSQL keeps microseconds: a retry's times are compared with the stored ones as kept.
	c.From, c.To = c.From.Truncate(time.Microsecond), c.To.Truncate(time.Microsecond)
	if err := checkShift(c.CashUpShift); err != nil {
		return CashUp{}, false, err
	}
	kind, site := c.Site.KindAndID()
	// A retry is answered by what its key closed, whatever the ledger says since.
	if prior, found, err := s.closedUnder(ctx, c); err != nil || found {
		return prior, false, err
	}
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The cashier's money recorded meanwhile is committed and counted, or refused (db/cash_up_lock.go).
		if err := lockCashier(ctx, tx, c.Cashier, true); err != nil {
			return err
		}
		var ended bool
		if err := tx.QueryRow(ctx, `SELECT $1::timestamptz <= now()`, c.To).Scan(&ended); err != nil {
			return err
		}
		if !ended {
			return fmt.Errorf("%w: the shift has not ended: a cash-up is closed after its to", domain.ErrInvalid)
		}
		expected, err := cashUpExpected(ctx, tx, c.CashUpShift)
		if err != nil {
			return err
		}
		lines, err := countLines(expected, c.Counted)
		if err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `INSERT INTO cash_ups (site_kind, site_id, cashier, shift_from, shift_to, closed_by, note, key)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			kind, site, c.Cashier, c.From, c.To, c.ClosedBy, c.Note, c.Key).Scan(&id)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if _, err := tx.Exec(ctx, `INSERT INTO cash_up_lines (cash_up_id, method, currency, taken, payments, given_back,
					refunds, counted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
				id, l.Method, l.Currency, l.Taken, l.Payments, l.GivenBack, l.Refunds, l.Counted); err != nil {
				return err
			}
		}
		return insertAudit(ctx, tx, AuditEntry{Actor: c.ClosedBy, Action: "cash-up", Reason: c.Note,
			Details: map[string]any{"cashUpId": id, "siteKind": kind, "siteId": site, "cashier": c.Cashier,
				"from": c.From, "to": c.To, "lines": lines}})
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.ConstraintName == "cash_ups_never_overlap" ||
		pgErr.ConstraintName == "cash_ups_site_kind_site_id_key_key") {
		// The same close racing itself (a double click) is answered by the one that went through.
		if prior, found, err := s.closedUnder(ctx, c); err != nil || found {
			return prior, false, err
		}
		if pgErr.ConstraintName == "cash_ups_never_overlap" {
			return CashUp{}, false, fmt.Errorf("%w: %s's shift from %s to %s overlaps a closed cash-up of theirs at %s: "+
				"a shift is closed once", domain.ErrConflict, c.Cashier, c.From.Format(time.RFC3339), c.To.Format(time.RFC3339), site)
		}
	}
	if err != nil {
		return CashUp{}, false, err
	}
	got, err := s.GetCashUp(ctx, c.Site, id)
	return got, true, err
}

// sameClose reports whether close c asks what cash-up u was closed with: the same cashier,
// window and counts (a note may be worded differently).
func sameClose(u CashUp, c CloseCashUp) bool {
	if u.Cashier != c.Cashier || !u.From.Equal(c.From) || !u.To.Equal(c.To) {
		return false
	}
	n := 0
	for _, l := range u.Lines {
		if l.Counted == nil {
			continue
		}
		n++
		if !slices.Contains(c.Counted, CashCount{Method: l.Method, Currency: l.Currency, Amount: *l.Counted}) {
			return false
		}
	}
	return n == len(c.Counted)
}

// closedUnder is the cash-up close c's key closed at its site, if any: the same close answers
// it; another shift or other counts under the key are ErrIdempotencyMismatch.
func (s *Store) closedUnder(ctx context.Context, c CloseCashUp) (CashUp, bool, error) {
	kind, site := c.Site.KindAndID()
	ups, err := s.cashUps(ctx, `u.site_kind = $1 AND u.site_id = $2 AND u.key = $3`, kind, site, c.Key)
	if err != nil || len(ups) == 0 {
		return CashUp{}, false, err
	}
	if !sameClose(ups[0], c) {
		return ups[0], true, fmt.Errorf("%w: cash-up key %s closed another shift or count", domain.ErrIdempotencyMismatch, c.Key)
	}
	return ups[0], true, nil
}

// GetCashUp is cash-up id of site (ErrNotFound when it is another site's or none).
func (s *Store) GetCashUp(ctx context.Context, site Site, id int64) (CashUp, error) {
	kind, siteID := site.KindAndID()
	ups, err := s.cashUps(ctx, `u.site_kind = $1 AND u.site_id = $2 AND u.id = $3`, kind, siteID, id)
	if err == nil && len(ups) == 0 {
		err = fmt.Errorf("%w: no cash-up %d at %s", domain.ErrNotFound, id, siteID)
	}
	if err != nil {
		return CashUp{}, err
	}
	return ups[0], nil
}

// CashUps lists site's cash-ups whose shift overlaps [from, to), of cashier when not empty,
// by the shift's start.
func (s *Store) CashUps(ctx context.Context, site Site, from, to time.Time, cashier string) ([]CashUp, error) {
	kind, siteID := site.KindAndID()
	return s.cashUps(ctx, `u.site_kind = $1 AND u.site_id = $2 AND u.shift_from < $4 AND u.shift_to > $3
		AND ($5 = '' OR u.cashier = $5)`, kind, siteID, from, to, cashier)
}

// cashUps reads the cash-ups where holds (on cash_ups u), each with its lines and notes.
func (s *Store) cashUps(ctx context.Context, where string, args ...any) ([]CashUp, error) {
	rows, err := s.pool.Query(ctx, `SELECT u.id, u.site_kind, u.site_id, u.cashier, u.shift_from, u.shift_to, u.closed_by,
			u.closed_at, u.note,
			COALESCE((SELECT jsonb_agg(jsonb_build_object('method', l.method, 'currency', l.currency, 'taken', l.taken,
				'payments', l.payments, 'givenBack', l.given_back, 'refunds', l.refunds, 'expected', l.expected,
				'counted', l.counted, 'difference', l.difference)) FROM cash_up_lines l WHERE l.cash_up_id = u.id), '[]'),
			COALESCE((SELECT jsonb_agg(jsonb_build_object('id', n.id, 'note', n.note, 'author', n.author, 'at', n.at)
				ORDER BY n.id) FROM cash_up_notes n WHERE n.cash_up_id = u.id), '[]')
		FROM cash_ups u WHERE `+where+` ORDER BY u.shift_from, u.id`, args...)
	if err != nil {
		return nil, err
	}
	ups := []CashUp{}
	var u CashUp
	_, err = pgx.ForEachRow(rows, []any{&u.ID, &u.SiteKind, &u.SiteID, &u.Cashier, &u.From, &u.To, &u.ClosedBy, &u.ClosedAt,
		&u.Note, &u.Lines, &u.Notes}, func() error {
		sortLines(u.Lines)
		ups = append(ups, u)
		u = CashUp{}
		return nil
	})
	return ups, err
}

// AddCashUpNote adds a note to a closed cash-up of site, audited ("cash-up-note"): the cash-up
// itself is never changed, so a difference explained afterwards is said beside it.
func (s *Store) AddCashUpNote(ctx context.Context, site Site, id int64, note, author string) (CashUp, error) {
	if note == "" {
		return CashUp{}, fmt.Errorf("%w: a note says something", domain.ErrInvalid)
	}
	u, err := s.GetCashUp(ctx, site, id)
	if err != nil {
		return u, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO cash_up_notes (cash_up_id, note, author) VALUES ($1, $2, $3)`,
			id, note, author); err != nil {
			return err
		}
		return insertAudit(ctx, tx, AuditEntry{Actor: author, Action: "cash-up-note", Reason: note,
			Details: map[string]any{"cashUpId": id, "siteKind": u.SiteKind, "siteId": u.SiteID, "cashier": u.Cashier}})
	})
	if err != nil {
		return CashUp{}, err
	}
	return s.GetCashUp(ctx, site, id)
}
