package suppliers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/suppliers"
	"github.com/bookflow/bookflow/testsuite/suppliersim"
)

// supplierDoc loads suppliers/openapi.yaml, valid, with its servers dropped so that any test
// server's paths match.
func supplierDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(suppliers.OpenAPIYAML)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(loader.Context))
	doc.Servers = nil
	for _, p := range doc.Paths.Map() {
		p.Servers = nil
	}
	return doc
}

// checked serves h, holding every request and answer to the document; problems collects what
// disagrees.
type checked struct {
	router   routers.Router
	mu       sync.Mutex
	problems []string
	seen     map[string]bool // operation ids exercised
}

func newChecked(t *testing.T) *checked {
	router, err := legacy.NewRouter(supplierDoc(t))
	require.NoError(t, err)
	return &checked{router: router, seen: map[string]bool{}}
}

func (c *checked) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		copied := r.Clone(r.Context())
		copied.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		c.check(copied, rec)
	})
}

func (c *checked) check(req *http.Request, rec *httptest.ResponseRecorder) {
	ctx := context.Background()
	c.mu.Lock()
	defer c.mu.Unlock()
	where := req.Method + " " + req.URL.Path
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.problems = append(c.problems, where+": no operation: "+err.Error())
		return
	}
	c.seen[route.Operation.OperationID] = true
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		c.problems = append(c.problems, where+": the request breaks the document: "+err.Error())
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(), Options: opts}
	out.SetBodyBytes(rec.Body.Bytes())
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		c.problems = append(c.problems, fmt.Sprintf("%s -> %d: the answer breaks the document: %v; body %s", where, rec.Code, err, rec.Body))
	}
}

// TestTheClientAndTheSimulatorSpeakTheSupplierDocument drives every call bookflow makes to a
// supplier, with this package's client against the simulated supplier, and a push from the
// simulator to a stand-in of bookflow answering as bookflow does; each exchange must be one the
// document describes.
func TestTheClientAndTheSimulatorSpeakTheSupplierDocument(t *testing.T) {
	c := newChecked(t)
	sim := suppliersim.New()
	srv := httptest.NewServer(c.wrap(sim.Handler()))
	defer srv.Close()
	ctx := context.Background()
	in := domain.NewDate(2027, 5, 1)
	two := 2
	sim.SetStock("h1", "double", in, in.AddDays(3), &two, 12000, "EUR")
	sim.SetStock("h1", "suite", in, in.AddDays(3), nil, 30000, "EUR")
	client := suppliers.Client{}

	report, err := client.Stock(ctx, srv.URL, "h1", in, in.AddDays(3))
	require.NoError(t, err)
	require.NoError(t, report.Validate())
	require.NotNil(t, report.ReportedAt)
	sim.Set(suppliersim.Behaviour{NoReportTime: true})
	_, err = client.Stock(ctx, srv.URL, "h1", in, in.AddDays(3))
	require.NoError(t, err)
	sim.Set(suppliersim.Behaviour{})

	stay := suppliers.QuoteRequest{HotelID: "h1", RoomTypeID: "double", CheckIn: in, CheckOut: in.AddDays(2), Quantity: 2}
	q, err := client.Quote(ctx, srv.URL, stay)
	require.NoError(t, err)
	assert.True(t, q.Available)
	tooMany := stay
	tooMany.Quantity = 3
	q, err = client.Quote(ctx, srv.URL, tooMany)
	require.NoError(t, err)
	assert.False(t, q.Available)

	ans, err := client.Hold(ctx, srv.URL, suppliers.HoldRequest{Reference: "booking-1", QuoteRequest: stay})
	require.NoError(t, err)
	assert.Equal(t, suppliers.HoldConfirmed, ans.Status)
	ans, err = client.Hold(ctx, srv.URL, suppliers.HoldRequest{Reference: "booking-2", QuoteRequest: stay})
	require.NoError(t, err)
	assert.Equal(t, suppliers.HoldRejected, ans.Status, "the rooms are gone")
	require.NoError(t, client.Cancel(ctx, srv.URL, "booking-1"))
	require.NoError(t, client.Cancel(ctx, srv.URL, "never-asked"))
	sim.Set(suppliersim.Behaviour{Fail: true})
	_, err = client.Quote(ctx, srv.URL, stay)
	assert.Error(t, err)
	sim.Set(suppliersim.Behaviour{})

	// The push, to a stand-in answering with bookflow's own result and error shapes.
	const secret = "a-push-secret-of-some-length"
	bookflow := httptest.NewServer(c.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if err := suppliers.Verify(body, r.Header.Get(suppliers.SignatureHeader), secret, time.Now(), suppliers.DefaultTolerance); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "bad_signature", "message": err.Error()}})
			return
		}
		var r2 domain.StockReport
		_ = json.Unmarshal(body, &r2)
		_ = json.NewEncoder(w).Encode(db.SyncResult{HotelID: r2.HotelID, Nights: 3, Stale: 1})
	})))
	defer bookflow.Close()
	require.NoError(t, suppliersim.Push(ctx, bookflow.URL, "sim", secret, sim.Report("h1", in, in.AddDays(3))))
	assert.Error(t, suppliersim.Push(ctx, bookflow.URL, "sim", "another-secret-of-some-length", sim.Report("h1", in, in.AddDays(3))))

	assert.Empty(t, c.problems)
	for _, op := range []string{"readStock", "quote", "hold", "cancelHold", "pushStock"} {
		assert.True(t, c.seen[op], "%s was never exercised", op)
	}
}

// TestBothDocumentsJudgeAStockReportAlike: bookflow's API document and the supplier document
// describe the same push body; they accept and refuse the same reports.
func TestBothDocumentsJudgeAStockReportAlike(t *testing.T) {
	mainDoc, err := api.OpenAPI()
	require.NoError(t, err)
	ours := supplierDoc(t).Components.Schemas["StockReport"].Value
	theirs := mainDoc.Components.Schemas["StockReport"].Value
	night := `{"date":"2027-05-01","total":5,"rate":12000,"currency":"EUR"}`
	for name, body := range map[string]string{
		"valid":           `{"hotelId":"h1","reportedAt":"2027-04-30T10:00:00Z","roomTypes":[{"roomTypeId":"dbl","nights":[` + night + `]}]}`,
		"no report time":  `{"hotelId":"h1","roomTypes":[{"roomTypeId":"dbl","nights":[` + night + `,{"date":"2027-05-02","rate":1,"currency":"EUR"}]}]}`,
		"unlimited":       `{"hotelId":"h1","roomTypes":[{"roomTypeId":"dbl","nights":[{"date":"2027-05-01","total":null,"rate":1,"currency":"EUR"}]}]}`,
		"no rate":         `{"hotelId":"h1","roomTypes":[{"roomTypeId":"dbl","nights":[{"date":"2027-05-01","total":5,"currency":"EUR"}]}]}`,
		"rate 0":          `{"hotelId":"h1","roomTypes":[{"roomTypeId":"dbl","nights":[{"date":"2027-05-01","rate":0,"currency":"EUR"}]}]}`,
		"no currency":     `{"hotelId":"h1","roomTypes":[{"roomTypeId":"dbl","nights":[{"date":"2027-05-01","rate":1}]}]}`,
		"bad currency":    `{"hotelId":"h1","roomTypes":[{"roomTypeId":"dbl","nights":[{"date":"2027-05-01","rate":1,"currency":"euro"}]}]}`,
		"unknown field":   `{"hotelId":"h1","sequence":3,"roomTypes":[{"roomTypeId":"dbl","nights":[` + night + `]}]}`,
		"no room types":   `{"hotelId":"h1","roomTypes":[]}`,
		"bad hotel id":    `{"hotelId":"h 1","roomTypes":[{"roomTypeId":"dbl","nights":[` + night + `]}]}`,
		"negative total":  `{"hotelId":"h1","roomTypes":[{"roomTypeId":"dbl","nights":[{"date":"2027-05-01","total":-1,"rate":1,"currency":"EUR"}]}]}`,
		"bad report time": `{"hotelId":"h1","reportedAt":"yesterday","roomTypes":[{"roomTypeId":"dbl","nights":[` + night + `]}]}`,
	} {
		var v any
		require.NoError(t, json.Unmarshal([]byte(body), &v), name)
		errOurs, errTheirs := ours.VisitJSON(v), theirs.VisitJSON(v)
		assert.Equal(t, errOurs == nil, errTheirs == nil, "%s: the supplier document says %v, the API's %v", name, errOurs, errTheirs)
		var r domain.StockReport
		decoded := json.Unmarshal([]byte(body), &r) == nil && r.Validate() == nil
		if strings.HasPrefix(name, "unknown") {
			continue // refused by the API's strict decoding, not by Validate
		}
		assert.Equal(t, errOurs == nil, decoded, "%s: the document says %v, domain.StockReport.Validate disagrees", name, errOurs)
	}
}
