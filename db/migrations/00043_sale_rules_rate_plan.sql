-- +goose Up

-- A sale rule may name a rate plan of its hotel (issue 35, docs/rates-and-restrictions.md): it
-- then applies to that plan's sales only; a rule naming none applies to every plan. The plan is
-- one of the hotel's (a plan is never deleted, and one narrowed may not stop selling a room type
-- an active rule of it names: db.PutRatePlan). A process of the previous release reads rules
-- without this column and so applies a plan's rule to every plan: stricter, never an oversell.
-- IF NOT EXISTS: the upgrade tests add the column to an old schema first (db.MigrateToForTodaysStore).
ALTER TABLE sale_rules ADD COLUMN IF NOT EXISTS rate_plan text,
    ADD CONSTRAINT sale_rules_rate_plan FOREIGN KEY (hotel_id, rate_plan) REFERENCES rate_plans (hotel_id, code);
-- The rules naming a plan, for the check a plan's narrowing makes.
CREATE INDEX sale_rules_by_rate_plan ON sale_rules (hotel_id, rate_plan)
    WHERE rate_plan IS NOT NULL AND cancelled_at IS NULL AND expired_at IS NULL;

-- +goose Down
-- The rules that named a plan are kept, for every plan: stricter, as the previous release reads them.
DROP INDEX sale_rules_by_rate_plan;
ALTER TABLE sale_rules DROP CONSTRAINT sale_rules_rate_plan, DROP COLUMN rate_plan;
