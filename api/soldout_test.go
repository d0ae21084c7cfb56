package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

// TestASoldOutIsRepeatedOnlyUntilTheNextChange: the memo answers for the stay it noted, for the
// quantity found short or more, while the change count is the one noted and for
// soldOutMemoTTL at most.
func TestASoldOutIsRepeatedOnlyUntilTheNextChange(t *testing.T) {
	var m soldOutMemo
	stay := domain.Stay{CheckIn: domain.NewDate(2031, 5, 1), CheckOut: domain.NewDate(2031, 5, 3)}
	other := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}
	assert.False(t, m.holds(1, stay, 1, 7), "nothing noted")

	m.note(1, stay, 2, 7)
	assert.True(t, m.holds(1, stay, 2, 7))
	assert.True(t, m.holds(1, stay, 3, 7), "more than was short is short too")
	assert.False(t, m.holds(1, stay, 1, 7), "less may fit")
	assert.False(t, m.holds(1, stay, 2, 8), "a change committed since")
	assert.False(t, m.holds(2, stay, 2, 7), "another room type")
	assert.False(t, m.holds(1, other, 2, 7), "another stay")

	m.note(1, stay, 1, 7)
	assert.True(t, m.holds(1, stay, 1, 7), "the smaller quantity found short since")
	m.note(1, stay, 3, 9)
	assert.False(t, m.holds(1, stay, 1, 9), "a note of a later generation starts afresh")

	m.stays[soldOutKey{1, stay.CheckIn, stay.CheckOut}] = soldOutNote{qty: 1, generation: 9, at: time.Now().Add(-soldOutMemoTTL)}
	assert.False(t, m.holds(1, stay, 1, 9), "too old, whatever the listener says")
}
