-- +goose Up

-- A booking sold under a pay-at-hotel plan (issue 35) is confirmed by the card its guest leaves
-- as the guarantee: card_guarantee, the provider's setup, customer and payment method
-- (domain.CardGuarantee). guarantee_fee is the fee a no-show or a late cancel asked of that card
-- (domain.GuaranteeFee, at most one per booking): the booking keeps its payment once it
-- succeeded, as it keeps its first payment (ledger_keep reads it through to_jsonb, so nothing
-- depends on the column and this migration goes down). Nullable, no default: no rewrite of the
-- table. IF NOT EXISTS: the upgrade tests add them to an old schema first
-- (db.MigrateToForTodaysStore).
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS card_guarantee jsonb,
    ADD COLUMN IF NOT EXISTS guarantee_fee jsonb;

-- +goose Down
ALTER TABLE bookings DROP COLUMN guarantee_fee, DROP COLUMN card_guarantee;
