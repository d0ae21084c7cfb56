package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
)

// Echo's own refusals answer the one error shape with snake-case codes, and a body over the
// limit is 413 whether or not the client said its length.
func TestEchosOwnErrorsAnswerTheDocumentedCodes(t *testing.T) {
	const admin = "an-admin-token-of-at-least-32-bytes-long"
	e := newEchoWith(t, api.Config{AdminToken: admin, Logger: slog.New(slog.DiscardHandler)})
	code := func(req *http.Request) (int, string) {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
		return rec.Code, body.Error.Code
	}

	status, c := code(httptest.NewRequest(http.MethodGet, "/api/v1/nowhere", nil))
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "not_found", c)
	status, c = code(httptest.NewRequest(http.MethodDelete, "/healthz", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	assert.Equal(t, "method_not_allowed", c)

	big := `{"name": "` + strings.Repeat("x", 70<<10) + `"}`
	for _, sized := range []bool{true, false} {
		req := httptest.NewRequest(http.MethodPut, "/api/v1/admin/venues/v1", io.NopCloser(strings.NewReader(big)))
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(big))
		if !sized {
			req.ContentLength = -1 // chunked: the limit is met while reading
		}
		status, c = code(req)
		assert.Equal(t, http.StatusRequestEntityTooLarge, status, "length sent: %v", sized)
		assert.Contains(t, []string{"body_too_large", "request_entity_too_large"}, c, "length sent: %v", sized)
	}
}
