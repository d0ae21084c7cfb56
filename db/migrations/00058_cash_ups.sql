-- +goose Up

-- Cash-ups (issue 39, Finance): at the end of a shift the cashier (the staff subject who took
-- the desk's payments) counts what is in the drawer and on the card terminal's slip against what
-- bookflow expected from the money ledger: what they took by each method at the site over the
-- shift [shift_from, shift_to), less what they gave back at the desk. A cash-up is closed once
-- and never changed: the figures finance reads later are the ones the cashier signed off.
CREATE TABLE IF NOT EXISTS cash_ups (
    id         bigserial   PRIMARY KEY,
    site_kind  text        NOT NULL CHECK (site_kind IN ('hotel', 'venue')),
    site_id    text        NOT NULL,
    cashier    text        NOT NULL CHECK (cashier <> ''),
    shift_from timestamptz NOT NULL,
    shift_to   timestamptz NOT NULL CHECK (shift_to > shift_from),
    closed_by  text        NOT NULL,
    closed_at  timestamptz NOT NULL DEFAULT now(),
    note       text        NOT NULL DEFAULT '',
    -- The Idempotency-Key it was closed under: the same request again answers this cash-up.
    key        text        NOT NULL,
    UNIQUE (site_kind, site_id, key),
    -- One cashier's shifts at one site are closed once: two cash-ups of overlapping windows
    -- would count the same payments twice. The database refuses the second, however the two
    -- requests race (exclusion_violation).
    CONSTRAINT cash_ups_never_overlap EXCLUDE USING gist (site_kind WITH =, site_id WITH =, cashier WITH =,
        tstzrange(shift_from, shift_to) WITH &&)
);
CREATE INDEX IF NOT EXISTS cash_ups_site_shift ON cash_ups (site_kind, site_id, shift_from);

-- One line of a cash-up per method and currency: what the ledger expected, and what was
-- counted (cash and card_terminal; bank_transfer and other are shown for information and never
-- counted, so their counted is NULL).
CREATE TABLE IF NOT EXISTS cash_up_lines (
    cash_up_id bigint NOT NULL REFERENCES cash_ups (id),
    method     text   NOT NULL CHECK (method IN ('cash', 'card_terminal', 'bank_transfer', 'other')),
    currency   text   NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    -- taken: what the cashier took by this method (payments, how many); given_back: what they
    -- gave back at the desk by it (refunds, how many).
    taken      bigint NOT NULL CHECK (taken >= 0),
    payments   integer NOT NULL CHECK (payments >= 0),
    given_back bigint NOT NULL CHECK (given_back >= 0),
    refunds    integer NOT NULL CHECK (refunds >= 0),
    expected   bigint NOT NULL GENERATED ALWAYS AS (taken - given_back) STORED,
    counted    bigint CHECK (counted >= 0),
    difference bigint GENERATED ALWAYS AS (counted - (taken - given_back)) STORED,
    PRIMARY KEY (cash_up_id, method, currency),
    CHECK ((counted IS NULL) = (method IN ('bank_transfer', 'other')))
);

-- A closed cash-up is append-only, as the money ledger is: never updated or deleted
-- (restrict_violation). A difference explained later is a note of its own (cash_up_notes).
CREATE TABLE IF NOT EXISTS cash_up_notes (
    id         bigserial   PRIMARY KEY,
    cash_up_id bigint      NOT NULL REFERENCES cash_ups (id),
    note       text        NOT NULL CHECK (note <> ''),
    author     text        NOT NULL,
    at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS cash_up_notes_cash_up ON cash_up_notes (cash_up_id, id);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION cash_up_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a closed cash-up is never changed: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END
$$;
-- +goose StatementEnd
CREATE OR REPLACE TRIGGER cash_ups_append_only BEFORE UPDATE OR DELETE ON cash_ups
    FOR EACH ROW EXECUTE FUNCTION cash_up_refuse_change();
CREATE OR REPLACE TRIGGER cash_up_lines_append_only BEFORE UPDATE OR DELETE ON cash_up_lines
    FOR EACH ROW EXECUTE FUNCTION cash_up_refuse_change();
CREATE OR REPLACE TRIGGER cash_up_notes_append_only BEFORE UPDATE OR DELETE ON cash_up_notes
    FOR EACH ROW EXECUTE FUNCTION cash_up_refuse_change();

-- +goose Down
DROP TABLE cash_up_notes;
DROP TABLE cash_up_lines;
DROP TABLE cash_ups;
DROP FUNCTION cash_up_refuse_change();
