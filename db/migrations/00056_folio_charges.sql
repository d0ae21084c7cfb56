-- +goose Up

-- The folio's extras (issue 39): what the desk charges a stay or a visit besides its price (city
-- tax, the minibar, a late check-out, a racket). A charge is a promise, like a price set by
-- hand: its trigger (_ledger_folio_charge, db/functions/ledger_on_folio_charge.sql) posts
-- charge_added (sales to extras) when it is written and charge_voided (back) when it is voided,
-- and the booking's due grows and shrinks by it. It is paid like any balance, by a desk payment.
-- A charge is never deleted or changed but to void it, once. Its key is claimed in the booking's
-- key space of money commands (folio_charge), so the same charge sent twice is charged once.
-- An expand step: the previous release never writes these kinds.
CREATE TABLE IF NOT EXISTS folio_charges (
    id          bigserial   PRIMARY KEY,
    booking_id  text        NOT NULL REFERENCES bookings (id),
    key         text        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('city_tax', 'minibar', 'late_check_out', 'equipment', 'other')),
    description text        NOT NULL DEFAULT '' CHECK (length(description) <= 200),
    quantity    integer     NOT NULL CHECK (quantity BETWEEN 1 AND 999),
    unit_amount bigint      NOT NULL CHECK (unit_amount > 0),
    amount      bigint      NOT NULL CHECK (amount = quantity * unit_amount),
    currency    text        NOT NULL,
    added_by    text        NOT NULL,
    added_at    timestamptz NOT NULL DEFAULT now(),
    voided_at   timestamptz,
    voided_by   text,
    void_reason text        CHECK (length(void_reason) <= 500),
    UNIQUE (booking_id, key),
    CHECK ((voided_at IS NULL) = (voided_by IS NULL) AND (voided_at IS NULL) = (void_reason IS NULL))
);
CREATE INDEX IF NOT EXISTS folio_charges_booking ON folio_charges (booking_id, id);

-- What an early departure decided to refund, kept with the check-out it moved the stay to
-- (unit_to), so the same departure asked again (its answer lost) answers the same refund rather
-- than working it out again from a price the departure lowered and extras charged since.
-- Nullable, no default: no rewrite of the table.
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS departure_refund bigint;

ALTER TABLE money_ledger DROP CONSTRAINT money_ledger_kind_check,
    ADD CONSTRAINT money_ledger_kind_check CHECK (kind IN ('captured', 'kept', 'refund_asked', 'attempt_sent',
        'refund_succeeded', 'refund_failed', 'settled_by_hand', 'price_set', 'balance_due', 'balance_lapsed',
        'sold_on_account', 'on_account_reversed', 'charge_added', 'charge_voided')) NOT VALID;
ALTER TABLE money_ledger VALIDATE CONSTRAINT money_ledger_kind_check;
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment', 'refund_retry', 'refund_resolve', 'no_show', 'folio_charge')) NOT VALID;
ALTER TABLE money_commands VALIDATE CONSTRAINT money_commands_kind_check;

-- +goose Down
-- Entries and commands are not deleted: the old checks are put back for the rows written from now on.
DROP TRIGGER IF EXISTS _ledger_folio_charge ON folio_charges;
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment', 'refund_retry', 'refund_resolve', 'no_show')) NOT VALID;
ALTER TABLE money_ledger DROP CONSTRAINT money_ledger_kind_check,
    ADD CONSTRAINT money_ledger_kind_check CHECK (kind IN ('captured', 'kept', 'refund_asked', 'attempt_sent',
        'refund_succeeded', 'refund_failed', 'settled_by_hand', 'price_set', 'balance_due', 'balance_lapsed',
        'sold_on_account', 'on_account_reversed')) NOT VALID;
DROP TABLE folio_charges CASCADE; -- with its ledger function, whose argument is its row
ALTER TABLE bookings DROP COLUMN departure_refund;
