-- ledger_after_booking: the trigger function of ledger_booking (ledger_install_triggers):
-- ledger_on_booking for the row written, and the payment that paid a deposit plan's balance kept
-- once the booking names it (migration 00047; a backfill finds none: plans came after it). The
-- column is read through to_jsonb, and the trigger fires on paid (written with it), not on the
-- column itself: nothing depends on it, so its migration goes down, and a row without it reads
-- as NULL.
CREATE OR REPLACE FUNCTION ledger_after_booking()
RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    balance_payment text;
BEGIN
    PERFORM ledger_on_booking(NEW, OLD.payment_id, OLD.status, NULL);
    IF NEW.paid IS DISTINCT FROM OLD.paid THEN
        balance_payment := to_jsonb(NEW)->>'balance_payment_id';
        IF balance_payment IS NOT NULL AND balance_payment IS DISTINCT FROM to_jsonb(OLD)->>'balance_payment_id' THEN
            PERFORM ledger_keep(balance_payment, NULL);
        END IF;
    END IF;
    RETURN NULL;
END
$$;
