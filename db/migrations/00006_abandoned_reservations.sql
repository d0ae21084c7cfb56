-- +goose Up

-- A reservation its workflow abandoned past the time the API waits (nothing is held for it).
-- A retry under its key is told to use a new key, not that the rooms are gone.
ALTER TABLE bookings ADD COLUMN abandoned boolean NOT NULL DEFAULT false;

-- A fixed cancellation fee is always an amount of a named currency.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM hotels WHERE fee_fixed > 0 AND fee_currency IS NULL) THEN
        RAISE EXCEPTION 'hotels % have a fixed cancellation fee but no priced night to take its currency from: '
            'set fee_currency on them by hand, then migrate again',
            (SELECT string_agg(id, ', ') FROM hotels WHERE fee_fixed > 0 AND fee_currency IS NULL);
    END IF;
END $$;
-- +goose StatementEnd
ALTER TABLE hotels ADD CONSTRAINT fixed_fee_has_currency CHECK (fee_fixed = 0 OR fee_currency IS NOT NULL);

-- +goose Down
ALTER TABLE hotels DROP CONSTRAINT fixed_fee_has_currency;
ALTER TABLE bookings DROP COLUMN abandoned;
