package testsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/console"
)

// The API's traffic in the end-to-end tests is held to its OpenAPI document (api/openapi.yaml):
// every request a test sends and every answer it gets. A test whose traffic disagrees with the
// document fails at its end, listing each disagreement.
//
// Tests send malformed requests on purpose (bad JSON, missing fields, unknown routes): a request
// the document refuses must be answered 4xx, and that answer must still be one the document
// gives for the operation.

// spec is the document and its router, loaded once for the test binary.
type spec struct {
	router      routers.Router
	errorSchema *openapi3.Schema
}

var loadSpec = sync.OnceValues(func() (*spec, error) {
	doc, err := api.OpenAPI()
	if err != nil {
		return nil, err
	}
	doc.Servers = nil // the tests' server has a port of its own: match paths alone
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &spec{router: router, errorSchema: doc.Components.Schemas["Error"].Value}, nil
})

// CheckOpenAPI returns h checking each request it serves, and its answer, against the API's
// OpenAPI document; t fails when it ends if any disagreed.
func CheckOpenAPI(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	sp, err := loadSpec()
	require.NoError(t, err, "load api/openapi.yaml")
	found := &violations{}
	t.Cleanup(func() { found.report(t) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil { // the client went away mid-body: nothing to check
			h.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, console.Prefix) { // pages, not the API: its own calls are checked
			h.ServeHTTP(w, r)
			return
		}
		copied := r.Clone(r.Context())
		copied.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if problem := sp.check(copied, rec); problem != "" {
			found.add(fmt.Sprintf("%s %s -> %d: %s", r.Method, r.URL.RequestURI(), rec.code(), problem))
		}
	})
}

// check returns how the exchange disagrees with the document, or "".
func (sp *spec) check(req *http.Request, rec *recorder) string {
	ctx := context.Background()
	status := rec.code()
	if req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != "" {
		// A CORS preflight is the API's answer to a browser, not an operation: 204, or 403 as an Error.
		if status == http.StatusNoContent || (status == http.StatusForbidden && sp.isError(rec.body.Bytes())) {
			return ""
		}
		return fmt.Sprintf("a CORS preflight answered %d", status)
	}
	route, params, err := sp.router.FindRoute(req)
	if err != nil {
		// An unknown route or method, sent on purpose: Echo's 404 or 405, as an Error.
		if (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) && sp.isError(rec.body.Bytes()) {
			return ""
		}
		return "no operation in the document (" + err.Error() + ")"
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		SkipSettingDefaults: true, IncludeResponseStatus: true}
	opts.WithCustomSchemaErrorFunc(schemaError)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	if reqErr != nil && (status < 400 || status > 499) {
		return "the request breaks the document (" + oneLine(reqErr) + ") but was answered " + http.StatusText(status)
	}
	res := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: rec.Header(),
		Options: opts}
	res.SetBodyBytes(rec.body.Bytes())
	if err := openapi3filter.ValidateResponse(ctx, res); err != nil {
		msg := "the answer breaks the document: " + oneLine(err)
		if reqErr != nil {
			msg += " (the request broke it too: " + oneLine(reqErr) + ")"
		}
		return msg + "; body: " + clip(rec.body.String(), 300)
	}
	return ""
}

// isError reports whether body is an Error of the document.
func (sp *spec) isError(body []byte) bool {
	var v any
	return json.Unmarshal(body, &v) == nil && sp.errorSchema.VisitJSON(v) == nil
}

// schemaError says where a value breaks a schema and how, without the schema itself.
func schemaError(err *openapi3.SchemaError) string {
	reason := err.Reason
	if reason == "" {
		reason = "does not match " + err.SchemaField
	}
	value, _ := json.Marshal(err.Value)
	return fmt.Sprintf("at /%s: %s (value %s)", strings.Join(err.JSONPointer(), "/"), reason, clip(string(value), 120))
}

func oneLine(err error) string {
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		parts := make([]string, len(multi))
		for i, e := range multi {
			parts[i] = e.Error()
		}
		return clip(strings.ReplaceAll(strings.Join(parts, "; "), "\n", " "), 600)
	}
	return clip(strings.ReplaceAll(err.Error(), "\n", " "), 600)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// recorder passes an answer on to the client and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// violations are the disagreements one test's traffic had with the document.
type violations struct {
	mu   sync.Mutex
	list []string
	seen map[string]int
}

func (v *violations) add(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seen == nil {
		v.seen = map[string]int{}
	}
	if v.seen[s]++; v.seen[s] == 1 {
		v.list = append(v.list, s)
	}
}

func (v *violations) report(t testing.TB) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.list) == 0 {
		return
	}
	var b strings.Builder
	for _, s := range v.list {
		fmt.Fprintf(&b, "\n  %s", s)
		if n := v.seen[s]; n > 1 {
			fmt.Fprintf(&b, " (%d times)", n)
		}
	}
	t.Errorf("%d exchanges disagree with api/openapi.yaml (fix the document, or the handler if it is wrong):%s",
		len(v.list), b.String())
}
