-- +goose Up

-- A channel's sale on its account is an entry of the money ledger too (issue 34): the booking's
-- price promised by its sales channel, sales to channel:<channelId> (sold_on_account), and back
-- when a cancel or an amendment lowers it (on_account_reversed). They are promises, like a price
-- set by hand: no payment (payment_id ''). docs/payments-and-refunds.md ("The ledger") describes
-- them; db/functions/ledger_on_channel_account.sql posts them. Every row already there is of a
-- kind both checks allow, so the new check is valid as it is added.
ALTER TABLE money_ledger DROP CONSTRAINT money_ledger_kind_check,
    ADD CONSTRAINT money_ledger_kind_check CHECK (kind IN ('captured', 'kept', 'refund_asked', 'attempt_sent',
        'refund_succeeded', 'refund_failed', 'settled_by_hand', 'price_set', 'balance_due', 'balance_lapsed',
        'sold_on_account', 'on_account_reversed'));

-- +goose Down
-- The trigger db.Migrate installs for them (ledger_install_triggers) goes; entries are never
-- deleted, so the old check is put back for the entries posted from now on.
DROP TRIGGER IF EXISTS ledger_channel_amendment ON booking_amendments;
DROP TRIGGER IF EXISTS _ledger_channel_amendment ON booking_amendments;
ALTER TABLE money_ledger DROP CONSTRAINT money_ledger_kind_check,
    ADD CONSTRAINT money_ledger_kind_check CHECK (kind IN ('captured', 'kept', 'refund_asked', 'attempt_sent',
        'refund_succeeded', 'refund_failed', 'settled_by_hand', 'price_set', 'balance_due', 'balance_lapsed')) NOT VALID;
