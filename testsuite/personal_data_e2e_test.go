package testsuite_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// inTheClear returns the needles found in raw (JSON, as the Temporal CLI prints it): in any
// string, or in any string that is base64 (how payload data travels), decoded.
func inTheClear(t *testing.T, raw string, needles ...string) []string {
	t.Helper()
	var texts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
			if b, err := base64.StdEncoding.DecodeString(v); err == nil {
				texts = append(texts, string(b))
			}
		case map[string]any:
			for k, x := range v {
				texts = append(texts, k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the CLI's JSON")
		walk(v)
	}
	var found []string
	for _, n := range needles {
		for _, s := range texts {
			if strings.Contains(s, n) {
				found = append(found, n)
				break
			}
		}
	}
	return found
}

// startInput is the stored (sealed) input of a workflow's start event, as the codec endpoint's
// request carries it.
func startInput(t *testing.T, sys *testsuite.System, id string) string {
	t.Helper()
	iter := sys.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	require.True(t, iter.HasNext())
	ev, err := iter.Next()
	require.NoError(t, err)
	raw, err := protojson.Marshal(ev.GetWorkflowExecutionStartedEventAttributes().GetInput())
	require.NoError(t, err)
	return string(raw)
}

// TestTemporalHoldsNoPersonalDataWhileStaffSeeIt: with payloads sealed, a paid, cancelled and
// refunded booking and a walk-in's booking leave no customer id, phone number or name in the
// clear in their histories or search attributes as the Temporal CLI reads them; the API shows
// them to staff, the codec endpoint opens them for finance and admins only, and operators find
// the customer's bookings by the search key the API gives.
func TestTemporalHoldsNoPersonalDataWhileStaffSeeIt(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{SealPayloads: true})
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-pii", "double", stay, 4)

	guest := sys.Customer("guest") // holdRoom's
	paid, total := holdRoom(t, sys, "h-pii", "pii-1", stay, 1)
	payAndConfirm(t, sys, paid, total, "evt_pii_1", "pi_pii_1")
	require.Equal(t, http.StatusOK, cancel(t, sys, guest, paid).Status)
	awaitStatus(t, sys, paid, "REFUNDED")

	desk := sys.As(t, domain.Principal{Subject: "desk-pii", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-pii"}})
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings", map[string]string{"Idempotency-Key": "pii-2"},
		map[string]any{"phone": "+49 151 9876 5432", "name": "Grace Hopper", "hotelId": "h-pii", "roomTypeId": "double",
			"checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	walkIn := res.Body["id"].(string)
	require.Equal(t, "walk-in:+4915198765432", res.Body["customerId"], "the API shows staff who it is")

	needles := []string{guest, "4915198765432", "Grace", "Hopper"}
	for _, id := range []string{paid, walkIn} {
		history := testsuite.RawHistory(t, id)
		assert.Empty(t, inTheClear(t, history, needles...), "booking %s's history as Temporal stores it", id)
		assert.NotEmpty(t, inTheClear(t, history, sealedEncoding(t)), "and its payloads are sealed")
		assert.Empty(t, inTheClear(t, testsuite.RawDescription(t, id), needles...), "booking %s's search attributes", id)
	}
	assert.Equal(t, guest, staffView(t, sys, paid).Body["customerId"])

	// The codec endpoint opens what the workflows hold, for finance and admins.
	input := startInput(t, sys, paid)
	require.Empty(t, inTheClear(t, input, guest), "the stored input is sealed")
	finance := sys.As(t, domain.Principal{Subject: "fin-pii", Roles: []domain.Role{domain.RoleFinance}})
	for name, c := range map[string]struct {
		token  string
		status int
	}{
		"no token":      {"", http.StatusUnauthorized},
		"the customer":  {sys.Guest(t, guest).Token, http.StatusForbidden},
		"a front desk":  {desk.Token, http.StatusForbidden},
		"finance":       {finance.Token, http.StatusOK},
		"the admin key": {sys.AdminToken, http.StatusOK},
	} {
		headers := map[string]string{"X-Namespace": "default"}
		if c.token != "" {
			headers["Authorization"] = "Bearer " + c.token
		}
		res := sys.Do(t, http.MethodPost, "/api/v1/staff/codec/decode", headers, input)
		require.Equal(t, c.status, res.Status, "%s: %s", name, res.Raw)
		if c.status == http.StatusOK {
			assert.NotEmpty(t, inTheClear(t, res.Raw, guest), "%s reads the customer in the opened input", name)
			assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
		} else {
			assert.Empty(t, inTheClear(t, res.Raw, guest), "%s reads nothing", name)
		}
	}
	bad := finance.Do(t, http.MethodPost, "/api/v1/staff/codec/decode", nil, `{"payloads": "nope"}`)
	assert.Equal(t, http.StatusBadRequest, bad.Status, bad.Raw)
	// Sealing through the endpoint gives what opening through it takes back.
	plain := `{"payloads":[{"metadata":{"encoding":"` + base64.StdEncoding.EncodeToString([]byte("json/plain")) +
		`"},"data":"` + base64.StdEncoding.EncodeToString([]byte(`"hello"`)) + `"}]}`
	sealed := finance.Do(t, http.MethodPost, "/api/v1/staff/codec/encode", nil, plain)
	require.Equal(t, http.StatusOK, sealed.Status, sealed.Raw)
	assert.Empty(t, inTheClear(t, sealed.Raw, "hello"))
	opened := finance.Do(t, http.MethodPost, "/api/v1/staff/codec/decode", nil, sealed.Raw)
	require.Equal(t, http.StatusOK, opened.Status, opened.Raw)
	assert.NotEmpty(t, inTheClear(t, opened.Raw, "hello"))

	// Operators find the guest's bookings by the key the API computes.
	key := finance.Do(t, http.MethodGet, "/api/v1/staff/customers/"+guest+"/search-key", nil, nil)
	require.Equal(t, http.StatusOK, key.Status, key.Raw)
	searchKey := key.Body["searchKey"].(string)
	assert.Regexp(t, `^cus_[0-9a-f]{32}$`, searchKey)
	assert.NotEmpty(t, inTheClear(t, testsuite.RawDescription(t, paid), searchKey), "CustomerId holds the key")
	require.Eventually(t, func() bool {
		list, err := sys.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: key.Body["query"].(string)})
		return err == nil && len(list.Executions) == 1 && list.Executions[0].Execution.WorkflowId == paid
	}, 20*time.Second, 200*time.Millisecond, "the Temporal UI's query %s finds the booking", key.Body["query"])

	testsuite.ReplayAndRecord(t, sys.Temporal, paid, "paid-cancel-refund-sealed")
	testsuite.ReplayAndRecord(t, sys.Temporal, walkIn, "walk-in-hold-sealed")
}

// sealedEncoding is how a sealed payload's encoding shows in the CLI's JSON (metadata values are base64).
func sealedEncoding(t *testing.T) string {
	t.Helper()
	p := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("binary/encrypted")}}
	raw, err := protojson.Marshal(p)
	require.NoError(t, err)
	var m map[string]map[string]string
	require.NoError(t, json.Unmarshal(raw, &m))
	return m["metadata"]["encoding"]
}

// TestSwitchingSealingOnLeavesRunningBookingsWhole: a booking held while every process had the
// keys but nothing sealed (the first step of switching sealing on) goes on after its worker
// starts sealing while the API still does not (a rolling switch of PAYLOAD_ENCRYPTION_KEY_ID):
// paid, confirmed, cancelled and refunded, its history mixing both kinds of payload, and
// replaying. Skipping the first step fails: an API without the keys cannot read what a sealing
// worker answers (the control).
func TestSwitchingSealingOnLeavesRunningBookingsWhole(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{OpenPayloads: true})
	stay := stayFromNow(31, 1)
	openRooms(t, sys, "h-seal", "double", stay, 2)
	guest := sys.Customer("guest")
	id, total := holdRoom(t, sys, "h-seal", "seal-1", stay, 1)
	assert.NotEmpty(t, inTheClear(t, testsuite.RawHistory(t, id), guest), "nothing sealed yet: the control of the scan")

	sys.SealWorker(t)
	payAndConfirm(t, sys, id, total, "evt_seal_1", "pi_seal_1")
	require.Equal(t, http.StatusOK, cancel(t, sys, guest, id).Status)
	awaitStatus(t, sys, id, "REFUNDED")
	assert.NotEmpty(t, inTheClear(t, testsuite.RawHistory(t, id), sealedEncoding(t)), "the worker's later payloads are sealed")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "hold-then-sealing-pay-cancel-refund-sealed-midway")
}

// TestAnAPIWithoutTheKeysCannotReadASealingWorker is why switching sealing on takes two steps:
// an API with no payload keys gets a sealing worker's answers it cannot open.
func TestAnAPIWithoutTheKeysCannotReadASealingWorker(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(32, 1)
	openRooms(t, sys, "h-nokeys", "double", stay, 2)
	id, _ := holdRoom(t, sys, "h-nokeys", "nokeys-1", stay, 1)
	sys.SealWorker(t)
	res := cancel(t, sys, sys.Customer("guest"), id)
	assert.Equal(t, http.StatusInternalServerError, res.Status, "the API cannot open the sealed answer: %s", res.Raw)
}
