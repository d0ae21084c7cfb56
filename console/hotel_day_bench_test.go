package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/console"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkHotelDayAndSearch renders a hotel's day with 200 arrivals, each named by its guest,
// and the desk's search answering a guest's name among them (issue 39: p99 under 50 ms). It
// reports each page's p50 and p99 and, as a baseline measured in the same run, the API reads
// each page is drawn from, so the ratio is what the console itself adds.
//
//	go test ./console -run '^$' -bench HotelDayAndSearch -benchtime 200x
func BenchmarkHotelDayAndSearch(b *testing.B) {
	ctx := context.Background()
	d := testsuite.NewDatabase(b)
	today := domain.DateOf(time.Now(), time.UTC)
	d.SetInventory(b, "bench-inn", "double", today, today.AddDays(3), 250)
	for i := range 200 {
		customer := fmt.Sprintf("guest-%03d", i)
		req := domain.HoldRequest{CustomerID: customer, HotelID: "bench-inn", RoomTypeID: "double",
			Stay: domain.Stay{CheckIn: today, CheckOut: today.AddDays(2)}, Quantity: 1}
		held, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: domain.BookingID([]byte("bench"), customer, customer, "k"),
			IdempotencyKey: "k", Request: req, CreatedBy: customer, HoldTTL: 24 * time.Hour})
		require.NoError(b, err)
		_, err = d.Store.PutGuest(ctx, held.ID, domain.Guest{Name: fmt.Sprintf("Guest Number %03d", i)})
		require.NoError(b, err)
	}

	e := api.New(d.Store, nil, api.Config{Logger: quietLog()})
	_, err := console.Mount(ctx, e, console.Config{API: e, Pool: d.Pool, DevSignIn: true, InsecureCookie: true, Logger: quietLog()})
	require.NoError(b, err)
	srv := httptest.NewServer(e)
	b.Cleanup(srv.Close)
	client := signedInDesk(b, srv.URL, "hotel:bench-inn")
	desk := domain.Principal{Subject: "desk-bench", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"bench-inn"}}
	pages := []struct {
		name, page string
		reads      []string
		shows      int // bookings linked on the page
	}{
		{"hotel day", "/console/hotels/bench-inn/day?date=" + today.String(), []string{"/api/v1/staff/sites?hotelId=bench-inn",
			"/api/v1/staff/bookings?hotelId=bench-inn&date=" + today.String() + "&limit=100",
			"/api/v1/staff/hotels/bench-inn/rooms?date=" + today.String(), // the rooms panel's (hotel_rooms.go)
			"/api/v1/staff/sites/bench-inn/due-at-the-desk"}, 200},        // today's refunds due at the desk (booking_hand_over.go)
		{"search", "/console/search?q=" + url.QueryEscape("number 123"), []string{"/api/v1/staff/search?q=" +
			url.QueryEscape("number 123") + "&limit=50"}, 1},
	}
	for _, p := range pages {
		body := get(b, client, srv.URL+p.page)
		require.GreaterOrEqual(b, strings.Count(body, `href="/console/bookings/`), p.shows, "%s lists its bookings", p.name)
		b.Run(p.name, func(b *testing.B) {
			took, baseline := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				get(b, client, srv.URL+p.page)
				took = append(took, time.Since(start))
				start = time.Now()
				apiReadsOf(b, e, api.WithPrincipal(ctx, desk), p.reads)
				baseline = append(baseline, time.Since(start))
			}
			p99 := percentile(took, 99)
			b.ReportMetric(ms(percentile(took, 50)), "p50-ms")
			b.ReportMetric(ms(p99), "p99-ms")
			b.ReportMetric(ms(percentile(baseline, 99)), "api-reads-p99-ms")
			b.ReportMetric(float64(p99)/float64(percentile(baseline, 99)), "p99-vs-api-reads")
		})
	}
}

// apiReadsOf reads each path (following its pages) as the console would, in process.
func apiReadsOf(b *testing.B, e http.Handler, ctx context.Context, paths []string) {
	for _, path := range paths {
		for cursor := ""; ; {
			req := httptest.NewRequestWithContext(ctx, http.MethodGet, path+cursor, nil)
			w := httptest.NewRecorder()
			e.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", path, w.Code, w.Body.String())
			}
			next := regexp.MustCompile(`"next":"([^"]+)"`).FindStringSubmatch(w.Body.String())
			if next == nil {
				break
			}
			cursor = "&cursor=" + next[1]
		}
	}
}
