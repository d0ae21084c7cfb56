-- +goose NO TRANSACTION
-- +goose Up

-- The reversals of desk payments, by booking (issue 34): the checker's money check sums what
-- reversals asked back for every booking (db/checks_money.go). Without this index it read every
-- refund asked (0.2 s of the check over a million ledger entries) to find the few reversals; with
-- it, it reads only them. Partial, so the entries of every other kind (a confirmation's, a
-- refund's) do not write it. Built CONCURRENTLY, outside a transaction, so payments and refunds
-- are not blocked while it reads the ledger; an index a failed build left invalid is dropped
-- first, so running the migration again builds it whole.
DROP INDEX CONCURRENTLY IF EXISTS money_ledger_reversals;
CREATE INDEX CONCURRENTLY money_ledger_reversals ON money_ledger (booking_id) INCLUDE (amount)
    WHERE kind = 'refund_asked' AND cause = 'reversal';

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS money_ledger_reversals;
