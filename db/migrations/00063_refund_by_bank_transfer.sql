-- +goose Up

-- A staff refund may be given back by bank transfer (issue 39): finance's refund to a guest who
-- paid at the desk and has gone, made by whoever asks it (recorded at once in their name, never
-- at the drawer). The previous release never writes it.
ALTER TABLE staff_refunds DROP CONSTRAINT IF EXISTS staff_refunds_method_check;
ALTER TABLE staff_refunds ADD CONSTRAINT staff_refunds_method_check
    CHECK (method IN ('cash', 'card_terminal', 'bank_transfer', 'provider'));

-- +goose Down
-- The wider check stays: refunds made by bank transfer are facts, and a narrower check would
-- refuse every later update of their rows (an erasure scrubbing a reason). The previous release
-- reads their method as a desk method chosen, as it is.
SELECT 1;
