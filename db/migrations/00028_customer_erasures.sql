-- +goose Up

-- Each erasure of a customer's personal data (db/erasure.go): the pseudonym that replaced their
-- id, who erased them and why, and how many rows of each table changed. The customer's own id is
-- never stored here: the pseudonym is its keyed hash, so an erasure asked again finds its record.
CREATE TABLE customer_erasures (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pseudonym text        NOT NULL CHECK (pseudonym ~ '^erased:[0-9a-f]{32}$'),
    erased_at timestamptz NOT NULL DEFAULT now(),
    erased_by text        NOT NULL,
    reason    text        NOT NULL CHECK (reason <> ''),
    row_counts jsonb      NOT NULL
);
CREATE INDEX customer_erasures_pseudonym ON customer_erasures (pseudonym, erased_at DESC);

-- +goose Down
DROP TABLE customer_erasures;
