package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A channel's sale on its account in the money ledger: a promise of the booking's price by its
// sales channel, sales to channel:<id>, moved back by what lowers it (docs/payments-and-refunds.md,
// "The ledger").

// accountMove is a ledger entry as these tests compare it.
type accountMove struct {
	Kind, Cause, Payment, Debit, Credit string
	Amount                              int64
}

func accountMoves(t *testing.T, d *testsuite.Database, id string) []accountMove {
	t.Helper()
	entries, err := d.Store.BookingLedger(context.Background(), id)
	require.NoError(t, err)
	var out []accountMove
	for _, e := range entries {
		out = append(out, accountMove{e.Kind, e.Cause, e.PaymentID, e.Debit, e.Credit, e.Amount})
	}
	return out
}

var (
	soldOnAccount = func(cause string, amount int64) accountMove {
		return accountMove{"sold_on_account", cause, "", "sales", "channel:A", amount}
	}
	reversedOnAccount = func(cause string, amount int64) accountMove {
		return accountMove{"on_account_reversed", cause, "", "channel:A", "sales", amount}
	}
)

// An agent's booking confirmed on channel A's account has its sale in the ledger, once however
// often it is confirmed; amendments move the difference, and its cancel moves back what the
// channel still owed. Its money shows it on account, nothing due. A booking staff confirmed
// without money beside it has no entry: its price is due at the desk.
func TestAChannelSaleOnAccountIsInTheLedgerAndItsCancelReversesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	sold, err := d.Store.Reserve(ctx, channelHold("agent-guest", "A", "agent-a", nights(soon, 2), 1))
	require.NoError(t, err)
	desk := hold(t, d, "desk-guest", nights(soon, 2), 1)
	for range 2 {
		for _, id := range []string{sold.ID, desk.ID} {
			_, err = d.Store.Confirm(ctx, id, nil)
			require.NoError(t, err)
		}
	}
	assert.Equal(t, []accountMove{soldOnAccount("", 20000)}, accountMoves(t, d, sold.ID))
	assert.Equal(t, db.MoneySummary{Currency: "EUR", OnAccount: 20000}, summary(t, d, sold.ID))
	assert.Empty(t, accountMoves(t, d, desk.ID), "confirmed by staff: no money, no promise of a channel")
	assert.Equal(t, db.MoneySummary{Currency: "EUR", Due: 20000}, summary(t, d, desk.ID))

	up, _ := amend(t, d, amendParams(sold, "longer", domain.Change{CheckOut: soon.AddDays(3)}))
	require.Equal(t, domain.AmendmentApplied, up.Status)
	down, _ := amend(t, d, amendParams(sold, "shorter", domain.Change{CheckOut: soon.AddDays(1)}))
	require.Equal(t, domain.AmendmentApplied, down.Status)
	require.Equal(t, int64(-20000), down.Difference)
	assert.Equal(t, db.MoneySummary{Currency: "EUR", OnAccount: 10000}, summary(t, d, sold.ID))

	_, err = d.Store.Release(ctx, sold.ID, domain.StatusCancelled)
	require.NoError(t, err)
	assert.Equal(t, []accountMove{
		soldOnAccount("", 20000),
		soldOnAccount("amendment", 10000),
		reversedOnAccount("amendment", 20000),
		reversedOnAccount("cancel", 10000),
	}, accountMoves(t, d, sold.ID))
	assert.Equal(t, db.MoneySummary{Currency: "EUR"}, summary(t, d, sold.ID))
	d.AssertLedgerAgrees(t)
}

// A database used before the ledger held sales on account, then upgraded: the backfill posts
// each old sale at the price it was confirmed at, the amendments applied after it, and the
// cancels; the report reads them from the ledger as it said them from the rows.
func TestTheBackfillPostsTheSalesOnAccountOfAnOldDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewEmptyDatabase(t)
	require.NoError(t, db.MigrateToForTodaysStore(ctx, d.Pool, 34))
	splitStock(t, d)
	sell := func(customer string) domain.Booking {
		b, err := d.Store.Reserve(ctx, channelHold(customer, "A", "agent-a", nights(soon, 2), 1))
		require.NoError(t, err)
		return b
	}
	confirm := func(b domain.Booking) {
		_, err := d.Store.Confirm(ctx, b.ID, nil)
		require.NoError(t, err)
	}
	amended := sell("amended")
	confirm(amended)
	a, _ := amend(t, d, amendParams(amended, "longer", domain.Change{CheckOut: soon.AddDays(3)}))
	require.Equal(t, domain.AmendmentApplied, a.Status)
	cancelled := sell("cancelled")
	confirm(cancelled)
	_, err := d.Store.Release(ctx, cancelled.ID, domain.StatusCancelled)
	require.NoError(t, err)
	amendedHold := sell("amended-hold")
	a, _ = amend(t, d, amendParams(amendedHold, "two rooms", domain.Change{Quantity: 2}))
	require.Equal(t, domain.AmendmentApplied, a.Status)
	confirm(amendedHold)
	held := sell("held")
	require.Zero(t, count(t, d, `SELECT count(*) FROM money_ledger`), "no entry was posted before the upgrade")

	require.NoError(t, db.Migrate(ctx, d.Pool))
	assert.Equal(t, []accountMove{soldOnAccount("", 20000), soldOnAccount("amendment", 10000)},
		accountMoves(t, d, amended.ID), "confirmed at its price then, the amendment after it")
	assert.Equal(t, []accountMove{soldOnAccount("", 20000), reversedOnAccount("cancel", 20000)},
		accountMoves(t, d, cancelled.ID))
	assert.Equal(t, []accountMove{soldOnAccount("", 40000)}, accountMoves(t, d, amendedHold.ID),
		"amended on hold: confirmed at its amended price")
	assert.Empty(t, accountMoves(t, d, held.ID))
	assert.Equal(t, db.MoneySummary{Currency: "EUR", OnAccount: 30000}, summary(t, d, amended.ID))
	assert.Equal(t, db.MoneySummary{Currency: "EUR"}, summary(t, d, cancelled.ID))
	d.AssertLedgerAgrees(t)

	report, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"},
		domain.DayBounds(domain.DateOf(time.Now(), time.UTC), time.UTC))
	require.NoError(t, err)
	assert.Equal(t, []db.ReportTotal{{Channel: db.ChannelAccount, ChannelID: "A", Method: db.MethodAccount, Currency: "EUR",
		Payments: 4, Paid: 90000, Refunds: 1, Refunded: 20000, Net: 70000}}, report.Totals)

	posted := count(t, d, `SELECT count(*) FROM money_ledger`)
	require.NoError(t, db.Migrate(ctx, d.Pool))
	assert.Equal(t, posted, count(t, d, `SELECT count(*) FROM money_ledger`), "the backfill runs once")
}
