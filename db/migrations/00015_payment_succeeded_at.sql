-- +goose Up

-- When a payment succeeded (it may have failed first under the same id): the day a report
-- counts it on.
ALTER TABLE payments ADD COLUMN succeeded_at timestamptz;
UPDATE payments SET succeeded_at = created_at WHERE status = 'succeeded';

-- +goose Down
ALTER TABLE payments DROP COLUMN succeeded_at;
