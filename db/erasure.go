package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// Erasure is one erasure of a customer's personal data: the pseudonym that replaced their id,
// when, by whom and why, and the rows it changed per table. It never holds the id itself.
type Erasure struct {
	Pseudonym string      `json:"customerId"`
	ErasedAt  time.Time   `json:"erasedAt"`
	ErasedBy  string      `json:"erasedBy"`
	Reason    string      `json:"reason"`
	Rows      ErasureRows `json:"rows"`
}

// ErasureRows counts the rows an erasure changed (or deleted, for walk-in customers) per table.
type ErasureRows struct {
	Bookings            int64 `json:"bookings"`
	BookingChanges      int64 `json:"bookingChanges"`
	Amendments          int64 `json:"amendments"`
	PriceChanges        int64 `json:"priceChanges"`
	Payments            int64 `json:"payments"`
	Refunds             int64 `json:"refunds"`
	StaffRefunds        int64 `json:"staffRefunds"`
	AuditLog            int64 `json:"auditLog"`
	PaymentEvents       int64 `json:"paymentEvents"`
	UnprocessableEvents int64 `json:"unprocessableEvents"`
	AgentNotifications  int64 `json:"agentNotifications"`
	// EventDeliveries are integrator events on their way, or sent, whose bodies named the
	// customer. (An agent's notification's delivery is sent with a body built from the
	// notification, scrubbed as AgentNotifications; its payload, a copy for the previous
	// release's workers, is scrubbed and counted here.)
	EventDeliveries int64 `json:"eventDeliveries"`
	WalkInCustomers int64 `json:"walkInCustomers"`
	// WaitlistEntries are the customer's entries: open ones close (erased), and every one
	// names the pseudonym.
	WaitlistEntries int64 `json:"waitlistEntries"`
	// BlockGuests are the names a rooming list gave the customer as a group's guest: deleted.
	BlockGuests int64 `json:"blockGuests"`
	// BookingGuests are the guests the desk wrote down on the customer's bookings: deleted.
	BookingGuests int64 `json:"bookingGuests"`
}

func (r ErasureRows) total() int64 {
	return r.Bookings + r.BookingChanges + r.Amendments + r.PriceChanges + r.Payments + r.Refunds +
		r.StaffRefunds + r.AuditLog + r.PaymentEvents + r.UnprocessableEvents + r.AgentNotifications + r.EventDeliveries +
		r.WalkInCustomers + r.WaitlistEntries + r.BlockGuests + r.BookingGuests
}

// OpenBookingsError refuses an erasure while some of the customer's bookings are still in play:
// their workflows still act for the customer's id, and rewriting it under them would be wrong.
type OpenBookingsError struct {
	// Open maps each such booking id to why it is in play (see inPlay).
	Open map[string]string
}

func (e *OpenBookingsError) Error() string {
	parts := make([]string, 0, len(e.Open))
	for _, id := range slices.Sorted(maps.Keys(e.Open)) {
		parts = append(parts, id+" ("+e.Open[id]+")")
	}
	return fmt.Sprintf("the customer has %d booking(s) still in play: %s", len(e.Open), strings.Join(parts, ", "))
}

// Unwrap makes an OpenBookingsError a domain.ErrConflict.
func (e *OpenBookingsError) Unwrap() error { return domain.ErrConflict }

// inPlay says why a locked booking is still in play, or NULL: a hold, a refund under way, a stay
// or order confirmed or checked in that has not ended (a hotel's check-out date is local to it,
// a venue's span is UTC), a refund not settled, an amendment waiting for its balance or its
// supplier; or a booking whose workflow may still wait for a late payment, which would take it
// up again (lateWaitFor, over $2). The workflow lingers that long after whatever ended last: the
// booking's last status change (an expiry, cancellation, rejection, refund or no-show, whatever
// the end), or for a confirmed or checked-in booking the end of its use as the workflow counts
// it (workflows.BookingInput.ends: the day after check-out, at midnight UTC; a venue order's
// last slot's end).
// (refund_due is what a cancellation gave back, not what is still owed: REFUNDING and the refunds
// rows say that.)
const inPlay = `CASE
	WHEN b.status = 'HOLD' THEN 'hold'
	WHEN b.status = 'REFUNDING' THEN 'refunding'
	WHEN b.status IN ('CONFIRMED', 'COMPLETED') AND CASE WHEN b.venue_id IS NULL
		THEN b.unit_to AT TIME ZONE COALESCE(b.time_zone, 'UTC') ELSE b.unit_to AT TIME ZONE 'UTC' END > now()
		THEN 'not_ended'
	WHEN EXISTS (SELECT 1 FROM refunds f WHERE f.booking_id = b.id AND f.status IN ('requested', 'pending'))
		THEN 'refund_unsettled'
	WHEN EXISTS (SELECT 1 FROM booking_amendments m WHERE m.booking_id = b.id
		AND m.status IN ('BALANCE_DUE', 'SUPPLIER_PENDING')) THEN 'amendment_pending'
	WHEN $2::bigint > 0 AND greatest((SELECT max(c.at) FROM booking_changes c WHERE c.booking_id = b.id),
		CASE WHEN b.status IN ('CONFIRMED', 'COMPLETED') THEN CASE WHEN b.venue_id IS NULL
			THEN (b.unit_to + interval '1 day') AT TIME ZONE 'UTC' ELSE b.unit_to AT TIME ZONE 'UTC' END END)
		> now() - $2 * interval '1 microsecond'
		THEN 'awaiting_late_payment'
	END`

// lateWaitFor is how long after a booking ended its workflow may still wait for a late payment:
// LATE_WINDOW from when the workflow saw the end, a little after the database did, so with a
// margin for the time between (at most 5 minutes, and no more than the window itself, so a short
// window stays short). Zero: no workflow waits.
func lateWaitFor(lateWindow time.Duration) time.Duration {
	if lateWindow <= 0 {
		return 0
	}
	return lateWindow + min(lateWindow, 5*time.Minute)
}

// ErasureRequest asks EraseCustomer to erase CustomerID under Pseudonym, for By (the admin's
// subject) with Reason (domain.ValidateErasure). LateWindow is the booking workflows' LATE_WINDOW:
// how long one keeps waiting for a late payment once its booking ended.
type ErasureRequest struct {
	CustomerID, Pseudonym, By, Reason string
	LateWindow                        time.Duration
}

// EraseCustomer pseudonymises customerID in one transaction: pseudonym replaces it as every
// booking's customer and creator and as the actor of every row it acted in; a walk-in guest's
// row (phone and name) is deleted, and their phone and name are scrubbed from free text and
// stored provider events of their bookings. Money, statuses and times stay as they are, so
// bookings, payments and reports add up as before. While a booking is in play it answers an
// *OpenBookingsError and writes nothing; a reason naming a walk-in guest,
// domain.ErrReasonNamesCustomer (domain.ValidateErasureReasonName).
//
// When nothing was left to erase it answers the latest earlier erasure of the same pseudonym,
// writing nothing; with none, it records one of zero rows. Otherwise it records the erasure
// (customer_erasures, and the audit log as action "erase-customer"), by and reason being the
// admin's subject and words.
//
// It changes only the bookings it locked: a hold made for customerID while it runs commits under
// the plain id after it, a new customer to the books, erased by asking again.
func (s *Store) EraseCustomer(ctx context.Context, req ErasureRequest) (Erasure, error) {
	customerID, pseudonym, by, reason := req.CustomerID, req.Pseudonym, req.By, req.Reason
	e := Erasure{Pseudonym: pseudonym, ErasedBy: by, Reason: reason}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The customer's hold lock first, as reserve_stay and the full path take it under a hold
		// limit (reserve_stays, after its earlier rows: see lockCustomerHolds): such a hold in
		// flight commits before, and is judged with the rest.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('holds:' || $1, 0))`, customerID); err != nil {
			return err
		}
		ids, err := lockCustomerBookings(ctx, tx, customerID, lateWaitFor(req.LateWindow))
		if err != nil {
			return err
		}
		sc := scrubber{id: customerID, pseudonym: pseudonym}
		if strings.HasPrefix(customerID, domain.WalkInPrefix) {
			err := tx.QueryRow(ctx, `DELETE FROM walk_in_customers WHERE customer_id = $1 RETURNING phone, name`,
				customerID).Scan(&sc.phone, &sc.name)
			switch {
			case err == nil:
				e.Rows.WalkInCustomers = 1
			case !errors.Is(err, pgx.ErrNoRows):
				return err
			}
			sc.phone = strings.TrimPrefix(customerID, domain.WalkInPrefix)
			if err := domain.ValidateErasureReasonName(reason, sc.namePattern()); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, `DELETE FROM block_guests WHERE booking_id = ANY($1)`, ids)
		if err != nil {
			return err
		}
		e.Rows.BlockGuests = tag.RowsAffected()
		if e.Rows.BookingGuests, err = eraseGuests(ctx, tx, ids); err != nil {
			return err
		}
		sc.compile()
		if err := sc.rewrite(ctx, tx, ids, &e.Rows); err != nil {
			return err
		}
		if e.Rows.WaitlistEntries, err = eraseWaitlist(ctx, tx, customerID, pseudonym); err != nil {
			return err
		}
		if e.Rows.total() == 0 {
			earlier, err := latestErasure(ctx, tx, pseudonym)
			if err == nil {
				e = earlier
				return errNothingToErase
			} else if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		counts, err := json.Marshal(e.Rows)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `INSERT INTO customer_erasures (pseudonym, erased_by, reason, row_counts)
			VALUES ($1, $2, $3, $4) RETURNING erased_at`, pseudonym, by, reason, counts).Scan(&e.ErasedAt); err != nil {
			return err
		}
		return insertAudit(ctx, tx, AuditEntry{Actor: by, Action: "erase-customer", Reason: reason,
			Details: map[string]any{"pseudonym": pseudonym, "rows": e.Rows}})
	})
	if errors.Is(err, errNothingToErase) {
		err = nil
	}
	e.ErasedAt = e.ErasedAt.UTC()
	return e, err
}

// errNothingToErase rolls back an erasure that found nothing, its earlier record answered.
var errNothingToErase = errors.New("nothing left to erase")

// lockCustomerBookings locks every booking of customerID's, in id order, and returns their ids;
// an *OpenBookingsError when any is in play. A customer creates bookings only for themselves, so
// these are all the bookings they created too (created_by has no index to search by).
func lockCustomerBookings(ctx context.Context, tx pgx.Tx, customerID string, lateWait time.Duration) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT b.id, `+inPlay+` FROM bookings b
		WHERE b.customer_id = $1 ORDER BY b.id FOR UPDATE OF b`, customerID, lateWait.Microseconds())
	if err != nil {
		return nil, err
	}
	var ids []string
	open := map[string]string{}
	for rows.Next() {
		var id string
		var why *string
		if err := rows.Scan(&id, &why); err != nil {
			return nil, err
		}
		ids = append(ids, id)
		if why != nil {
			open[id] = *why
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(open) > 0 {
		return nil, &OpenBookingsError{Open: open}
	}
	return ids, nil
}

// latestErasure is the latest recorded erasure under pseudonym.
func latestErasure(ctx context.Context, q querier, pseudonym string) (Erasure, error) {
	var e Erasure
	var counts []byte
	err := q.QueryRow(ctx, `SELECT pseudonym, erased_at, erased_by, reason, row_counts FROM customer_erasures
		WHERE pseudonym = $1 ORDER BY erased_at DESC, id DESC LIMIT 1`, pseudonym).
		Scan(&e.Pseudonym, &e.ErasedAt, &e.ErasedBy, &e.Reason, &counts)
	if err != nil {
		return e, err
	}
	return e, json.Unmarshal(counts, &e.Rows)
}

// rewrite replaces the customer in every row of bookings ids and in the rows they acted in.
func (sc scrubber) rewrite(ctx context.Context, tx pgx.Tx, ids []string, n *ErasureRows) error {
	actor := func(col string) string { return col + ` = CASE WHEN ` + col + ` = $1 THEN $2 ELSE ` + col + ` END` }
	// scrubbed sets each text column scrubbed, and changed finds the rows of ids this changes.
	scrubbed := func(cols ...string) string {
		set := make([]string, len(cols))
		for i, c := range cols {
			set[i] = c + ` = ` + sqlText(c)
		}
		return strings.Join(set, ", ")
	}
	changed := func(actorCol string, cols ...string) string {
		or := []string{actorCol + ` = $1`}
		for _, c := range cols {
			or = append(or, c+` IS DISTINCT FROM `+sqlText(c))
		}
		return ` WHERE booking_id = ANY($3) AND (` + strings.Join(or, " OR ") + `)`
	}
	for _, u := range []struct {
		count *int64
		sql   string
		text  bool // the statement scrubs free text ($4 to $6)
	}{
		// The request's fingerprint hashes the customer id with what the row shows (a walk-in's
		// phone number could be found again from it): it goes too, and an old request retried
		// under its key is refused as another request (idempotency_key_reused).
		{&n.Bookings, `UPDATE bookings SET ` + actor("customer_id") + `, ` + actor("created_by") +
			`, fingerprint = 'erased' WHERE id = ANY($3)`, false},
		{&n.BookingChanges, `UPDATE booking_changes SET actor = $2 WHERE booking_id = ANY($3) AND actor = $1`, false},
		{&n.Amendments, `UPDATE booking_amendments SET ` + actor("actor") + `, ` + scrubbed("reason") +
			changed("actor", "reason"), true},
		{&n.PriceChanges, `UPDATE price_changes SET ` + actor("actor") + `, ` + scrubbed("reason") +
			changed("actor", "reason"), true},
		{&n.Payments, `UPDATE payments SET ` + actor("taken_by") + `, ` + scrubbed("note") +
			changed("taken_by", "note"), true},
		{&n.Refunds, `UPDATE refunds SET ` + actor("recorded_by") + `, ` + scrubbed("reason", "reference", "last_error") +
			changed("recorded_by", "reason", "reference", "last_error"), true},
		{&n.StaffRefunds, `UPDATE staff_refunds SET ` + actor("actor") + `, ` + scrubbed("reason") +
			changed("actor", "reason"), true},
	} {
		if err := sc.update(ctx, tx, ids, u.count, u.sql, u.text); err != nil {
			return err
		}
	}
	var err error
	if n.AuditLog, err = sc.rewriteAudit(ctx, tx, ids); err != nil {
		return err
	}
	if n.PaymentEvents, err = sc.rewriteJSON(ctx, tx, `SELECT event_id, payload FROM payment_events
		WHERE booking_id = ANY($1) FOR UPDATE`, `UPDATE payment_events SET payload = $2 WHERE event_id = $1`, ids); err != nil {
		return err
	}
	if n.EventDeliveries, err = sc.rewriteJSON(ctx, tx, `SELECT id::text, payload FROM event_deliveries
		WHERE booking_id = ANY($1) FOR UPDATE`, `UPDATE event_deliveries SET payload = $2 WHERE id = $1::bigint`, ids); err != nil {
		return err
	}
	// The agents' notifications after their deliveries, in the order the event sender takes them
	// (db.RecordDeliveryAttempt locks a delivery, then its notification): the other order
	// deadlocked with a delivery of the customer's booking recorded meanwhile.
	if err := sc.update(ctx, tx, ids, &n.AgentNotifications, `UPDATE agent_notifications SET `+
		scrubbed("detail", "last_error")+changed("$1", "detail", "last_error"), true); err != nil {
		return err
	}
	// An unprocessable event has no booking column: its provider object's metadata names one.
	n.UnprocessableEvents, err = sc.rewriteJSON(ctx, tx, `SELECT event_id, payload FROM unprocessable_events
		WHERE payload #>> '{data,object,metadata,bookingId}' = ANY($1) OR strpos(lower(payload::text), lower($2)) > 0
			OR ($3 <> '' AND strpos(payload::text, $3) > 0) FOR UPDATE`,
		`UPDATE unprocessable_events SET payload = $2 WHERE event_id = $1`, ids, sc.id, sc.phone)
	return err
}

// update runs one of rewrite's statements over bookings ids, counting the rows it changed in
// count; text says it scrubs free text ($4 to $6).
func (sc scrubber) update(ctx context.Context, tx pgx.Tx, ids []string, count *int64, sql string, text bool) error {
	args := []any{sc.id, sc.pseudonym, ids}
	if text {
		args = append(args, sqlPattern(sc.phone), sqlPattern(sc.namePattern()), sqlPattern(sc.id))
	}
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		return err
	}
	*count = tag.RowsAffected()
	return nil
}

// rewriteAudit scrubs the audit entries of the customer's bookings and any naming them.
func (sc scrubber) rewriteAudit(ctx context.Context, tx pgx.Tx, ids []string) (int64, error) {
	rows, err := tx.Query(ctx, `SELECT id, actor, reason, details FROM audit_log
		WHERE booking_id = ANY($1) OR actor = $2 OR strpos(lower(reason), lower($2)) > 0
			OR strpos(lower(details::text), lower($2)) > 0
			OR ($3 <> '' AND (strpos(reason, $3) > 0 OR strpos(details::text, $3) > 0)) FOR UPDATE`, ids, sc.id, sc.phone)
	if err != nil {
		return 0, err
	}
	type entry struct {
		id            int64
		actor, reason string
		details       []byte
	}
	var all []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.id, &e.actor, &e.reason, &e.details); err != nil {
			return 0, err
		}
		all = append(all, e)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var n int64
	for _, e := range all {
		actor := e.actor
		if actor == sc.id {
			actor = sc.pseudonym
		}
		details, detailsChanged, err := sc.jsonDoc(e.details)
		if err != nil {
			return 0, err
		}
		reason := sc.text(e.reason)
		if actor == e.actor && reason == e.reason && !detailsChanged {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE audit_log SET actor = $2, reason = $3, details = $4 WHERE id = $1`,
			e.id, actor, reason, details); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}
