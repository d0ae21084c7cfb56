package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAVoidsReasonCountsCharactersNotBytes (a review of the sweep to characters, which missed
// it): the desk voids an extra with a reason of 200 Chinese characters (600 bytes), within the
// 500 characters the console's field, openapi's maxLength and the column's CHECK
// (length(void_reason) <= 500) allow: it is voided. Counting bytes refused it. Control: 501
// characters are refused.
func TestAVoidsReasonCountsCharactersNotBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 1)
	b := paidAndCheckedIn(t, d, "c-void-zh")
	mb, _, err := d.Store.AddCharge(ctx, b.ID, "mb", "desk-1", domain.Charge{Kind: domain.ChargeMinibar, Quantity: 1,
		UnitAmount: 1250, Currency: "EUR"})
	require.NoError(t, err)

	_, _, err = d.Store.VoidCharge(ctx, b.ID, mb.ID, strings.Repeat("错", 501), "desk-1")
	require.ErrorIs(t, err, domain.ErrInvalid, "control: 501 characters are too many")
	voided, _, err := d.Store.VoidCharge(ctx, b.ID, mb.ID, strings.Repeat("错", 200), "desk-1")
	require.NoError(t, err, "200 characters are within the 500 allowed")
	assert.NotNil(t, voided.VoidedAt)
}
