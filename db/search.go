package db

import (
	"context"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// The front desk's search (issue 39): any booking by its guest's name, phone (as typed, in any
// form), e-mail, its id, its supplier's reference or its customer, newest first. The names,
// phones and e-mails are matched by trigram indexes (migration 00054).

// SearchQuery is what the desk typed and where it may look.
type SearchQuery struct {
	Text string
	// HotelIDs and VenueIDs: only these sites' bookings, when either is not nil.
	HotelIDs, VenueIDs []string
	Limit              int
}

// SearchHit is a booking found, with the name it is shown by and what matched: name, phone,
// email, id, reference or customer.
type SearchHit struct {
	Booking domain.Booking
	Guest   string
	Matched string
}

// phoneDigits are the digits of what was typed when it reads as (part of) a phone number:
// digits, spaces, dots, dashes, slashes, parentheses and a leading + or 00, at least 4 digits.
// Leading zeros are dropped (a national number's trunk prefix, "06 30 ..."), so the digits are
// found inside the E.164 number (+3630...).
func phoneDigits(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimPrefix(strings.TrimSpace(s), "+") {
		switch {
		case unicode.IsDigit(r) && r < 128:
			b.WriteRune(r)
		case strings.ContainsRune(" .-/()", r):
		default:
			return ""
		}
	}
	d := strings.TrimLeft(b.String(), "0")
	if len(d) < 4 {
		return ""
	}
	return d
}

// likeContaining is a LIKE pattern matching s anywhere, its own wildcards escaped.
func likeContaining(s string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%"
}

// SearchBookings finds up to q.Limit bookings matching q.Text. A name or e-mail matches as a part
// of it (at least 2 characters, any case); a phone by its digits; an id, a supplier's reference
// or a customer id whole.
func (s *Store) SearchBookings(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	text := strings.TrimSpace(q.Text)
	if len([]rune(text)) < 2 {
		return nil, nil
	}
	// A booking id, a reference or a customer id, typed whole, is the booking asked for: its
	// cheap exact match answers first, and only without one are the names read.
	exact := []string{`SELECT id, 'id', 0 FROM bookings WHERE id = $1`,
		`SELECT id, 'reference', 0 FROM bookings WHERE supplier_ref = $1`,
		`SELECT id, 'customer', 0 FROM bookings WHERE customer_id = $1`}
	hits, err := s.searchIn(ctx, exact, q, text, false)
	if err != nil || len(hits) > 0 {
		return hits, err
	}
	// Only the branches what was typed can match, each planned with its values (an unnamed
	// statement: a pattern the planner sees uses the trigram indexes); a walk-in's bookings are
	// looked up per walk-in found (LATERAL), never by joining every booking.
	var branches []string
	if strings.Contains(text, "@") {
		branches = append(branches, `SELECT booking_id, 'email', 1 FROM booking_guests WHERE lower(email) LIKE $1`)
	} else {
		branches = append(branches, `SELECT booking_id, 'name', 1 FROM booking_guests WHERE lower(name) LIKE $1`,
			`SELECT b.id, 'name', 1 FROM walk_in_customers w CROSS JOIN LATERAL (SELECT id FROM bookings
				WHERE customer_id = w.customer_id) b WHERE lower(w.name) LIKE $1`,
			`SELECT booking_id, 'name', 1 FROM block_guests WHERE lower(name) LIKE $1`)
	}
	hits, err = s.searchIn(ctx, branches, q, likeContaining(strings.ToLower(text)), true)
	digits := phoneDigits(text)
	if err != nil || digits == "" || len(hits) >= q.Limit {
		return hits, err
	}
	phones, err := s.searchIn(ctx, []string{`SELECT booking_id, 'phone', 2 FROM booking_guests WHERE phone LIKE $1`,
		`SELECT b.id, 'phone', 2 FROM walk_in_customers w CROSS JOIN LATERAL (SELECT id FROM bookings
			WHERE customer_id = w.customer_id) b WHERE w.phone LIKE $1`}, q, likeContaining(digits), true)
	return append(hits, phones[:min(len(phones), q.Limit-len(hits))]...), err
}

// searchIn runs the search's branches (each selecting a booking id, what matched and its rank,
// over the pattern $1) and returns the bookings they find in the sites q allows, newest first.
// A fuzzy search (LIKE '%...%') is made to read the trigram indexes: PostgreSQL prices a GIN
// scan above reading a table of names whole, which measured takes tens of milliseconds at
// 100,000 bookings where the index takes a few (BenchmarkStaffSearch).
func (s *Store) searchIn(ctx context.Context, branches []string, q SearchQuery, pattern string, fuzzy bool) ([]SearchHit, error) {
	args := []any{pgx.QueryExecModeExec, pattern, q.Limit}
	sites := "true"
	if q.HotelIDs != nil || q.VenueIDs != nil {
		args = append(args, orEmpty(q.HotelIDs), orEmpty(q.VenueIDs))
		sites = "r.hotel_id = ANY($3) OR b.venue_id = ANY($4)"
	}
	var hits []SearchHit
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if fuzzy && !s.plainPlans {
			if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, `WITH hits (id, why, rank) AS (`+strings.Join(branches, "\n\t\t\tUNION ALL ")+`)
			SELECT `+bookingColumns+`, `+guestName+`, h.why
			FROM (SELECT DISTINCT ON (id) id, why FROM hits ORDER BY id, rank) h
				JOIN bookings b ON b.id = h.id JOIN resources r ON r.id = b.resource_id
			WHERE `+sites+`
			ORDER BY b.created_at DESC, b.id DESC LIMIT $2`, args...)
		if err != nil {
			return err
		}
		hits, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (SearchHit, error) {
			var h SearchHit
			var err error
			h.Booking, err = scanBooking(searchRow{r, &h})
			return h, err
		})
		return err
	})
	return hits, err
}

// searchRow scans a search's row: the booking's columns, then its guest's name and what matched.
type searchRow struct {
	pgx.CollectableRow
	hit *SearchHit
}

func (r searchRow) Scan(dest ...any) error {
	return r.CollectableRow.Scan(append(dest, &r.hit.Guest, &r.hit.Matched)...)
}
