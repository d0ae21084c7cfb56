package api

import (
	"sync"

	"github.com/bookflow/bookflow/domain"
)

// offerSlabs hold a search's offers, their prices and their nights, every room type's carved
// from three arrays kept between searches: an answer of 20 plans held about 100 KB of them, a
// search's largest allocation after its buffer, which the collector then had to take back.
type offerSlabs struct {
	offers []domain.Offer
	prices []domain.Price
	nights []domain.NightRate
}

var offerSlabPool = sync.Pool{New: func() any { return new(offerSlabs) }}

// takeOfferSlabs returns slabs for one search, to release once its answer is written.
func takeOfferSlabs() *offerSlabs { return offerSlabPool.Get().(*offerSlabs) }

// release forgets what the search carved (the strings its offers held) and keeps the arrays.
func (s *offerSlabs) release() {
	clear(s.offers)
	clear(s.prices)
	clear(s.nights)
	s.offers, s.prices, s.nights = s.offers[:0], s.prices[:0], s.nights[:0]
	offerSlabPool.Put(s)
}

// carve returns n elements of a slab, empty (length 0 when empty, else n), capped at n: a slab
// too short for them is replaced by a larger one (what was carved before keeps the old array).
func carve[T any](slab *[]T, n int, empty bool) []T {
	if cap(*slab)-len(*slab) < n {
		*slab = make([]T, 0, max(2*cap(*slab), 16*n))
	}
	start := len(*slab)
	*slab = (*slab)[:start+n]
	if empty {
		return (*slab)[start:start:(start + n)]
	}
	return (*slab)[start:(start + n):(start + n)]
}
