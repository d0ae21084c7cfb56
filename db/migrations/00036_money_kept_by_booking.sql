-- +goose Up

-- What each booking keeps by its ledger: the sum of its payments' kept balances, moved by
-- ledger_post with each entry that moves a kept account, in the same statement as the payment's
-- balances. The invariant checker's ledger_mismatch compares it with the booking's row: one row
-- per booking, where it summed every payment's kept balance (issue 34: under a second over a
-- million entries). ledger_post locks a booking's row here before its payment's balances, for
-- every entry of a payment, so posts on one booking's payments wait in one order.
CREATE TABLE money_kept_by_booking (
    booking_id text   PRIMARY KEY,
    kept       bigint NOT NULL
);
-- The balances posted so far; posts wait for this migration's commit (SHARE mode).
LOCK TABLE money_balances IN SHARE MODE;
INSERT INTO money_kept_by_booking (booking_id, kept)
SELECT booking_id, COALESCE(sum(balance) FILTER (WHERE account = 'kept'), 0)::bigint FROM money_balances
GROUP BY booking_id;

-- +goose Down
DROP TABLE money_kept_by_booking;
