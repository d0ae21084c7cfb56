-- +goose Up

-- The restrictions channels speak, as sale rules of kinds of their own (issue 35,
-- docs/rates-and-restrictions.md): closed to arrival and to departure on the dates
-- [from_date, to_date); a minimum and maximum stay for stays with a night in [from_date, to_date)
-- (stay_through: min_los, max_los); how many days ahead check-ins on the dates
-- [from_date, to_date) are booked (arrival_advance: min_advance, max_advance). Kinds of their
-- own, not new fields of today's kinds, so a previous release, which evaluates only the kinds it
-- knows, ignores them during a rolling deploy or after a rollback rather than misreading them
-- (it would not enforce them either: a restriction applies everywhere once every process runs
-- this release). In this one transaction the table is locked while the checks read it: a
-- hotel's rules are a handful of rows.
ALTER TABLE sale_rules DROP CONSTRAINT sale_rules_kind_check,
    ADD CONSTRAINT sale_rules_kind_check CHECK (kind IN ('stop_sell', 'closed_to_arrival', 'closed_to_departure',
        'stay_through', 'arrival_advance', 'sale_range', 'booking_window', 'length_of_stay')),
    ADD CONSTRAINT sale_rules_closed_dates CHECK (kind NOT IN ('closed_to_arrival', 'closed_to_departure')
        OR (from_date IS NOT NULL AND to_date > from_date AND min_los IS NULL AND max_los IS NULL
            AND min_advance IS NULL AND max_advance IS NULL)),
    ADD CONSTRAINT sale_rules_stay_through CHECK (kind <> 'stay_through'
        OR (from_date IS NOT NULL AND to_date > from_date AND min_los IS NOT NULL AND (max_los IS NULL OR max_los >= min_los)
            AND discount_from IS NULL AND discount_percent IS NULL AND discount_amount IS NULL)),
    ADD CONSTRAINT sale_rules_arrival_advance CHECK (kind <> 'arrival_advance'
        OR (from_date IS NOT NULL AND to_date > from_date AND min_advance IS NOT NULL AND max_advance >= min_advance));

-- +goose Down
-- Rules of the new kinds are ended, not deleted; the old check comes back for rows written from now on.
UPDATE sale_rules SET cancelled_at = now() WHERE kind IN ('closed_to_arrival', 'closed_to_departure', 'stay_through',
    'arrival_advance') AND cancelled_at IS NULL;
ALTER TABLE sale_rules DROP CONSTRAINT sale_rules_arrival_advance, DROP CONSTRAINT sale_rules_stay_through,
    DROP CONSTRAINT sale_rules_closed_dates, DROP CONSTRAINT sale_rules_kind_check,
    ADD CONSTRAINT sale_rules_kind_check CHECK (kind IN ('stop_sell', 'sale_range', 'booking_window', 'length_of_stay')) NOT VALID;
