package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bookflow/bookflow/api"
	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// benchCache measures searches through the availability cache against the database's own query
// of the same nights, and a flash sale through the sold-out gate; the relay's lag over the whole
// run is printed last.
func benchCache(ctx context.Context, d *deps, queue string, verifier *auth.Verifier, token string, o benchOptions, run string) error {
	changes := &cache.Changes{Pool: d.store.Pool()}
	changesCtx, stopChanges := context.WithCancel(ctx)
	defer stopChanges()
	go changes.Run(changesCtx)
	// The API as a checkout front end reaches it, on a loopback port: with the cache, and
	// without it (every search reads PostgreSQL).
	serve := func(c *cache.Units) (base string, err error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		e := api.New(d.store, d.temporal, api.Config{Auth: verifier, BookingIDKey: benchIDKey, TaskQueue: queue,
			HoldTTL: time.Minute, LateWindow: time.Second, Cache: c, Changes: changes, ReserveLocally: true})
		srv := &http.Server{Handler: e}
		go srv.Serve(ln) //nolint:errcheck // closed when the bench ends
		go func() { <-ctx.Done(); srv.Close() }()
		return "http://" + ln.Addr().String(), nil
	}
	root, err := serve(d.cache)
	if err != nil {
		return err
	}
	uncachedRoot, err := serve(nil)
	if err != nil {
		return err
	}
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	get := func(ctx context.Context, url string, authorized bool) (int, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if authorized {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := httpc.Do(req)
		if err != nil {
			return 0, err
		}
		drain(res)
		return res.StatusCode, nil
	}
	call := func(ctx context.Context, method, path, key, body string) (int, error) {
		req, _ := http.NewRequestWithContext(ctx, method, root+"/api/v1"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		res, err := httpc.Do(req)
		if err != nil {
			return 0, err
		}
		drain(res)
		return res.StatusCode, nil
	}
	ok200 := func(code int, err error) error {
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("status %d", code)
		}
		return err
	}

	fmt.Println("Availability cache (Redis) and the sold-out gate")
	// Search: a hotel with 5 room types, over 3 nights.
	first := domain.DateOf(time.Now(), time.UTC).AddDays(30)
	stay := domain.Stay{CheckIn: first.AddDays(10), CheckOut: first.AddDays(13)}
	hotel := "bench-search-" + run
	for _, rt := range []string{"single", "double", "twin", "family", "suite"} {
		if err := d.store.SetInventory(ctx, db.SetInventoryParams{HotelID: hotel, RoomTypeID: rt,
			From: first, To: first.AddDays(60), TotalRooms: 1_000_000, Rate: &benchRate}); err != nil {
			return err
		}
	}
	// With -search-hotels, each search asks for one of a loaded catalogue's hotels at random
	// (scripts/scale/run: prefix scale), as searches spread over a big inventory would.
	searchHotel := func() string { return hotel }
	if o.searchHotels > 0 {
		searchHotel = func() string { return fmt.Sprintf("%s-%d", o.searchPrefix, rand.IntN(o.searchHotels)) }
	}
	searchPath := func(hotel string) string {
		return "/hotels/" + hotel + "/availability?checkIn=" + stay.CheckIn.String() + "&checkOut=" + stay.CheckOut.String()
	}
	search := searchPath(hotel)
	if code, err := call(ctx, http.MethodGet, search, "", ""); err != nil || code != http.StatusOK {
		return fmt.Errorf("warming the search: %d %v", code, err)
	}
	pool := d.store.Pool()
	health := measure(ctx, "baseline: GET /healthz (the HTTP stack)", o.clients, 0, o.duration, func(ctx context.Context, _ int) error {
		return ok200(get(ctx, root+"/healthz", false))
	})
	health.label = "/healthz"
	health.print()
	raw := measure(ctx, "baseline: PostgreSQL query of the same nights", o.clients, 0, o.duration, func(ctx context.Context, _ int) error {
		rows, err := pool.Query(ctx, `SELECT r.code, i.unit_start, i.total - i.reserved FROM resources r
			JOIN inventory i ON i.resource_id = r.id WHERE r.hotel_id = $1 AND i.unit_start >= $2 AND i.unit_start < $3`,
			searchHotel(), stay.CheckIn.Time(), stay.CheckOut.Time())
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	})
	raw.label = "the query"
	raw.print()
	measure(ctx, "search through the API, cached", o.clients, 0, o.duration, func(ctx context.Context, _ int) error {
		return ok200(get(ctx, root+"/api/v1"+searchPath(searchHotel()), true))
	}).print(&raw, &health)
	measure(ctx, "search through the API, uncached", o.clients, 0, o.duration, func(ctx context.Context, _ int) error {
		return ok200(get(ctx, uncachedRoot+"/api/v1"+searchPath(searchHotel()), true))
	}).print(&raw, &health)
	if err := benchPlanSearch(ctx, d, o, run, func(ctx context.Context, cached bool, path string) error {
		base := uncachedRoot
		if cached {
			base = root
		}
		return ok200(get(ctx, base+"/api/v1"+path, true))
	}); err != nil {
		return err
	}

	// Flash sale: 1,000 buyers at once for 10 rooms, each retrying on 429 as told, until each
	// has a hold or a sold-out.
	const buyers, rooms = 1000, 10
	flash := "bench-flash-" + run
	if err := d.store.SetInventory(ctx, db.SetInventoryParams{HotelID: flash, RoomTypeID: "double",
		From: stay.CheckIn, To: stay.CheckOut, TotalRooms: rooms, Rate: &benchRate}); err != nil {
		return err
	}
	if code, err := call(ctx, http.MethodGet, "/hotels/"+flash+"/availability?checkIn="+stay.CheckIn.String()+
		"&checkOut="+stay.CheckOut.String(), "", ""); err != nil || code != http.StatusOK {
		return fmt.Errorf("warming the flash sale: %d %v", code, err)
	}
	var mu sync.Mutex
	codes := map[int]int{}
	busy := 0
	body := fmt.Sprintf(`{"hotelId":%q,"roomTypeId":"double","checkIn":%q,"checkOut":%q,"quantity":1}`, flash, stay.CheckIn, stay.CheckOut)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Go(func() {
			for {
				code, err := call(ctx, http.MethodPost, "/bookings", fmt.Sprintf("flash-%d", i), body)
				mu.Lock()
				if err != nil {
					code = -1
				}
				if code != http.StatusTooManyRequests {
					codes[code]++
					mu.Unlock()
					return
				}
				busy++
				mu.Unlock()
				time.Sleep(time.Second) // Retry-After: 1
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var started int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE r.hotel_id = $1`,
		flash).Scan(&started); err != nil {
		return err
	}
	fmt.Printf("  flash sale: %d buyers for %d rooms, settled in %s: %d held, %d sold out (409), %d workflows started, %d busy answers (429) retried\n",
		buyers, rooms, elapsed.Round(time.Millisecond), codes[http.StatusCreated], codes[http.StatusConflict], started, busy)
	if codes[http.StatusCreated] != rooms || codes[http.StatusConflict] != buyers-rooms {
		return fmt.Errorf("the flash sale ended %v, not %d held and %d sold out", codes, rooms, buyers-rooms)
	}
	// Then late buyers find it sold out: the gate's answer.
	soldOut := measure(ctx, "sold out: hold refused by the gate (409)", o.clients, 0, o.duration, func(ctx context.Context, i int) error {
		code, err := call(ctx, http.MethodPost, "/bookings", fmt.Sprintf("late-%d", i), body)
		if err == nil && code != http.StatusConflict {
			err = fmt.Errorf("status %d", code)
		}
		return err
	})
	soldOut.print(&health)
	soldOut.label = "the gate's sold-out answers"
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE r.hotel_id = $1`,
		flash).Scan(&started); err != nil {
		return err
	}
	fmt.Printf("  workflows started for the flash sale in all: %d\n", started)
	return benchWaitlist(ctx, waitlistBench{d: d, queue: queue, root: root, httpc: httpc, token: token, o: o, run: run,
		flash: body, soldOut: &soldOut, stay: stay, customer: customerTokens(run)})
}
