-- +goose Up

-- A no-show gives back what its plan's no-show terms do not keep (issue 35: first_night,
-- percent): a refund that keeps the units, of kind no_show, under the key no-show@<check-in>
-- (db/no_show.go). It is a staff refund's kind and a money command's. An expand step: the
-- previous release never writes it, and every row already there is of a kind both checks allow.
-- The checks are added NOT VALID and validated after, so refunds are not blocked while they scan.
ALTER TABLE staff_refunds DROP CONSTRAINT staff_refunds_kind_check,
    ADD CONSTRAINT staff_refunds_kind_check CHECK (kind IN ('goodwill', 'early_departure', 'reversal', 'no_show')) NOT VALID;
ALTER TABLE staff_refunds VALIDATE CONSTRAINT staff_refunds_kind_check;
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment', 'refund_retry', 'refund_resolve', 'no_show')) NOT VALID;
ALTER TABLE money_commands VALIDATE CONSTRAINT money_commands_kind_check;

-- +goose Down
-- Refunds are not deleted: the old checks are put back for the rows written from now on.
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment', 'refund_retry', 'refund_resolve')) NOT VALID;
ALTER TABLE staff_refunds DROP CONSTRAINT staff_refunds_kind_check,
    ADD CONSTRAINT staff_refunds_kind_check CHECK (kind IN ('goodwill', 'early_departure', 'reversal')) NOT VALID;
