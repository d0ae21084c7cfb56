package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
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

// BenchmarkVenueDay renders a busy venue's day at the desk: 20 courts by 16 hourly slots with
// 300 bookings (held, paid and checked in) and a few closed slots, the page a receptionist
// reloads all day. It reports the page's p50 and p99 over the run, and, as a baseline measured
// in the same run, the three API reads the page is drawn from (the site, its slots, the day's
// bookings), so the ratio is what the console itself adds.
//
//	go test ./console -run '^$' -bench VenueDay -benchtime 300x
func BenchmarkVenueDay(b *testing.B) {
	ctx := context.Background()
	d := testsuite.NewDatabase(b)
	loc, _ := time.LoadLocation("Europe/Budapest")
	day := domain.DateOf(time.Now(), loc).AddDays(1)
	busyVenue(b, d.Store, day, loc)

	e := api.New(d.Store, nil, api.Config{Logger: quietLog()})
	_, err := console.Mount(ctx, e, console.Config{API: e, Pool: d.Pool, DevSignIn: true, InsecureCookie: true, Logger: quietLog()})
	require.NoError(b, err)
	srv := httptest.NewServer(e)
	b.Cleanup(srv.Close)
	client := signedInDesk(b, srv.URL, "venue:bench-hall")
	page := srv.URL + "/console/venues/bench-hall/day?date=" + day.String()
	body := get(b, client, page)
	require.Equal(b, 300, strings.Count(body, `href="/console/bookings/`), "every booking is on the grid")

	desk := domain.Principal{Subject: "desk-bench", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"bench-hall"}}
	reads := []string{"/api/v1/staff/sites?venueId=bench-hall", "/api/v1/venues/bench-hall/slots?date=" + day.String(),
		"/api/v1/staff/bookings?venueId=bench-hall&date=" + day.String() + "&limit=100"}
	apiReads := func() { apiReadsOf(b, e, api.WithPrincipal(ctx, desk), reads) }
	pages, baseline := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		get(b, client, page)
		pages = append(pages, time.Since(start))
		b.StopTimer()
		start = time.Now()
		apiReads()
		baseline = append(baseline, time.Since(start))
		b.StartTimer()
	}
	b.StopTimer()
	p50, p99 := percentile(pages, 50), percentile(pages, 99)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(percentile(baseline, 99)), "api-reads-p99-ms")
	b.ReportMetric(float64(p99)/float64(percentile(baseline, 99)), "p99-vs-api-reads")
}

// busyVenue opens bench-hall with 20 courts hourly 06:00-22:00 on day and books 300 of the 320
// slots, a third each held, paid and checked in; five free slots are closed.
func busyVenue(b *testing.B, store *db.Store, day domain.Date, loc *time.Location) {
	ctx := context.Background()
	_, err := store.PutVenue(ctx, domain.NewVenue("bench-hall", "Bench hall", loc.String()))
	require.NoError(b, err)
	for c := 1; c <= 20; c++ {
		id := fmt.Sprintf("court-%02d", c)
		r := domain.VenueResource{ID: id, VenueID: "bench-hall", Name: fmt.Sprintf("Court %d", c), Kind: domain.KindExclusiveSlot}
		require.NoError(b, r.Validate())
		_, err := store.PutVenueResource(ctx, r)
		require.NoError(b, err)
		_, err = store.ApplySchedule(ctx, "bench-hall", id, domain.Schedule{From: day, To: day.AddDays(1), Opens: "06:00",
			Closes: "22:00", SlotMinutes: 60, Price: domain.Money{Amount: 1500, Currency: "HUF"}})
		require.NoError(b, err)
	}
	n := 0
	for c := 1; c <= 20 && n < 300; c++ {
		for h := 6; h < 22 && n < 300; h++ {
			start := day.At(h, loc)
			customer := fmt.Sprintf("guest-%03d", n)
			req := domain.OrderRequest{CustomerID: customer, VenueID: "bench-hall", Lines: []domain.OrderLine{
				{ResourceID: fmt.Sprintf("court-%02d", c), Start: start, End: start.Add(time.Hour), Quantity: 1}}}
			booking, err := store.ReserveOrder(ctx, db.OrderParams{BookingID: domain.BookingID([]byte("bench"), customer, customer, "k"),
				IdempotencyKey: "k", Request: req, CreatedBy: customer, HoldTTL: 24 * time.Hour})
			require.NoError(b, err)
			require.Equal(b, domain.StatusHold, booking.Status)
			n++
		}
	}
	// Paid and checked-in bookings keep their units as a hold does; the grid only tells them apart.
	_, err = store.Pool().Exec(ctx, `UPDATE bookings SET status = CASE WHEN right(customer_id, 1) IN ('0','1','2') THEN 'CONFIRMED'
		WHEN right(customer_id, 1) IN ('3','4','5') THEN 'COMPLETED' ELSE status END WHERE venue_id = 'bench-hall'`)
	require.NoError(b, err)
	_, err = store.CloseUnits(ctx, db.Closure{VenueID: "bench-hall", ResourceID: "court-20", From: day.At(17, loc),
		To: day.At(22, loc), Reason: "floor repairs", By: "admin"})
	require.NoError(b, err)
}

// signedInDesk is a client signed in to the console as a front desk of site ("venue:<id>",
// "hotel:<id>").
func signedInDesk(b *testing.B, base, site string) *http.Client {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	form := get(b, client, base+"/console/sign-in")
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form)
	require.NotNil(b, token)
	res, err := client.PostForm(base+"/console/sign-in/dev", url.Values{"csrf": {token[1]}, "subject": {"desk-bench"},
		"role": {"front_desk"}, "site": {site}})
	require.NoError(b, err)
	_ = res.Body.Close()
	require.Equal(b, http.StatusOK, res.StatusCode)
	return client
}

func get(b *testing.B, client *http.Client, u string) string {
	res, err := client.Get(u)
	require.NoError(b, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(b, err)
	require.Equal(b, http.StatusOK, res.StatusCode, u)
	return string(body)
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
