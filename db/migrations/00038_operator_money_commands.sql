-- +goose Up

-- An operator's retry or resolution of a stuck refund sent with an Idempotency-Key takes the key
-- in the booking's one key space (issue 34; db/operator_commands.go): two more kinds of money
-- command. An expand step: the previous release never writes them, and every row already there
-- is of a kind both checks allow.
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment', 'refund_retry', 'refund_resolve'));

-- +goose Down
-- Commands are not deleted: the old check is put back for the rows written from now on.
ALTER TABLE money_commands DROP CONSTRAINT money_commands_kind_check,
    ADD CONSTRAINT money_commands_kind_check CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment')) NOT VALID;
