package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/db"
)

// newEcho builds the API's Echo without a database or Temporal: the pool never connects, which
// is enough to list the routes and serve what needs neither.
func newEcho(t *testing.T) *echo.Echo {
	t.Helper()
	return newEchoWith(t, api.Config{Logger: slog.New(slog.DiscardHandler)})
}

// newEchoWith is newEcho with the API configured by cfg.
func newEchoWith(t *testing.T, cfg api.Config) *echo.Echo {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return api.New(db.NewStore(pool, 0), nil, cfg)
}

var echoParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// TestOpenAPIDocumentsEveryRoute fails when a route the API serves has no operation in
// api/openapi.yaml, or an operation has no route.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc, err := api.OpenAPI()
	require.NoError(t, err)
	var served, documented []string
	for _, r := range newEcho(t).Routes() {
		served = append(served, r.Method+" "+echoParam.ReplaceAllString(r.Path, "{$1}"))
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	assert.Empty(t, missing(served, documented), "routes the API serves that api/openapi.yaml does not describe")
	assert.Empty(t, missing(documented, served), "operations api/openapi.yaml describes that the API does not serve")
	assert.Len(t, documented, len(served))
}

// missing returns what of want is not in have.
func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// TestOpenAPIOperationsAreComplete holds every operation to the conventions of the document:
// named, tagged and summarised; its path parameters declared; its errors in the Error shape; and
// the answers every route of its kind can give listed.
func TestOpenAPIOperationsAreComplete(t *testing.T) {
	doc, err := api.OpenAPI()
	require.NoError(t, err)
	errorSchema := doc.Components.Schemas["Error"]
	require.NotNil(t, errorSchema, "components.schemas.Error")
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			assert.NotEmpty(t, op.OperationID, name)
			assert.NotEmpty(t, op.Summary, name)
			assert.NotEmpty(t, op.Tags, name)
			params := append(slices.Clone(item.Parameters), op.Parameters...)
			for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
				assert.NotNil(t, params.GetByInAndName(openapi3.ParameterInPath, m[1]), "%s declares {%s}", name, m[1])
			}
			bearer := op.Security == nil // the document's default: bearerAuth
			if bearer {
				for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusInternalServerError} {
					assert.NotNil(t, op.Responses.Status(status), "%s: a bearer route can answer %d", name, status)
				}
			}
			if op.RequestBody != nil {
				for _, status := range []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge} {
					assert.NotNil(t, op.Responses.Status(status), "%s: a route with a body can answer %d", name, status)
				}
			}
			for code, res := range op.Responses.Map() {
				if code[0] != '4' && code[0] != '5' || name == "GET /readyz" {
					continue
				}
				media := res.Value.Content.Get("application/json")
				if assert.NotNil(t, media, "%s %s answers JSON", name, code) {
					assert.Equal(t, errorSchema.Value, media.Schema.Value, "%s %s answers an Error", name, code)
				}
			}
		}
	}
}

// TestOpenAPIIsServed: GET /api/v1/openapi.json answers the document as JSON, without a token,
// cacheable, and it loads and validates as it was written.
func TestOpenAPIIsServed(t *testing.T) {
	e := newEcho(t)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, api.OpenAPIPath, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json"), rec.Header().Get("Content-Type"))
	assert.Contains(t, rec.Header().Get("Cache-Control"), "max-age=")
	etag := rec.Header().Get("ETag")
	require.NotEmpty(t, etag)

	loader := openapi3.NewLoader()
	served, err := loader.LoadFromData(rec.Body.Bytes())
	require.NoError(t, err)
	require.NoError(t, served.Validate(loader.Context))
	written, err := api.OpenAPI()
	require.NoError(t, err)
	assert.Equal(t, "3.0.3", served.OpenAPI)
	assert.Equal(t, written.Paths.Len(), served.Paths.Len())
	assert.Equal(t, len(written.Components.Schemas), len(served.Components.Schemas))
	assert.NotNil(t, served.Paths.Find(api.OpenAPIPath), "the document describes itself")

	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, api.OpenAPIPath, nil)
	req.Header.Set("If-None-Match", etag)
	e.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusNotModified, rec.Code, "a cached copy is revalidated")
	assert.Empty(t, rec.Body.String())
}

// TestTheAPIPageNamesEveryOperation: the API page's table of response shapes (docs/api.md,
// "Where the response shapes are") has a row for every operation of the document, naming its
// operationId.
func TestTheAPIPageNamesEveryOperation(t *testing.T) {
	doc, err := api.OpenAPI()
	require.NoError(t, err)
	page, err := os.ReadFile("../docs/api.md")
	require.NoError(t, err)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			assert.Contains(t, string(page), "| `"+op.OperationID+"` |", "%s %s has a row in docs/api.md's response shapes", method, path)
		}
	}
}
