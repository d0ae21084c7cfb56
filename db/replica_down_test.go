package db_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// cutProxy forwards TCP to target until cut, which closes the listener and every connection:
// a standby that becomes unreachable.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(u, c); _ = u.Close() }()
			go func() { _, _ = io.Copy(c, u); _ = c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) cut() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

// TestAnUnreachableStandbyDoesNotFailSearches: replica.close trusts its last measure
// for up to a second, and reads() has no fallback: when the standby goes away just after a
// measure said it was close, searches fail (an error, a 500) instead of reading the primary,
// though the standby is only an optimisation. The "standby" here is the test's own database
// behind a TCP proxy (not in recovery, so measured 0 lag) that the test cuts.
func TestAnUnreachableStandbyDoesNotFailSearches(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	u, err := url.Parse(d.URL)
	require.NoError(t, err)
	proxy := newCutProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	standby, err := db.Connect(context.Background(), u.String())
	require.NoError(t, err)
	t.Cleanup(standby.Close)
	d.Store.ReadFrom(standby, time.Second)
	ctx := context.Background()
	in := domain.NewDate(2031, 3, 1)
	stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(2)}
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h-down", RoomTypeID: "double",
		From: stay.CheckIn, To: stay.CheckOut, TotalRooms: 5, Rate: &testsuite.TestRate}))
	_, err = d.Store.Availability(ctx, "h-down", "", stay) // measured: close enough
	require.NoError(t, err)

	proxy.cut()
	for i := range 5 {
		rooms, err := d.Store.Availability(ctx, "h-down", "", stay)
		if assert.NoError(t, err, "search %d with the standby gone: the primary should answer", i) {
			assert.Equal(t, 5, rooms[0].Available)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
