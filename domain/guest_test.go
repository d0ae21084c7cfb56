package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

func TestAGuestsDetailsAreCheckedFieldByField(t *testing.T) {
	good := domain.Guest{Name: "  Zsófia Nagy ", Email: "zsofia@example.hu", Guests: 2, ArrivalTime: "21:15", Notes: "cot"}
	assert.NoError(t, good.Validate())
	assert.Equal(t, "Zsófia Nagy", good.Name, "trimmed")
	for field, g := range map[string]domain.Guest{
		"name":        {Name: strings.Repeat("é", 201)},
		"email":       {Email: "Zsófia <zsofia@example.hu>"},
		"guests":      {Guests: 100},
		"arrivalTime": {ArrivalTime: "24:00"},
		"notes":       {Notes: strings.Repeat("x", 2001)},
	} {
		err := g.Validate()
		assert.ErrorIs(t, err, domain.ErrInvalid, field)
		assert.Contains(t, err.Error(), field)
	}
	assert.NoError(t, (&domain.Guest{}).Validate(), "nothing said is allowed")
}
