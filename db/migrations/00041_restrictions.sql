-- +goose Up

-- The restrictions channels speak, as sale rules (issue 35, docs/rates-and-restrictions.md):
-- closed to arrival and to departure on the dates [from_date, to_date), and a minimum and maximum
-- stay for stays with a night in [from_date, to_date) (stay_through, min_los and max_los). A
-- booking window may now name the arrival dates it applies to (from_date, to_date: none, every
-- arrival). An expand step: the previous release writes none of these and reads them as rules of
-- a kind it does not know (it evaluates only its own kinds); every row already there passes both
-- checks. Added NOT VALID and validated after, so rule writes are not blocked while they scan.
ALTER TABLE sale_rules DROP CONSTRAINT sale_rules_kind_check,
    ADD CONSTRAINT sale_rules_kind_check CHECK (kind IN ('stop_sell', 'closed_to_arrival', 'closed_to_departure',
        'stay_through', 'sale_range', 'booking_window', 'length_of_stay')) NOT VALID,
    ADD CONSTRAINT sale_rules_closed_dates CHECK (kind NOT IN ('closed_to_arrival', 'closed_to_departure')
        OR (from_date IS NOT NULL AND to_date > from_date AND min_los IS NULL AND max_los IS NULL)) NOT VALID,
    ADD CONSTRAINT sale_rules_stay_through CHECK (kind <> 'stay_through'
        OR (from_date IS NOT NULL AND to_date > from_date AND min_los IS NOT NULL AND (max_los IS NULL OR max_los >= min_los)
            AND discount_from IS NULL AND discount_percent IS NULL AND discount_amount IS NULL)) NOT VALID;
ALTER TABLE sale_rules VALIDATE CONSTRAINT sale_rules_kind_check;
ALTER TABLE sale_rules VALIDATE CONSTRAINT sale_rules_closed_dates;
ALTER TABLE sale_rules VALIDATE CONSTRAINT sale_rules_stay_through;

-- +goose Down
-- Rules of the new kinds are ended, not deleted; the old check comes back for rows written from now on.
UPDATE sale_rules SET cancelled_at = now() WHERE kind IN ('closed_to_arrival', 'closed_to_departure', 'stay_through')
    AND cancelled_at IS NULL;
ALTER TABLE sale_rules DROP CONSTRAINT sale_rules_stay_through, DROP CONSTRAINT sale_rules_closed_dates,
    DROP CONSTRAINT sale_rules_kind_check,
    ADD CONSTRAINT sale_rules_kind_check CHECK (kind IN ('stop_sell', 'sale_range', 'booking_window', 'length_of_stay')) NOT VALID;
