package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// moneyControls plants, one at a time, what the money count is there to catch in what the
// money clients left, expects exactly one booking's money not to add up, and undoes it.
func (h *harness) moneyControls(t *testing.T, ctx context.Context, counts func(*testing.T) (Counters, []domain.Finding)) {
	expectOne := func(t *testing.T) {
		c, findings := counts(t)
		require.Equal(t, Counters{MoneyMismatches: 1}, c, "%v", findings)
	}
	find := func(t *testing.T, what string, ok func(id string, g *granted) bool) string {
		stored, err := loadOutcomes(ctx, h.store.Pool())
		require.NoError(t, err)
		for id, g := range h.l.booked {
			if g.story != "" && !g.unsure && stored.bookings[id].status == string(domain.StatusConfirmed) && ok(id, g) {
				return id
			}
		}
		t.Fatalf("no money story left %s", what)
		return ""
	}
	t.Run("a staff refund answered and never given", func(t *testing.T) {
		id := find(t, "a confirmed booking with a staff refund", func(_ string, g *granted) bool { return g.refundsAnswered > 0 })
		h.l.refundAnswered(id, 100)
		defer h.l.refundAnswered(id, -100)
		expectOne(t)
	})
	t.Run("a desk payment answered and not recorded", func(t *testing.T) {
		var id string
		for bid, g := range h.l.booked {
			if len(g.desk) > 0 {
				id = bid
				break
			}
		}
		require.NotEmpty(t, id, "no money story paid at the desk")
		h.l.deskPaid(id, "control-desk", 700)
		defer func() {
			delete(h.l.booked[id].desk, "control-desk")
			h.l.dirty[id] = true
		}()
		expectOne(t)
	})
	t.Run("a refund the provider made that the ledger does not know", func(t *testing.T) {
		var pi string
		refunded, paidAt := h.provider.Refunded(), h.provider.Paid()
		for p, got := range refunded {
			if g := h.l.booked[h.l.paid[p].bookingID]; g.story != "" && got > 0 && got+100 <= paidAt[p] {
				pi = p
				break
			}
		}
		require.NotEmpty(t, pi, "no money story's payment was refunded in part")
		bump := func(d int64) {
			h.provider.mu.Lock()
			h.provider.refunded[pi] += d
			h.provider.mu.Unlock()
		}
		bump(100)
		defer bump(-100)
		expectOne(t)
	})
	t.Run("a balance paid in time and not applied", func(t *testing.T) {
		// A balance paid late taken as paid in time, or one paid in time taken for another
		// amendment's. Only a payment the count judges will do: acknowledged after its date, or
		// more than a second before it (the count leaves the second before the date alone).
		var pi string
		for id, q := range h.l.paid {
			if q.amendmentID == 0 || q.ackedAt.IsZero() || h.l.booked[q.bookingID].cancelTried {
				continue
			}
			late := q.ackedAt.After(q.dueBy)
			if !late && !q.ackedAt.Before(q.dueBy.Add(-time.Second)) {
				continue
			}
			if pi == "" || late {
				pi = id
			}
		}
		require.NotEmpty(t, pi, "no balance was paid")
		p := h.l.paid[pi]
		due, amendment := p.dueBy, p.amendmentID
		if p.ackedAt.After(p.dueBy) {
			p.dueBy = p.ackedAt.Add(time.Hour)
			// Acknowledged after its date, the payment may still have reached the workflow
			// before it and been applied: then it is taken for another amendment's as well.
			outcomes, err := balanceOutcomes(ctx, h.store, []string{p.bookingID})
			require.NoError(t, err)
			if outcomes[amendment] == [2]string{string(domain.AmendmentApplied), pi} {
				p.amendmentID = 1 << 40
			}
		} else {
			p.amendmentID = 1 << 40
		}
		h.l.dirty[p.bookingID] = true
		defer func() {
			p.dueBy, p.amendmentID = due, amendment
			h.l.dirty[p.bookingID] = true
		}()
		expectOne(t)
	})
}
