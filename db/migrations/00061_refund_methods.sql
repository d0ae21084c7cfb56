-- +goose Up

-- How a staff refund is given back (issue 39, defect 9): NULL as each part was paid (a desk
-- payment's at the desk by its method, a provider's through the provider), or chosen by the
-- desk: cash or card_terminal (handed over at the desk, whatever the part was paid by: a guest
-- who paid online takes cash back), or provider (only to the card: refused when a part was paid
-- at the desk). Nullable, no default: no rewrite of the table, and the previous release's rows
-- and writes are as each part was paid.
ALTER TABLE staff_refunds ADD COLUMN IF NOT EXISTS method text
    CHECK (method IN ('cash', 'card_terminal', 'provider'));

-- +goose Down
ALTER TABLE staff_refunds DROP COLUMN method;
