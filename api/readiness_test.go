package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// temporalHealth is a Temporal client whose frontend answers CheckHealth with err.
type temporalHealth struct {
	client.Client
	err error
}

func (t *temporalHealth) CheckHealth(context.Context, *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	return &client.CheckHealthResponse{}, t.err
}

// TestTheAPIsReadinessNamesWhatIsDown: /readyz answers 200 while PostgreSQL and Temporal answer,
// and 503 naming the one that does not, never the cause (it can name hosts and users).
func TestTheAPIsReadinessNamesWhatIsDown(t *testing.T) {
	t.Parallel()
	readyz := func(e http.Handler) (int, map[string]string) {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var answer map[string]string
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
		assert.NotContains(t, rec.Body.String(), "10.0.0.5")
		return rec.Code, answer
	}
	d := testsuite.NewDatabase(t)
	temporal := &temporalHealth{}
	e := api.New(d.Store, temporal, api.Config{Logger: slog.New(slog.DiscardHandler)})
	code, answer := readyz(e)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, map[string]string{"database": "ok", "temporal": "ok"}, answer)

	temporal.err = errors.New("dial tcp 10.0.0.5:7233: connection refused")
	code, answer = readyz(e)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, map[string]string{"database": "ok", "temporal": "unavailable"}, answer)

	temporal.err = nil
	unreachable, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	require.NoError(t, err)
	t.Cleanup(unreachable.Close)
	code, answer = readyz(api.New(db.NewStore(unreachable, 0), temporal, api.Config{Logger: slog.New(slog.DiscardHandler)}))
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, map[string]string{"database": "unavailable", "temporal": "ok"}, answer)
}
