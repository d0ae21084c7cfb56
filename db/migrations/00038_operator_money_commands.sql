-- +goose Up

-- An operator's retry or resolution of a stuck refund sent with an Idempotency-Key takes the key
-- in the booking's one key space (issue 34; db/operator_commands.go): two more kinds of money
-- command, and claimed_by, the workflow's claim (run and update) that wrote it, so a retry of the
-- claim's own activity is told from the same action sent again. An expand step: the previous
-- release never writes them, and every row already there is of a kind both checks allow. The
-- check is added NOT VALID and validated after, so money commands are not blocked while it scans.
ALTER TABLE money_commands ADD COLUMN claimed_by text;
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment', 'refund_retry', 'refund_resolve')) NOT VALID;
ALTER TABLE money_commands VALIDATE CONSTRAINT money_commands_kind_check;

-- +goose Down
-- Commands are not deleted: the old check is put back for the rows written from now on.
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment')) NOT VALID;
ALTER TABLE money_commands DROP COLUMN claimed_by;
