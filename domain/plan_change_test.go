package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestAChangeNamingNoPlanKeepsItsFingerprint: a change without ratePlan is fingerprinted as it
// was before amendments could name one (old clients' keys stay valid), and naming the booking's
// own plan is the change without it.
func TestAChangeNamingNoPlanKeepsItsFingerprint(t *testing.T) {
	out := NewDate(2030, 12, 12)
	c := Change{CheckOut: out, Quantity: 2}
	sum := sha256.Sum256([]byte(strings.Join([]string{"", Date{}.String(), out.String(), "2"}, "\x1f")))
	if got, want := c.Fingerprint(), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("fingerprint %s, before plans %s", got, want)
	}
	u := Units{RoomTypeID: "double", CheckIn: NewDate(2030, 12, 10), CheckOut: out, Quantity: 1, RatePlan: "FLEX"}
	own := Change{CheckOut: out, Quantity: 2, RatePlan: "FLEX"}
	if own.Against(u).Fingerprint() != c.Fingerprint() {
		t.Fatal("naming the booking's own plan is not naming none")
	}
	other := Change{CheckOut: out, Quantity: 2, RatePlan: "BB"}
	if other.Against(u).Fingerprint() == c.Fingerprint() {
		t.Fatal("another plan is fingerprinted as none")
	}
	if to := (Change{RatePlan: "FLEX"}).Apply(u); !to.Equal(u) {
		t.Fatal("its own plan changes nothing")
	}
}

// TestNoBookingMovesIntoOrOutOfADepositPlan: the limits of a change of plan.
func TestNoBookingMovesIntoOrOutOfADepositPlan(t *testing.T) {
	deposit := RatePlan{Code: "DEP", Payment: PaymentRule{Kind: PayDeposit, DepositPercent: 30}}
	full := RatePlan{Code: "BB", Payment: PaymentRule{Kind: PayInFull}}
	b := Booking{ID: "b1", RatePlan: DefaultRatePlan}
	for name, why := range map[string]string{
		"into a deposit plan":  b.PlanChangeLimit(deposit),
		"out of a deposit one": Booking{ID: "b2", RatePlan: "DEP", PlanTerms: &PlanTerms{Payment: deposit.Payment}}.PlanChangeLimit(full),
		"a supplier's booking": Booking{ID: "b3", SupplierID: "s1"}.PlanChangeLimit(full),
	} {
		if why == "" {
			t.Errorf("%s: allowed", name)
		}
	}
	if why := b.PlanChangeLimit(full); why != "" {
		t.Errorf("a full plan's move refused: %s", why)
	}
}
