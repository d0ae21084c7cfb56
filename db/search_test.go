package db_test

import (
	"context"
	"crypto/md5"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDeskFindsABookingByItsGuest: a booking is found by a part of its guest's name in any
// case, a phone's digits however typed, an e-mail, its id, or a walk-in's name and phone; only
// in the sites the desk may see; erasure leaves nothing to find.
func TestTheDeskFindsABookingByItsGuest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	anna := hold(t, d, "acct-anna", stay3, 1)
	_, err := d.Store.PutGuest(db.WithActor(ctx, "desk-1"), anna.ID, domain.Guest{Name: "Anna Kovács", Phone: "+36301234567",
		Email: "anna@example.hu", Guests: 2, ArrivalTime: "18:30", Notes: "late arrival"})
	require.NoError(t, err)
	walkIn, err := d.Store.WalkInCustomer(ctx, "+4915112345678", "Bernd Weber", "desk-1")
	require.NoError(t, err)
	bernd := hold(t, d, walkIn, stay3, 1)
	other := hold(t, d, "acct-zoe", stay3, 1)

	found := func(text string, hotels []string) []string {
		hits, err := d.Store.SearchBookings(ctx, db.SearchQuery{Text: text, HotelIDs: hotels, Limit: 20})
		require.NoError(t, err)
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Booking.ID+" "+h.Matched+" "+h.Guest)
		}
		return ids
	}
	for text, want := range map[string]string{
		"kovács": anna.ID + " name Anna Kovács", "ANNA": anna.ID + " name Anna Kovács", "06 30 123 4567": anna.ID + " phone Anna Kovács",
		"+36-30-123": anna.ID + " phone Anna Kovács", "anna@EXAMPLE": anna.ID + " email Anna Kovács", anna.ID: anna.ID + " id Anna Kovács",
		"weber": bernd.ID + " name Bernd Weber", "0151 1234": bernd.ID + " phone Bernd Weber", walkIn: bernd.ID + " customer Bernd Weber",
	} {
		assert.Equal(t, []string{want}, found(text, nil), text)
	}
	assert.Empty(t, found("anna", []string{"h2"}), "another hotel's desk finds nothing")
	assert.Empty(t, found("%", nil), "a wildcard is a character")
	assert.Empty(t, found("a", nil), "too short")
	assert.Equal(t, []string{other.ID + " customer "}, found("acct-zoe", nil))

	guest, err := d.Store.GuestOf(ctx, anna)
	require.NoError(t, err)
	assert.Equal(t, domain.Guest{Name: "Anna Kovács", Phone: "+36301234567", Email: "anna@example.hu", Guests: 2,
		ArrivalTime: "18:30", Notes: "late arrival"}, guest.Guest)
	assert.Equal(t, "desk-1", guest.UpdatedBy)
	guest, err = d.Store.GuestOf(ctx, bernd)
	require.NoError(t, err)
	assert.Equal(t, domain.Guest{Name: "Bernd Weber", Phone: "+4915112345678"}, guest.Guest, "a walk-in's name and phone")

	_, err = d.Store.Release(ctx, anna.ID, domain.StatusExpired)
	require.NoError(t, err)
	e, err := d.Store.EraseCustomer(ctx, db.ErasureRequest{CustomerID: "acct-anna", Pseudonym: "erased:" + strings.Repeat("a", 32), By: "admin",
		Reason: "ticket 1"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), e.Rows.BookingGuests)
	assert.Empty(t, found("kovács", nil), "erased")
}

// BenchmarkStaffSearch measures the desk's search at 100,000 bookings with guests (a third
// walk-ins), against two baselines in the same run: the same search planned by PostgreSQL alone
// (it prices the trigram indexes above reading the names whole), and then without the trigram
// indexes at all:
//
//	go test -run '^$' -bench StaffSearch -benchtime 30x -v ./db/
func BenchmarkStaffSearch(b *testing.B) {
	d := testsuite.NewDatabase(b)
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `
		INSERT INTO hotels (id) SELECT 'h' || g FROM generate_series(1, 20) g;
		INSERT INTO resources (kind, hotel_id, code) SELECT 'hotel_room_type', 'h' || h, 'r' || r
			FROM generate_series(1, 20) h, generate_series(1, 10) r;
		INSERT INTO walk_in_customers (phone, customer_id, name, created_by)
			SELECT '+3630' || lpad(g::text, 7, '0'), 'walk-in:+3630' || lpad(g::text, 7, '0'), 'Walker ' || md5(g::text), 'desk'
			FROM generate_series(1, 33333) g;
		INSERT INTO bookings (id, customer_id, created_by, idempotency_key, fingerprint, resource_id, unit_from, unit_to,
				quantity, status, expires_at, created_at)
			SELECT 'b' || g, CASE WHEN g % 3 = 0 THEN 'walk-in:+3630' || lpad((g / 3)::text, 7, '0') ELSE 'c' || g END, 'c',
				'k' || g, 'f', (SELECT min(id) FROM resources) + g % 200, current_date - 200 + g % 390,
				current_date - 198 + g % 390, 1, 'CONFIRMED', now(), now() - g * interval '1 minute' FROM generate_series(1, 100000) g;
		INSERT INTO booking_guests (booking_id, name, phone, email)
			SELECT 'b' || g, 'Guest ' || md5(g::text), '+4915' || lpad(g::text, 9, '0'), 'guest' || g || '@example.com'
			FROM generate_series(1, 100000) g WHERE g % 3 <> 0;
		ANALYZE`)
	require.NoError(b, err)
	// Booking 4241 has a guest written down; 4242 is walk-in 1414's.
	queries := map[string]string{"a name's part": "guest " + md5hex(4241)[:6], "a phone's digits": "+49 15 000 004241",
		"an e-mail": "guest4241@example", "a walk-in's name": "walker " + md5hex(1414)[:6], "a booking id": "b4242"}
	run := func(b *testing.B, label string) map[string]time.Duration {
		p50 := map[string]time.Duration{}
		for _, name := range slices.Sorted(maps.Keys(queries)) {
			var took []time.Duration
			_, err := d.Store.SearchBookings(ctx, db.SearchQuery{Text: queries[name], Limit: 20}) // warm, untimed
			require.NoError(b, err)
			b.Run(label+": "+name, func(b *testing.B) {
				for b.Loop() {
					start := time.Now()
					hits, err := d.Store.SearchBookings(ctx, db.SearchQuery{Text: queries[name], Limit: 20})
					took = append(took, time.Since(start))
					require.NoError(b, err)
					require.NotEmpty(b, hits, "%s finds its booking", name)
				}
			})
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			p50[name] = took[len(took)/2]
			b.Logf("%s, %s: p50 %v, max %v", label, name, took[len(took)/2], took[len(took)-1])
		}
		return p50
	}
	indexed := run(b, "search")
	d.Store.PlanSearchesAsPostgreSQLWould()
	planned := run(b, "baseline: PostgreSQL's own plans")
	_, err = d.Pool.Exec(ctx, `DROP INDEX booking_guests_name_trgm, booking_guests_phone_trgm, booking_guests_email_trgm,
		walk_in_customers_name_trgm, walk_in_customers_phone_trgm`)
	require.NoError(b, err)
	unindexed := run(b, "baseline: no trigram indexes")
	for name, took := range indexed {
		b.Logf("%s: p50 %v; PostgreSQL's own plans %v (%.1fx), and without the trigram indexes %v (%.1fx)", name, took,
			planned[name], float64(planned[name])/float64(took), unindexed[name], float64(unindexed[name])/float64(took))
	}
}

// md5hex is PostgreSQL's md5(n::text).
func md5hex(n int) string { return fmt.Sprintf("%x", md5.Sum([]byte(fmt.Sprint(n)))) }
