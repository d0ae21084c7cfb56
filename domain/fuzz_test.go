package domain_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bookflow/bookflow/domain"
)

func FuzzParseDate(f *testing.F) {
	for _, seed := range []string{"2030-01-10", "2030-02-30", "0000-01-01", "9999-12-31", "2030-1-1", "", "2030-01-10T00:00:00Z"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := domain.ParseDate(s)
		if err != nil {
			return
		}
		again, err := domain.ParseDate(d.String())
		if err != nil || again != d {
			t.Fatalf("%q parsed as %s, which does not parse back (%v)", s, d, err)
		}
		var fromJSON domain.Date
		raw, _ := json.Marshal(s)
		if err := json.Unmarshal(raw, &fromJSON); err != nil || fromJSON != d {
			t.Fatalf("%q: JSON disagrees with ParseDate: %s, %v", s, fromJSON, err)
		}
	})
}

// FuzzCancellationRefund: any valid policy, any payment and any moment give back between
// nothing and everything paid.
func FuzzCancellationRefund(f *testing.F) {
	f.Add(48, 20, int64(0), 24, int64(30000), int64(-30*60))
	f.Add(72, 0, int64(5000), 0, int64(3000), int64(-70*60))
	f.Add(0, 0, int64(0), 0, int64(1), int64(1))
	f.Fuzz(func(t *testing.T, freeUntil, percent int, fixed int64, noRefund int, paid, minutesFromCheckIn int64) {
		p := domain.CancellationPolicy{FreeUntilHours: freeUntil, FeePercent: percent, FeeFixed: fixed, NoRefundHours: noRefund}
		if fixed > 0 {
			p.FeeCurrency = "EUR"
		}
		if p.Validate() != nil || paid < 0 || paid > 1<<50 || freeUntil > 1<<20 || minutesFromCheckIn > 1<<30 ||
			minutesFromCheckIn < -(1<<30) {
			return
		}
		budapest, _ := time.LoadLocation("Europe/Budapest")
		checkIn := domain.NewDate(2030, 10, 28)
		at := checkIn.In(budapest).Add(time.Duration(minutesFromCheckIn) * time.Minute)
		if got := p.Refund(paid, "EUR", checkIn, budapest, at); got < 0 || got > paid {
			t.Fatalf("policy %+v refunds %d of %d", p, got, paid)
		}
	})
}
