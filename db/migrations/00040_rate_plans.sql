-- +goose Up

-- Rate plans (issue 35, docs/rates-and-restrictions.md): the ways a hotel sells its rooms. Each
-- hotel has a default plan, BAR, created here for every hotel and by a trigger for every hotel
-- created later: its nightly price is the room type's rate (inventory.rate) and its policy the
-- hotel's own columns, so its row holds neither (policy is NULL: the hotel's; no derivation).
-- Another plan holds its own policy and payment rule; a derived plan names its parent in the same
-- hotel and how its price follows the parent's (percent in hundredths of a percent, or an amount
-- in minor units per night, then rounded to a multiple of rounding_step).
CREATE TABLE rate_plans (
    hotel_id         text    NOT NULL REFERENCES hotels (id),
    code             text    NOT NULL CHECK (code ~ '^[A-Za-z0-9._-]{1,64}$'),
    name             text    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    is_default       boolean NOT NULL DEFAULT false,
    -- the room types it sells; empty: every room type of the hotel
    room_types       text[]  NOT NULL DEFAULT '{}',
    board            text    NOT NULL DEFAULT 'room_only'
        CHECK (board IN ('room_only', 'breakfast', 'half_board', 'full_board')),
    includes         text    NOT NULL DEFAULT '' CHECK (length(includes) <= 500),
    -- the cancellation, early-departure and no-show policy (domain.RatePlanPolicy); NULL: the
    -- hotel's policy, for the default plan only
    policy           jsonb,
    payment_rule     text    NOT NULL DEFAULT 'full' CHECK (payment_rule IN ('full', 'deposit', 'at_hotel')),
    deposit_percent  integer CHECK (deposit_percent BETWEEN 1 AND 99),
    balance_due_days integer CHECK (balance_due_days BETWEEN 0 AND 365),
    -- the channels that may sell it; empty: direct sales only; '{*}': every channel
    channels         text[]  NOT NULL DEFAULT '{}',
    parent           text,
    percent_bp       integer CHECK (percent_bp BETWEEN -10000 AND 100000),
    amount           bigint,
    rounding_mode    text    CHECK (rounding_mode IN ('nearest', 'down', 'up')),
    rounding_step    bigint  CHECK (rounding_step BETWEEN 1 AND 1000000),
    updated_by       text    NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (hotel_id, code),
    FOREIGN KEY (hotel_id, parent) REFERENCES rate_plans (hotel_id, code),
    CONSTRAINT deposit_has_terms CHECK ((payment_rule = 'deposit') = (deposit_percent IS NOT NULL AND balance_due_days IS NOT NULL)),
    CONSTRAINT derived_by_one_adjustment CHECK (parent IS NULL
        OR (percent_bp IS NULL) <> (amount IS NULL) AND rounding_mode IS NOT NULL AND rounding_step IS NOT NULL),
    CONSTRAINT not_derived_adjusts_nothing CHECK (parent IS NOT NULL
        OR percent_bp IS NULL AND amount IS NULL AND rounding_mode IS NULL AND rounding_step IS NULL),
    CONSTRAINT default_plan_is_the_hotels CHECK (NOT is_default
        OR parent IS NULL AND policy IS NULL AND payment_rule = 'full' AND channels = '{*}' AND room_types = '{}'),
    CONSTRAINT only_default_reads_the_hotels_policy CHECK (is_default OR policy IS NOT NULL)
);
CREATE UNIQUE INDEX rate_plans_one_default ON rate_plans (hotel_id) WHERE is_default;

-- +goose StatementBegin
CREATE FUNCTION rate_plans_default_for_hotel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rate_plans (hotel_id, code, name, is_default, channels, updated_by)
    VALUES (NEW.id, 'BAR', 'Best available rate', true, '{*}', 'system:hotel-created')
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER rate_plans_default AFTER INSERT ON hotels
    FOR EACH ROW EXECUTE FUNCTION rate_plans_default_for_hotel();

INSERT INTO rate_plans (hotel_id, code, name, is_default, channels, updated_by)
SELECT id, 'BAR', 'Best available rate', true, '{*}', 'system:migration' FROM hotels
ON CONFLICT DO NOTHING;

-- +goose Down
DROP TRIGGER rate_plans_default ON hotels;
DROP FUNCTION rate_plans_default_for_hotel();
DROP TABLE rate_plans;
