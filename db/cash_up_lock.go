package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// A cashier's money and their cash-up's close are serialised (review of issue 39): a desk payment
// or a refund handed over at the desk is dated by its transaction's start (now()) but seen only
// once it commits, so a close reading the ledger meanwhile would miss money dated inside its
// shift, and the next shift would not have it either. Each such transaction takes its cashier's
// lock shared, first; the close takes it exclusively. A close that came first makes the money
// wait, and the money, dated before the close's end, is refused (ErrConflict: sent again, it is
// dated after the close and is in the next shift); money that came first makes the close wait
// until it has committed, and the close counts it.

// lockCashier takes cashier's lock in tx: shared for their money, exclusive for their close.
func lockCashier(ctx context.Context, tx pgx.Tx, cashier string, exclusive bool) error {
	if cashier == "" {
		return nil
	}
	lock := "pg_advisory_xact_lock_shared"
	if exclusive {
		lock = "pg_advisory_xact_lock"
	}
	_, err := tx.Exec(ctx, `SELECT `+lock+`(hashtext('cash-up:' || $1))`, cashier)
	return err
}

// cashierMoney takes cashier's lock shared for money dated now(), and refuses it when a cash-up
// of theirs closed meanwhile covers now(): the close read the ledger before this could be seen.
func cashierMoney(ctx context.Context, tx pgx.Tx, cashier string) error {
	if cashier == "" {
		return nil
	}
	if err := lockCashier(ctx, tx, cashier, false); err != nil {
		return err
	}
	var closed bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cash_ups WHERE cashier = $1 AND shift_from <= now()
		AND shift_to > now())`, cashier).Scan(&closed)
	if err == nil && closed {
		err = fmt.Errorf("%w: %s's shift was cashed up while this was recorded: nothing was recorded, send it again",
			domain.ErrConflict, cashier)
	}
	return err
}
