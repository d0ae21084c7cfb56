package testsuite_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// Erasure (issue 24, part 3): the books still add up to the cent. A customer's bookings (one paid
// then cancelled and refunded, one a walk-in by phone with a name) are read, reports and payments
// included, then the customer is erased: every figure is the same, the bookings read by id under
// the pseudonym, and no column of any table holds the id, the phone, the name or the card
// holder's e-mail.

// withoutCustomers is v without its customerId and createdBy fields, at any depth: the only
// things an erasure may change in what staff read.
func withoutCustomers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			// The guest (a walk-in's name and phone, shown by the staff view) is personal data
			// the erasure removes: no money figure.
			if k != "customerId" && k != "createdBy" && k != "guest" && k != "guestName" {
				out[k] = withoutCustomers(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutCustomers(x)
		}
		return out
	}
	return v
}

// ledger is what finance reads of the bookings: the daily report, and each booking's staff view
// and payments, without who the customer is.
func ledger(t *testing.T, sys *testsuite.System, hotel string, ids ...string) []any {
	t.Helper()
	today := domain.DateOf(time.Now(), time.UTC).String()
	report := sys.Admin(t, http.MethodGet, "/api/v1/staff/reports/daily?hotelId="+hotel+"&date="+today, nil)
	require.Equal(t, http.StatusOK, report.Status, report.Raw)
	out := []any{withoutCustomers(report.Body)}
	for _, id := range ids {
		view := staffView(t, sys, id)
		require.Equal(t, http.StatusOK, view.Status, view.Raw)
		pays := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", nil)
		require.Equal(t, http.StatusOK, pays.Status, pays.Raw)
		out = append(out, withoutCustomers(view.Body), withoutCustomers(pays.Body))
	}
	return out
}

func TestErasureTheBooksStillAddUpToTheCent(t *testing.T) {
	t.Parallel()
	// Bookings that ended keep their workflows waiting for a late payment for LATE_WINDOW (and a
	// margin as long): a short one, so the erasure is refused, then goes ahead.
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{LateWindow: 3 * time.Second})
	const hotel = "h-erase"
	stay := stayFromNow(30, 2)
	openRooms(t, sys, hotel, "double", stay, 5)
	admin := sys.As(t, domain.Principal{Subject: "admin-" + sys.ID, Roles: []domain.Role{domain.RoleAdmin}})
	const email = "ann.erasmus@example.com"

	// A customer's booking, paid (the provider's event names the card holder) then cancelled and
	// refunded.
	ann := sys.Customer("ann")
	res := hold(t, sys, "paid", holdBody(ann, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	paid := res.Body["id"].(string)
	total := int64(res.Body["price"].(map[string]any)["total"].(float64))
	intent := payments.PaymentIntentObject("pi_erase_"+sys.ID, paid, total, "EUR")
	intent["receipt_email"] = email
	intent["billing_details"] = map[string]any{"name": "Ann Erasmus", "email": email}
	res = sys.Webhook(t, payments.EventPayload("evt_erase_"+sys.ID, "payment_intent.succeeded", intent, time.Now()), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, paid, "CONFIRMED")
	require.Equal(t, http.StatusOK, cancel(t, sys, ann, paid).Status)
	awaitStatus(t, sys, paid, "REFUNDED")

	// A walk-in the desk booked by phone, with a name, then cancelled.
	const phone, name = "+4915199887766", "Walter Inkpen"
	desk := deskOf(t, sys, []string{hotel}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings", keyed("walk"),
		map[string]any{"phone": "+49 151 9988 7766", "name": name, "hotelId": hotel, "roomTypeId": "double",
			"checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	walk := res.Body["id"].(string)
	walkIn := res.Body["customerId"].(string)
	require.Equal(t, domain.WalkInPrefix+phone, walkIn)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+walk+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, walk, "CANCELLED")
	// Its workflow still waits for a late payment: the erasure is refused until it is done.
	walkPath := "/api/v1/admin/customers/walk-in:%2B4915199887766/erasure"
	res = admin.Do(t, http.MethodPost, walkPath, nil, map[string]any{"reason": "erasure request, ticket 4712"})
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, walk+" (awaiting_late_payment)")

	before := ledger(t, sys, hotel, paid, walk)
	require.NotEmpty(t, testsuite.ColumnsHolding(t, sys.DB.Pool, email), "the control: the e-mail was stored")
	require.NotEmpty(t, testsuite.ColumnsHolding(t, sys.DB.Pool, name), "the control: the name was stored")
	require.NotEmpty(t, testsuite.ColumnsHolding(t, sys.DB.Pool, ann), "the control: the customer id was stored")

	// Only admins erase.
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	body := map[string]any{"reason": "erasure request, ticket 4711"}
	path := "/api/v1/admin/customers/" + ann + "/erasure"
	assert.Equal(t, http.StatusForbidden, finance.Do(t, http.MethodPost, path, nil, body).Status)
	assert.Equal(t, http.StatusForbidden, desk.Do(t, http.MethodPost, path, nil, body).Status)
	assert.Equal(t, http.StatusUnauthorized, sys.Do(t, http.MethodPost, path, nil, body).Status)
	res = admin.Do(t, http.MethodPost, path, nil, map[string]any{"reason": ""})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	// The reason is kept beyond the erasure's reach: one naming the customer is refused.
	res = admin.Do(t, http.MethodPost, path, nil, map[string]any{"reason": "asked by " + strings.ToUpper(email)})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "must not name the customer")
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM customer_erasures`))

	require.Eventually(t, func() bool {
		res = admin.Do(t, http.MethodPost, path, nil, body)
		return res.Status == http.StatusOK
	}, 20*time.Second, 200*time.Millisecond, "refused after the late window: %s", res.Raw)
	pseudonym := res.Body["customerId"].(string)
	assert.Regexp(t, `^erased:[0-9a-f]{32}$`, pseudonym)
	assert.Equal(t, "admin-"+sys.ID, res.Body["erasedBy"])
	rows := res.Body["rows"].(map[string]any)
	assert.Equal(t, float64(1), rows["bookings"])
	assert.Equal(t, float64(1), rows["paymentEvents"], "the card holder's details are dropped")
	again := admin.Do(t, http.MethodPost, path, nil, body)
	require.Equal(t, http.StatusOK, again.Status, again.Raw)
	assert.Equal(t, res.Body, again.Body, "asked again: the same erasure answers")

	// A walk-in's id, phone escaped in the path (once its cancellation's late window passed).
	require.Eventually(t, func() bool {
		res = admin.Do(t, http.MethodPost, walkPath, nil, body)
		return res.Status == http.StatusOK
	}, 20*time.Second, 200*time.Millisecond, "refused after the late window: %s", res.Raw)
	assert.Equal(t, float64(1), res.Body["rows"].(map[string]any)["walkInCustomers"])
	walkPseudonym := res.Body["customerId"].(string)

	assert.Equal(t, before, ledger(t, sys, hotel, paid, walk), "every report and money figure is as it was, to the cent")
	assert.Equal(t, pseudonym, staffView(t, sys, paid).Body["customerId"])
	assert.Equal(t, walkPseudonym, staffView(t, sys, walk).Body["customerId"])
	for _, needle := range []string{ann, walkIn, phone, name, email, "Ann Erasmus"} {
		assert.Empty(t, testsuite.ColumnsHolding(t, sys.DB.Pool, needle), "no column of any table holds %q", needle)
	}
	assert.Equal(t, 2, count(t, sys, `SELECT count(*) FROM audit_log WHERE action = 'erase-customer' AND actor = $1`, "admin-"+sys.ID))
	checkInvariants(t, sys)
}

func TestErasureIsRefusedWhileAHoldIsOpenAndWritesNothing(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 1)
	openRooms(t, sys, "h-erase-hold", "double", stay, 2)
	id, _ := holdRoom(t, sys, "h-erase-hold", "k1", stay, 1)
	guest := sys.Customer("guest")

	res := sys.Admin(t, http.MethodPost, "/api/v1/admin/customers/"+guest+"/erasure", map[string]any{"reason": "asked"})
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, "customer_has_open_bookings", res.Body["error"].(map[string]any)["code"])
	assert.Contains(t, res.Body["error"].(map[string]any)["message"], id)
	assert.Equal(t, guest, staffView(t, sys, id).Body["customerId"], "nothing was rewritten")
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM customer_erasures`))
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM audit_log WHERE action = 'erase-customer'`))
}
