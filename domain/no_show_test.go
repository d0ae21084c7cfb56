package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

// TestANoShowKeepsWhatItsTermsSay: three nights of different prices (the first by date is the
// 10th's, whatever the order they are stored in). first_night keeps that night's price as held,
// scaled like every night when the total was set by hand apart from them; percent keeps N% of the
// total rounded down (in the guest's favour); all, the default plan's terms (nil) and terms from
// before the field keep everything. The refund is what the booking keeps of its payments less
// that: never below 0, never more than it keeps.
func TestANoShowKeepsWhatItsTermsSay(t *testing.T) {
	d := domain.NewDate(2031, 3, 10)
	price := domain.Price{Currency: "EUR", Total: 33333, Nights: []domain.NightRate{
		{Date: d.AddDays(1), Amount: 12000}, {Date: d, Amount: 10001}, {Date: d.AddDays(2), Amount: 11332}}}
	first := &domain.PlanTerms{NoShow: domain.NoShowKeepsFirstNight}
	half := &domain.PlanTerms{NoShow: domain.NoShowKeepsPercent, NoShowPercent: 50}
	assert.Equal(t, int64(10001), first.NoShowKeeps(price), "the 10th's price")
	assert.Equal(t, int64(16666), half.NoShowKeeps(price), "half of 333.33 is 166.665: the hotel keeps 166.66")
	assert.Equal(t, int64(33333), (&domain.PlanTerms{NoShow: domain.NoShowKeepsPercent, NoShowPercent: 100}).NoShowKeeps(price))
	assert.Equal(t, int64(3333), (&domain.PlanTerms{NoShow: domain.NoShowKeepsPercent, NoShowPercent: 10}).NoShowKeeps(price),
		"3333.3 rounded down")
	for _, all := range []*domain.PlanTerms{nil, {}, {NoShow: domain.NoShowKeepsAll}} {
		assert.Equal(t, int64(33333), all.NoShowKeeps(price), "%v", all)
	}

	byHand := price
	byHand.Total = 30000 // set by hand apart from its nights (WithTotal now scales them too)
	assert.Equal(t, int64(9000), first.NoShowKeeps(byHand), "100.01 x 300.00 / 333.33 = 90.0099: scaled as every night is")
	assert.Equal(t, int64(8100), first.NoShowKeeps(price.WithTotal(27000)), "the night as WithTotal scaled it")

	assert.Equal(t, int64(33333-10001), first.NoShowRefund(price, 33333))
	assert.Equal(t, int64(33333-16666), half.NoShowRefund(price, 33333), "the odd cent goes back to the guest")
	assert.Equal(t, int64(20000-10001), first.NoShowRefund(price, 20000), "partly refunded already: the rest of it")
	assert.Zero(t, first.NoShowRefund(price, 5000), "keeps less than the first night: nothing back")
	assert.Zero(t, first.NoShowRefund(price, 0), "paid nothing (confirmed by staff): nothing back")
	assert.Zero(t, (*domain.PlanTerms)(nil).NoShowRefund(price, 33333))
	assert.Zero(t, first.NoShowRefund(domain.Price{Currency: "EUR", Total: 5000}, 5000), "no nights: all is kept")
}
