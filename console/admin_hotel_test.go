package console_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
)

// inventoryAPI records the inventory PUT it is sent and answers it done.
type inventoryAPI struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (f *inventoryAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	write := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	switch path := strings.TrimPrefix(r.URL.Path, "/api/v1"); {
	case path == "/staff/sites":
		write(map[string]any{"sites": []db.SiteSummary{{Kind: "hotel", ID: "inn", Name: "Inn", TimeZone: "UTC",
			Resources: []db.ResourceSummary{{ID: "double", Kind: "room", Unit: "room"}}}}})
	case strings.HasSuffix(path, "/inventory") && r.Method == http.MethodPut:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		n := 0
		if v, ok := body["totalRooms"].(float64); ok {
			n = int(v)
		}
		write(map[string]any{"nights": 7, "totalRooms": n})
	default:
		w.WriteHeader(http.StatusNotFound)
		write(map[string]any{"error": map[string]string{"code": "not_found", "message": path}})
	}
}

// TestInventoryFormLeftBlankDoesNotCloseTheRooms: the hotel page's inventory form has an
// optional rate and a total rooms field that is neither required nor filled in with the stored
// total. An admin setting only a rate for a week, total rooms left blank, has the console send
// totalRooms 0 (formInt's "left empty" is dropped in putInventory): the API's own "totalRooms is
// required" is bypassed and the week's rooms are closed.
func TestInventoryFormLeftBlankDoesNotCloseTheRooms(t *testing.T) {
	t.Parallel()
	fake := &inventoryAPI{}
	client, base := consoleSignedIn(t, fake, "admin", "")
	status, page := fetch(t, client, http.MethodGet, base+"/console/", nil, "")
	require.Equal(t, http.StatusOK, status, page)
	fetch(t, client, http.MethodPost, base+"/console/admin/hotels/inn/inventory", url.Values{"csrf": {csrfOf(t, page)},
		"roomTypeId": {"double"}, "from": {"2026-12-07"}, "to": {"2026-12-14"}, "totalRooms": {""}, "rate": {"120.00"},
		"currency": {"EUR"}}, "")
	for _, b := range fake.bodies {
		rooms, set := b["totalRooms"]
		assert.False(t, set && rooms == float64(0), "a blank total rooms was sent as 0 rooms: %v", b)
	}
}
