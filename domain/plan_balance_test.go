package domain

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

func TestADepositIsItsPercentRoundedUpToTheMinorUnit(t *testing.T) {
	days := 7
	rule := PaymentRule{Kind: PayDeposit, DepositPercent: 30, BalanceDueDays: &days}
	for _, c := range []struct{ total, want int64 }{
		{27000, 8100}, {10001, 3001}, {1, 1}, {0, 0}, {99, 30}, {100, 30}, {101, 31},
	} {
		assert.Equal(t, c.want, rule.Deposit(c.total), "30%% of %d", c.total)
	}
	assert.Zero(t, PaymentRule{Kind: PayInFull}.Deposit(27000), "a rule without a deposit asks none")
}

// TestADepositIsNeverBelowItsPercent: against exact arithmetic, the deposit is the smallest whole
// minor unit at or above percent% of the total, up to 10^15 minor units.
func TestADepositIsNeverBelowItsPercent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := rapid.Int64Range(1, 1_000_000_000_000_000).Draw(t, "total")
		pct := rapid.IntRange(1, 99).Draw(t, "percent")
		got := PaymentRule{Kind: PayDeposit, DepositPercent: pct}.Deposit(total)
		exact := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(total), big.NewInt(int64(pct))), big.NewInt(100))
		ceil := new(big.Int).Quo(new(big.Int).Add(exact.Num(), new(big.Int).Sub(exact.Denom(), big.NewInt(1))), exact.Denom())
		if got != ceil.Int64() {
			t.Fatalf("%d%% of %d: got %d, want %d", pct, total, got, ceil.Int64())
		}
	})
}

// TestABalanceDateCountsDaysOnTheHotelsCalendar: 7 days before a check-in just after a DST change
// is midnight at the hotel, not 168 hours before.
func TestABalanceDateCountsDaysOnTheHotelsCalendar(t *testing.T) {
	days := 7
	rule := PaymentRule{Kind: PayDeposit, DepositPercent: 30, BalanceDueDays: &days}
	paris, err := time.LoadLocation("Europe/Paris")
	assert.NoError(t, err)
	due := rule.BalanceDueAt(NewDate(2030, 4, 2), paris) // clocks go forward on 2030-03-31
	assert.Equal(t, time.Date(2030, 3, 26, 0, 0, 0, 0, paris).UTC(), due)
	assert.True(t, PaymentRule{Kind: PayInFull}.BalanceDueAt(NewDate(2030, 4, 2), paris).IsZero())
}
