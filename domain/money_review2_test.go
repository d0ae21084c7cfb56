package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

// TestAPriceSetByHandScalesLargeNightsWithoutOverflow: a group stay of two nights at
// 3,000,000,000 minor units each (3 billion VND, a currency without minor units) set by hand to
// one unit less. WithTotal multiplies total by each night before dividing (6e9 x 3e9 is past
// int64), so the first night comes out negative and the last takes the rest.
func TestAPriceSetByHandScalesLargeNightsWithoutOverflow(t *testing.T) {
	p := domain.Price{Total: 6_000_000_000, Currency: "VND", Nights: []domain.NightRate{{Amount: 3_000_000_000},
		{Amount: 3_000_000_000}}}
	got := p.WithTotal(5_999_999_999)
	for i, n := range got.Nights {
		assert.GreaterOrEqual(t, n.Amount, int64(0), "night %d", i)
		assert.LessOrEqual(t, n.Amount, int64(3_000_000_000), "night %d", i)
	}
}
