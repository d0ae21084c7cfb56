package api_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
)

// TestTheSupplierOpenAPIIsServed: the supplier-facing document is served as JSON, without a
// token, and loads and validates as written.
func TestTheSupplierOpenAPIIsServed(t *testing.T) {
	rec := httptest.NewRecorder()
	newEcho(t).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, api.SupplierOpenAPIPath, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	loader := openapi3.NewLoader()
	served, err := loader.LoadFromData(rec.Body.Bytes())
	require.NoError(t, err)
	require.NoError(t, served.Validate(loader.Context))
	for _, path := range []string{"/stock", "/quotes", "/holds", "/holds/{reference}/cancel", "/api/v1/suppliers/{supplierId}/stock"} {
		assert.NotNil(t, served.Paths.Find(path), path)
	}
}
