-- +goose Up

-- People the front desk books for by phone, without an account: found again by their
-- normalised (E.164) number. Their customer id is 'walk-in:' and the number.
CREATE TABLE walk_in_customers (
    phone       text PRIMARY KEY CHECK (phone ~ '^\+[1-9][0-9]{7,14}$'),
    customer_id text        NOT NULL UNIQUE,
    name        text        NOT NULL DEFAULT '',
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE walk_in_customers;
