package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

// TestARatePlansShapeIsCheckedBeforeItIsStored: each field at its edge, the default plan's
// limits, and a valid plan of each payment rule.
func TestARatePlansShapeIsCheckedBeforeItIsStored(t *testing.T) {
	days := func(n int) *int { return &n }
	valid := func() domain.RatePlan {
		return domain.RatePlan{HotelID: "h1", Code: "FLEX", Name: "Flexible", Board: domain.BoardRoomOnly,
			Policy:  &domain.RatePlanPolicy{CancellationPolicy: domain.CancellationPolicy{FreeUntilHours: 48}},
			Payment: domain.PaymentRule{Kind: domain.PayInFull}}
	}
	bar := domain.RatePlan{HotelID: "h1", Code: domain.DefaultRatePlan, Name: "Best available rate", Default: true,
		Board: domain.BoardBreakfast, Payment: domain.PaymentRule{Kind: domain.PayInFull}, Channels: []string{domain.AnyChannel}}
	assert.NoError(t, valid().Validate())
	assert.NoError(t, bar.Validate())
	for name, change := range map[string]func(*domain.RatePlan){
		"a deposit": func(p *domain.RatePlan) {
			p.Payment = domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 99, BalanceDueDays: days(0)}
		},
		"at the hotel": func(p *domain.RatePlan) { p.Payment = domain.PaymentRule{Kind: domain.PayAtHotel} },
		"non-refundable, a no-show keeping 50%": func(p *domain.RatePlan) {
			p.Policy = &domain.RatePlanPolicy{CancellationPolicy: domain.CancellationPolicy{NonRefundable: true},
				NoShow: domain.NoShowKeepsPercent, NoShowPercent: 50}
		},
		"every channel":           func(p *domain.RatePlan) { p.Channels = []string{domain.AnyChannel} },
		"derived":                 func(p *domain.RatePlan) { p.DerivedFrom = &domain.Derivation{Parent: "BAR", Percent: "-10"} },
		"a 200-char name":         func(p *domain.RatePlan) { p.Name = strings.Repeat("a", 200) },
		"200 two-byte characters": func(p *domain.RatePlan) { p.Name = strings.Repeat("é", 200) },
	} {
		p := valid()
		change(&p)
		assert.NoError(t, p.Validate(), name)
	}
	for name, change := range map[string]func(*domain.RatePlan){
		"no name":                   func(p *domain.RatePlan) { p.Name = "" },
		"a 201-char name":           func(p *domain.RatePlan) { p.Name = strings.Repeat("a", 201) },
		"a NUL in the name":         func(p *domain.RatePlan) { p.Name = "Flex\x00" },
		"a NUL in what it includes": func(p *domain.RatePlan) { p.Includes = "breakfast\x00" },
		"a bad code":                func(p *domain.RatePlan) { p.Code = "flex rate" },
		"an unknown board":          func(p *domain.RatePlan) { p.Board = "all_inclusive" },
		"no policy":                 func(p *domain.RatePlan) { p.Policy = nil },
		"a deposit of 100%": func(p *domain.RatePlan) {
			p.Payment = domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 100, BalanceDueDays: days(7)}
		},
		"a deposit with no due date": func(p *domain.RatePlan) { p.Payment = domain.PaymentRule{Kind: domain.PayDeposit, DepositPercent: 30} },
		"a due date paid in full":    func(p *domain.RatePlan) { p.Payment.BalanceDueDays = days(7) },
		"an unknown payment":         func(p *domain.RatePlan) { p.Payment.Kind = "later" },
		"a room type twice":          func(p *domain.RatePlan) { p.RoomTypes = []string{"double", "double"} },
		"* beside a channel":         func(p *domain.RatePlan) { p.Channels = []string{domain.AnyChannel, "A"} },
		"derived from itself":        func(p *domain.RatePlan) { p.DerivedFrom = &domain.Derivation{Parent: "FLEX", Percent: "5"} },
		"percent and amount": func(p *domain.RatePlan) {
			p.DerivedFrom = &domain.Derivation{Parent: "BAR", Percent: "5", Amount: new(int64)}
		},
		"made the default": func(p *domain.RatePlan) { p.Default = true },
		"non-refundable with a fee": func(p *domain.RatePlan) {
			p.Policy = &domain.RatePlanPolicy{CancellationPolicy: domain.CancellationPolicy{NonRefundable: true, FeePercent: 20}}
		},
		"a no-show percent of 0":  func(p *domain.RatePlan) { p.Policy.NoShow = domain.NoShowKeepsPercent },
		"a no-show percent alone": func(p *domain.RatePlan) { p.Policy.NoShowPercent = 20 },
		"an unknown no-show":      func(p *domain.RatePlan) { p.Policy.NoShow = "half" },
	} {
		p := valid()
		change(&p)
		assert.ErrorIs(t, p.Validate(), domain.ErrInvalid, name)
	}
	for name, change := range map[string]func(*domain.RatePlan){
		"BAR not the default": func(p *domain.RatePlan) { p.Default = false },
		"BAR with a policy":   func(p *domain.RatePlan) { p.Policy = &domain.RatePlanPolicy{} },
		"BAR derived":         func(p *domain.RatePlan) { p.DerivedFrom = &domain.Derivation{Parent: "X", Percent: "5"} },
		"BAR on a deposit":    func(p *domain.RatePlan) { p.Payment = domain.PaymentRule{Kind: domain.PayAtHotel} },
		"BAR direct only":     func(p *domain.RatePlan) { p.Channels = nil },
		"BAR one room type":   func(p *domain.RatePlan) { p.RoomTypes = []string{"double"} },
	} {
		p := bar
		change(&p)
		assert.ErrorIs(t, p.Validate(), domain.ErrInvalid, name)
	}
}
