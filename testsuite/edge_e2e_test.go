package testsuite_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

func TestReadinessNamesNoCauses(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	sys.DB.Pool.Close() // the database goes away

	res := sys.Do(t, http.MethodGet, "/readyz", nil, nil)
	assert.Equal(t, http.StatusServiceUnavailable, res.Status, res.Raw)
	assert.Equal(t, map[string]any{"database": "unavailable", "temporal": "ok"}, res.Body,
		"the answer says what is down, never the error text (hosts, users, driver messages)")
}

func TestPaymentWebhookHasItsOwnBodyLimit(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	// An event bookflow does not act on, padded: the provider's events may exceed the API's
	// 64 KiB limit for other routes, up to the webhook's own 256 KiB.
	event := func(size int) []byte {
		return payments.EventPayload("evt_big_"+sys.ID, "customer.created",
			map[string]any{"id": "cus_1", "object": "customer", "description": strings.Repeat("x", size)}, time.Now())
	}
	big := event(100 << 10)
	res := sys.Webhook(t, big, time.Now())
	assert.Equal(t, http.StatusOK, res.Status, "a 100 KiB webhook is read: %.200s", res.Raw)

	res = sys.Webhook(t, event(300<<10), time.Now())
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.Status, "past 256 KiB: %.200s", res.Raw)

	res = sys.Guest(t, sys.Customer("g")).Do(t, http.MethodPost, "/api/v1/bookings",
		map[string]string{"Idempotency-Key": "k"}, string(big))
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.Status, "other routes keep the 64 KiB limit: %.200s", res.Raw)
	require.NotEmpty(t, res.ErrorCode())
}
