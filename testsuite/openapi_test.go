package testsuite_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestTheServedOpenAPIDocumentDescribesTheServedRoutes: the running API serves, without a
// token, a valid document with an operation for each of its routes and for nothing else.
func TestTheServedOpenAPIDocumentDescribesTheServedRoutes(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	res := sys.Do(t, http.MethodGet, "/api/v1/openapi.json", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData([]byte(res.Raw))
	require.NoError(t, err)
	require.NoError(t, doc.Validate(loader.Context))

	param := regexp.MustCompile(`:([A-Za-z0-9_]+)`)
	var served, documented []string
	for _, r := range sys.Routes {
		served = append(served, r.Method+" "+param.ReplaceAllString(r.Path, "{$1}"))
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	assert.ElementsMatch(t, served, documented, "api/openapi.yaml has one operation per route")
}

// failures is a testing.TB that keeps what CheckOpenAPI reports instead of failing.
type failures struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (f *failures) Helper()           {}
func (f *failures) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *failures) Errorf(format string, a ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, a...))
}

// end runs the cleanups, as the end of a test would, and returns what was reported.
func (f *failures) end() string {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	return strings.Join(f.errors, "\n")
}

// TestTheOpenAPICheckFindsDisagreements: the check that wraps every System's API reports an
// answer the document does not give, and a request it refuses that was not answered 4xx, and
// lets through what the document allows, malformed requests answered 4xx included.
func TestTheOpenAPICheckFindsDisagreements(t *testing.T) {
	t.Parallel()
	const errorBody = `{"error":{"code":"invalid_request","message":"no"}}`
	for _, c := range []struct {
		name, method, path, header string
		status                     int
		body                       string
		wrong                      string // in the report; "" when nothing is wrong
	}{
		{"a documented answer", "GET", "/healthz", "", 200, `{"status":"ok"}`, ""},
		{"a shape the document does not give", "GET", "/healthz", "", 200, `{"status":"fine"}`, "/status"},
		{"a status the document does not give", "GET", "/healthz", "", 418, errorBody, "status is not supported"},
		{"an error not in the Error shape", "GET", "/api/v1/me/bookings", "", 400, `{"code":"x"}`, "error"},
		{"a malformed request refused", "POST", "/api/v1/bookings", "", 400, errorBody, ""},
		{"a malformed request accepted", "POST", "/api/v1/bookings", "", 201, `{}`, "the request breaks the document"},
		{"a missing header refused", "POST", "/api/v1/bookings", "Idempotency-Key", 400, errorBody, ""},
		{"an unknown route's 404", "GET", "/api/v1/nowhere", "", 404, errorBody, ""},
		{"an unknown route answered", "GET", "/api/v1/nowhere", "", 200, `{}`, "no operation in the document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			})
			f := &failures{TB: t}
			srv := httptest.NewServer(testsuite.CheckOpenAPI(f, h))
			defer srv.Close()
			req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(`{"quantity": 0}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			if c.header == "" && c.method == http.MethodPost {
				req.Header.Set("Idempotency-Key", "k1")
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = res.Body.Close()
			srv.Close() // the exchange is checked before the server lets go of it
			report := f.end()
			if c.wrong == "" {
				assert.Empty(t, report)
			} else {
				assert.Contains(t, report, c.wrong)
			}
		})
	}
}
