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
	"github.com/bookflow/bookflow/domain"
)

// offerAPI stands in for the API of venue hall's waitlist: one entry waits for court-1 at
// 10:00, and an offer finds nothing that fits (answered as {"entries":null}, as a Go nil slice
// encodes). It records the offers' bodies.
type offerAPI struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (f *offerAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	write := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	switch path := strings.TrimPrefix(r.URL.Path, "/api/v1"); {
	case path == "/staff/sites":
		write(map[string]any{"sites": []db.SiteSummary{{Kind: "venue", ID: "hall", Name: "Hall", TimeZone: "UTC",
			Resources: []db.ResourceSummary{{ID: "court-1", Kind: "exclusive_slot"}}}}})
	case path == "/staff/waitlist" && r.Method == http.MethodGet:
		write(map[string]any{"entries": []domain.WaitlistEntry{{ID: 7, Status: domain.WaitlistWaiting, Place: 1,
			WaitlistRequest: domain.WaitlistRequest{CustomerID: "walk-in:+3611", VenueID: "hall", ResourceID: "court-1", Quantity: 2}}}})
	case path == "/staff/waitlist/offers" && r.Method == http.MethodPost:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		_, _ = w.Write([]byte(`{"entries":null}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		write(map[string]any{"error": map[string]string{"code": "not_found", "message": path}})
	}
}

// TestTheDesksOfferOfASlotSaysWhenNothingFits: the slot's waitlist page lists the entry at its
// place; its button sends the slot as the API names a product, and an offer that found nothing
// to give says so instead of an empty list.
func TestTheDesksOfferOfASlotSaysWhenNothingFits(t *testing.T) {
	t.Parallel()
	fake := &offerAPI{}
	client, base := consoleOnFake(t, fake)
	slot := url.Values{"venueId": {"hall"}, "resourceId": {"court-1"}, "start": {"2030-06-03T10:00:00+02:00"},
		"end": {"2030-06-03T11:00:00+02:00"}}
	page := base + "/console/waitlist?" + slot.Encode()
	status, body := fetch(t, client, http.MethodGet, page, nil, "")
	require.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, "court-1 on 2030-06-03, 08:00 to 09:00", "the slot in the venue's time zone")
	assert.Contains(t, body, `<td class="place">1</td><th scope="row">Walk-in &#43;3611</th><td>2</td>`)

	form := url.Values{"csrf": {csrfOf(t, body)}}
	for k, v := range slot {
		form[k] = v
	}
	status, body = fetch(t, client, http.MethodPost, base+"/console/waitlist/offers", form, page)
	require.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, "Nothing was offered")
	require.Len(t, fake.bodies, 1)
	assert.Equal(t, map[string]any{"venueId": "hall", "resourceId": "court-1", "start": "2030-06-03T10:00:00+02:00",
		"end": "2030-06-03T11:00:00+02:00", "quantity": float64(1)}, fake.bodies[0])
}
