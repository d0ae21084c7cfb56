-- +goose Up

-- The nightly rates of a rate plan that is neither the default plan (whose rates are the room
-- type's own, inventory.rate) nor derived (whose price follows its parent's), per room type and
-- night, in the currency the room type's nights are priced in (issue 35,
-- docs/rates-and-restrictions.md). Written only for nights on sale (an inventory row).
CREATE TABLE plan_rates (
    hotel_id    text      NOT NULL,
    plan_code   text      NOT NULL,
    resource_id bigint    NOT NULL REFERENCES resources (id),
    unit_start  timestamp NOT NULL,
    rate        bigint    NOT NULL CHECK (rate >= 0),
    currency    text      NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    PRIMARY KEY (resource_id, plan_code, unit_start),
    FOREIGN KEY (hotel_id, plan_code) REFERENCES rate_plans (hotel_id, code)
);
-- a plan's rates, dropped under the hotel's sale lock when it is made derived or narrowed
CREATE INDEX plan_rates_plan ON plan_rates (hotel_id, plan_code);

-- +goose Down
DROP TABLE plan_rates;
