package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Erasing a customer (issue 24, part 3) on the store alone: the books add up as before, nothing
// names the customer after, and nothing is written while a booking is in play.

// inThePast moves booking id's stay ten years back: a stay that has ended.
func inThePast(t *testing.T, d *testsuite.Database, id string) {
	t.Helper()
	_, err := d.Pool.Exec(context.Background(), `UPDATE bookings SET unit_from = unit_from - interval '10 years',
		unit_to = unit_to - interval '10 years' WHERE id = $1`, id)
	require.NoError(t, err)
}

// books is every money figure of the bookings and payments tables, summed.
func books(t *testing.T, d *testsuite.Database) [6]int64 {
	t.Helper()
	var b [6]int64
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT
		(SELECT COALESCE(sum(total), 0) FROM bookings), (SELECT COALESCE(sum(paid), 0) FROM bookings),
		(SELECT COALESCE(sum(refund_due), 0) FROM bookings), (SELECT count(*) FROM bookings),
		(SELECT COALESCE(sum(amount), 0) FROM payments), (SELECT count(*) FROM payment_events)`).
		Scan(&b[0], &b[1], &b[2], &b[3], &b[4], &b[5]))
	return b
}

// eraseReq asks admin-1 to erase customer for reason, no workflow waiting for a late payment.
func eraseReq(customer, reason string) db.ErasureRequest {
	return db.ErasureRequest{CustomerID: customer, Pseudonym: domain.ErasurePseudonym(idKey, customer), By: "admin-1",
		Reason: reason}
}

func erase(t *testing.T, d *testsuite.Database, customer string) db.Erasure {
	t.Helper()
	e, err := d.Store.EraseCustomer(context.Background(), eraseReq(customer, "the customer asked by e-mail"))
	require.NoError(t, err)
	return e
}

func TestErasingACustomerKeepsTheBooksAndLeavesNothingNamingThem(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust = "cust-erase-7f3a"
	pseudonym := domain.ErasurePseudonym(idKey, cust)

	paid := hold(t, d, cust, nights(dec10, 2), 1)
	paid, err := d.Store.Confirm(ctx, paid.ID, &domain.Payment{ID: "pi_erasure_1", Amount: paid.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	_, err = d.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_paid", Type: "payment_intent.succeeded",
		BookingID: paid.ID, PaymentID: paid.PaymentID, Succeeded: true, Amount: paid.Paid, Currency: "EUR"},
		[]byte(`{"id":"evt_paid","data":{"object":{"id":"`+paid.PaymentID+`","amount":`+"20000"+`,
		"receipt_email":"ann@example.com","metadata":{"bookingId":"`+paid.ID+`","note":"for `+cust+`"}}}}`))
	require.NoError(t, err)
	inThePast(t, d, paid.ID)
	require.NoError(t, d.Store.Audit(ctx, db.AuditEntry{Actor: "desk-1", Action: "note", BookingID: paid.ID,
		Reason: "called " + cust, Details: map[string]any{"customer": cust, "amount": 20000}}))
	other := paidBooking(t, d, "someone-else", nights(dec12, 2), 1, 0)
	before := books(t, d)

	e := erase(t, d, cust)
	assert.Equal(t, pseudonym, e.Pseudonym)
	assert.Equal(t, int64(1), e.Rows.Bookings)
	assert.Equal(t, int64(1), e.Rows.BookingChanges, "made by the customer (the confirmation names no actor)")
	assert.Equal(t, int64(1), e.Rows.PaymentEvents)
	assert.Equal(t, int64(1), e.Rows.AuditLog)
	assert.Equal(t, before, books(t, d), "every money figure is as it was, to the cent")

	b := booking(t, d, paid.ID)
	assert.Equal(t, pseudonym, b.CustomerID)
	assert.Equal(t, pseudonym, b.CreatedBy)
	assert.Equal(t, paid.Paid, b.Paid)
	assert.Equal(t, "someone-else", booking(t, d, other.ID).CustomerID, "another customer is untouched")
	assert.Empty(t, testsuite.ColumnsHolding(t, d.Pool, cust), "no column of any table names the customer")
	assert.Empty(t, testsuite.ColumnsHolding(t, d.Pool, "ann@example.com"), "the provider's e-mail field is dropped")
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM payment_events WHERE payload #>> '{data,object,amount}' = '20000'`),
		"the payment event keeps its amount")
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM customer_erasures WHERE pseudonym = $1`, pseudonym))
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM audit_log WHERE action = 'erase-customer' AND actor = 'admin-1'`))

	// Asked again: the same record answers, and nothing more is written.
	again := erase(t, d, cust)
	assert.Equal(t, e, again)
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM customer_erasures`))

	// A booking the plain id makes afterwards is a new customer's, erased by asking again; the
	// unique keys hold (the mapping is one to one).
	later, err := d.Store.Reserve(ctx, holdParams(cust, "k2", nights(dec12, 1), 1))
	require.NoError(t, err)
	_, err = d.Store.Release(ctx, later.ID, domain.StatusCancelled)
	require.NoError(t, err)
	third := erase(t, d, cust)
	assert.Equal(t, int64(1), third.Rows.Bookings)
	assert.Equal(t, pseudonym, booking(t, d, later.ID).CustomerID)
	assert.Equal(t, 2, count(t, d, `SELECT count(*) FROM bookings WHERE customer_id = $1`, pseudonym))
}

// walkInPhone and walkInName are the walk-in guest of expiredWalkIn.
const walkInPhone, walkInName = "+4915112345678", "Zelda Walker"

// expiredWalkIn is a database with a walk-in guest's booking the desk made, held and expired.
func expiredWalkIn(t *testing.T) (d *testsuite.Database, cust string, b domain.Booking) {
	t.Helper()
	d = testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	cust, err := d.Store.WalkInCustomer(ctx, walkInPhone, walkInName, "desk-1")
	require.NoError(t, err)
	p := holdParams(cust, "k", nights(dec10, 1), 1)
	p.CreatedBy, p.BookingID = "desk-1", domain.BookingID(idKey, cust, "desk-1", "k")
	b, err = d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	_, err = d.Store.Release(ctx, b.ID, domain.StatusExpired)
	require.NoError(t, err)
	return d, cust, b
}

func TestErasingAWalkInGuestDeletesTheirPhoneAndName(t *testing.T) {
	t.Parallel()
	d, cust, b := expiredWalkIn(t)
	ctx, phone, name := context.Background(), walkInPhone, walkInName
	require.NoError(t, d.Store.Audit(ctx, db.AuditEntry{Actor: "desk-1", Action: "note", BookingID: b.ID,
		Reason: name + " rang from " + phone}))

	e := erase(t, d, cust)
	assert.Equal(t, int64(1), e.Rows.WalkInCustomers)
	assert.Equal(t, int64(1), e.Rows.Bookings)
	assert.Equal(t, int64(1), e.Rows.AuditLog)
	assert.Equal(t, "desk-1", booking(t, d, b.ID).CreatedBy, "a staff creator stays")
	for _, needle := range []string{phone, name, cust} {
		assert.Empty(t, testsuite.ColumnsHolding(t, d.Pool, needle), needle)
	}
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM audit_log WHERE reason = '[erased] rang from [erased]'`))
}

func TestAnErasureIsRefusedWhileAHoldIsOpenAndWritesNothing(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust = "cust-holding"
	done := paidBooking(t, d, cust, nights(dec10, 1), 1, 0)
	inThePast(t, d, done.ID)
	open, err := d.Store.Reserve(context.Background(), holdParams(cust, "k2", nights(dec12, 1), 1))
	require.NoError(t, err)

	_, err = d.Store.EraseCustomer(context.Background(), eraseReq(cust, "asked"))
	var refused *db.OpenBookingsError
	require.True(t, errors.As(err, &refused), "%v", err)
	assert.ErrorIs(t, err, domain.ErrConflict)
	assert.Equal(t, map[string]string{open.ID: "hold"}, refused.Open)
	assert.Equal(t, cust, booking(t, d, done.ID).CustomerID, "nothing was rewritten")
	assert.Equal(t, 0, count(t, d, `SELECT count(*) FROM customer_erasures`))
	assert.Equal(t, 0, count(t, d, `SELECT count(*) FROM audit_log`))

	// A confirmed stay that has not ended is in play too.
	future := paidBooking(t, d, "cust-staying", nights(dec12, 1), 1, 0)
	_, err = d.Store.EraseCustomer(context.Background(), eraseReq("cust-staying", "asked"))
	require.True(t, errors.As(err, &refused), "%v", err)
	assert.Equal(t, map[string]string{future.ID: "not_ended"}, refused.Open)
}

func TestErasingACustomerWithNothingStoredRecordsItOnce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	e := erase(t, d, "nobody")
	assert.Equal(t, db.ErasureRows{}, e.Rows)
	assert.Equal(t, e, erase(t, d, "nobody"))
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM customer_erasures`))
}

// TestAHoldMadeWhileAnErasureWaitsStaysTheNewCustomers: the erasure rewrites only the bookings
// it locked and judged. A hold committed while it waits for a lock keeps the plain id (a new
// customer to the books), and is not rewritten under its live workflow.
func TestAHoldMadeWhileAnErasureWaitsStaysTheNewCustomers(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust = "cust-racing"
	done := paidBooking(t, d, cust, nights(dec10, 1), 1, 0)
	inThePast(t, d, done.ID)

	blocker, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer blocker.Rollback(ctx) //nolint:errcheck // a no-op after commit
	_, err = blocker.Exec(ctx, `SELECT 1 FROM bookings WHERE id = $1 FOR UPDATE`, done.ID)
	require.NoError(t, err)
	erased := make(chan error, 1)
	go func() {
		_, err := d.Store.EraseCustomer(ctx, eraseReq(cust, "asked"))
		erased <- err
	}()
	// Found by the start of its query: pg_stat_activity keeps only the first
	// track_activity_query_size bytes (1 kB by default) of a long one.
	require.Eventually(t, func() bool {
		return count(t, d, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE 'SELECT b.id, CASE%'`) == 1
	}, time.Second, 5*time.Millisecond, "the erasure waits for the booking's lock")
	racing, err := d.Store.Reserve(ctx, holdParams(cust, "k2", nights(dec12, 1), 1))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, racing.Status)
	require.NoError(t, blocker.Commit(ctx))
	require.NoError(t, <-erased)

	assert.Equal(t, domain.ErasurePseudonym(idKey, cust), booking(t, d, done.ID).CustomerID)
	assert.Equal(t, cust, booking(t, d, racing.ID).CustomerID, "the hold made meanwhile keeps its id")
}

// TestCustomersErasedAlikeKeepTheirBookingsApart: two customers with the same idempotency key
// (so the same key columns but the customer) get two pseudonyms; the unique key holds.
func TestCustomersErasedAlikeKeepTheirBookingsApart(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	a := paidBooking(t, d, "cust-a", nights(dec10, 1), 1, 0)
	b := paidBooking(t, d, "cust-b", nights(dec10, 1), 1, 0)
	inThePast(t, d, a.ID)
	inThePast(t, d, b.ID)
	erase(t, d, "cust-a")
	erase(t, d, "cust-b")
	assert.NotEqual(t, booking(t, d, a.ID).CustomerID, booking(t, d, b.ID).CustomerID)
	assert.Equal(t, 2, count(t, d, `SELECT count(DISTINCT (customer_id, created_by, idempotency_key)) FROM bookings`))
}

// bookings.fingerprint hashes the customer id with the stay the row shows, and a walk-in's id is
// their phone number: the erasure drops it, or anyone reading the row could confirm (or, over the
// phone numbers, recover) whose booking it was.
func TestTheErasureLeavesNoFingerprintOfTheCustomer(t *testing.T) {
	t.Parallel()
	d, cust, b := expiredWalkIn(t)
	erase(t, d, cust)
	after := booking(t, d, b.ID)
	require.NotEqual(t, cust, after.CustomerID)
	// What the row shows, and a guessed phone number, give the stored fingerprint.
	guess := domain.HoldRequest{CustomerID: domain.WalkInPrefix + walkInPhone, HotelID: after.HotelID,
		RoomTypeID: after.RoomTypeID, Stay: after.Stay, Quantity: after.Quantity}
	assert.NotEqual(t, guess.Fingerprint(), after.Fingerprint, "the erased booking's fingerprint names the phone number")
}

// After the erasure, the customer's retry of an old request (same Idempotency-Key) derives the
// erased booking's id, and is refused as another request: it never reads the erased booking.
func TestAnOldRequestRetriedAfterTheErasureDoesNotFindTheErasedBooking(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust = "cust-r2-retry"
	p := holdParams(cust, "k", nights(dec10, 1), 1)
	b, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	_, err = d.Store.Release(ctx, b.ID, domain.StatusExpired)
	require.NoError(t, err)
	erase(t, d, cust)

	_, err = d.Store.Reserve(ctx, p)
	assert.ErrorIs(t, err, domain.ErrIdempotencyMismatch, "the retry was answered with the erased booking")
}

// Free text repeats a customer in whatever case staff typed: it is scrubbed in any case, by the
// database (an agent's notification) and in Go (an audit entry, the copy of the notification's
// body its delivery holds for the previous release's workers) alike.
func TestErasureScrubsTextWrittenInAnotherCase(t *testing.T) {
	t.Parallel()
	d, cust, b := expiredWalkIn(t)
	ctx := context.Background()
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	require.NoError(t, d.Store.PutAgent(ctx, db.Agent{ID: "agent-case", ChannelID: "A",
		WebhookURL: "http://127.0.0.1:1/hook", WebhookSecret: "0123456789abcdef"}))
	upper, lower := strings.ToUpper(walkInName), strings.ToLower(walkInName)
	n, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: "agent-case", BookingID: b.ID,
		Event: "expired", Detail: upper + " (" + strings.ToUpper(cust) + ") did not pay"})
	require.NoError(t, err)
	require.NoError(t, d.Store.QueueAgentNotification(ctx, n))
	require.NoError(t, d.Store.Audit(ctx, db.AuditEntry{Actor: "desk-1", Action: "note", BookingID: b.ID,
		Reason: lower + " rang", Details: map[string]any{"customer": strings.ToUpper(cust)}}))

	e := erase(t, d, cust)
	assert.Equal(t, int64(1), e.Rows.AgentNotifications)
	assert.Equal(t, int64(1), e.Rows.EventDeliveries, "the delivery's payload")
	assert.Equal(t, int64(1), e.Rows.AuditLog)
	for _, needle := range []string{upper, lower, strings.ToUpper(cust)} {
		assert.Empty(t, testsuite.ColumnsHolding(t, d.Pool, needle), needle)
	}
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM agent_notifications WHERE detail = $1`,
		"[erased] ("+domain.ErasurePseudonym(idKey, cust)+") did not pay"))
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM audit_log WHERE reason = '[erased] rang'`))
}

// A customer id (a subject, an e-mail address say) staff typed in another case is scrubbed too.
func TestErasureScrubsTheIdWrittenInAnotherCase(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	const cust, typed = "Ann.Case@Example.com", "ann.case@example.COM"
	b := paidBooking(t, d, cust, nights(dec10, 1), 1, 0)
	inThePast(t, d, b.ID)
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	require.NoError(t, d.Store.PutAgent(ctx, db.Agent{ID: "agent-case", ChannelID: "A"}))
	_, err := d.Store.RecordAgentNotification(ctx, db.AgentNotification{AgentID: "agent-case", BookingID: b.ID,
		Event: "confirmed", Detail: "for " + typed})
	require.NoError(t, err)
	require.NoError(t, d.Store.Audit(ctx, db.AuditEntry{Actor: "desk-1", Action: "note", Reason: typed + " rang"}))

	e := erase(t, d, cust)
	assert.Equal(t, int64(1), e.Rows.AgentNotifications)
	assert.Equal(t, int64(1), e.Rows.AuditLog, "the entry names no booking: found by its text")
	assert.Empty(t, testsuite.ColumnsHolding(t, d.Pool, typed))
}

// A booking that ended (here: expired) a moment ago still has its workflow waiting for a late
// payment, which would take it up again under the customer's id: the erasure waits for it, as for
// any booking in play, and goes ahead once LATE_WINDOW (and a margin) has passed.
func TestAnErasureWaitsWhileAnEndedBookingsWorkflowMayTakeALatePayment(t *testing.T) {
	t.Parallel()
	d, cust, b := expiredWalkIn(t)
	ctx := context.Background()
	req := eraseReq(cust, "asked")
	req.LateWindow = time.Hour

	_, err := d.Store.EraseCustomer(ctx, req)
	var refused *db.OpenBookingsError
	require.True(t, errors.As(err, &refused), "%v", err)
	assert.Equal(t, map[string]string{b.ID: "awaiting_late_payment"}, refused.Open)
	assert.Equal(t, 0, count(t, d, `SELECT count(*) FROM customer_erasures`))

	_, err = d.Pool.Exec(ctx, `UPDATE booking_changes SET at = at - interval '66 minutes' WHERE booking_id = $1`, b.ID)
	require.NoError(t, err)
	_, err = d.Store.EraseCustomer(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, domain.ErasurePseudonym(idKey, cust), booking(t, d, b.ID).CustomerID)
}

// The reason is kept with the erasure, out of its reach: one naming the walk-in guest is refused,
// nothing written.
func TestAnErasureReasonNamingTheWalkInGuestIsRefused(t *testing.T) {
	t.Parallel()
	d, cust, _ := expiredWalkIn(t)
	_, err := d.Store.EraseCustomer(context.Background(), eraseReq(cust, "asked by "+strings.ToLower(walkInName)))
	require.ErrorIs(t, err, domain.ErrReasonNamesCustomer)
	assert.ErrorIs(t, err, domain.ErrInvalid)
	assert.Equal(t, 1, count(t, d, `SELECT count(*) FROM walk_in_customers`), "nothing was erased")
	assert.Equal(t, 0, count(t, d, `SELECT count(*) FROM customer_erasures`))
}
