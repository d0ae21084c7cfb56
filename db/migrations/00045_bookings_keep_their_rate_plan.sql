-- +goose Up

-- A booking keeps the rate plan it was sold under (issue 35): its code (every booking before
-- plans, and every booking naming none, is the default plan's) and the plan's terms it was held
-- under (name, what it includes, payment rule, no-show). Its price and cancellation policy are
-- kept where every booking keeps them (total, nightly_rates, policy). A constant default: no
-- rewrite of the table. IF NOT EXISTS: the upgrade tests add them to an old schema first
-- (db.MigrateToForTodaysStore).
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS rate_plan text NOT NULL DEFAULT 'BAR',
    ADD COLUMN IF NOT EXISTS plan_terms jsonb;

-- +goose Down
ALTER TABLE bookings DROP COLUMN plan_terms, DROP COLUMN rate_plan;
