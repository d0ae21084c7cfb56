-- ledger_after_booking: the trigger function of ledger_booking (ledger_install_triggers):
-- ledger_on_booking for the row written, and the payment that paid a deposit plan's balance kept
-- once the booking names it (migration 00047; a backfill finds none: plans came after it), and so
-- is the payment of the fee charged to its guarantee card (00049, written with paid too). The
-- columns are read through to_jsonb, and the trigger fires on paid (written with them), not on
-- the columns themselves: nothing depends on them, so their migrations go down, and a row
-- without them reads as NULL.
CREATE OR REPLACE FUNCTION ledger_after_booking()
RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    balance_payment text;
    fee_payment text;
BEGIN
    PERFORM ledger_on_booking(NEW, OLD.payment_id, OLD.status, NULL);
    IF NEW.paid IS DISTINCT FROM OLD.paid THEN
        balance_payment := to_jsonb(NEW)->>'balance_payment_id';
        IF balance_payment IS NOT NULL AND balance_payment IS DISTINCT FROM to_jsonb(OLD)->>'balance_payment_id' THEN
            PERFORM ledger_keep(balance_payment, NULL);
        END IF;
        fee_payment := to_jsonb(NEW)->'guarantee_fee'->>'paymentId';
        IF fee_payment IS NOT NULL AND fee_payment IS DISTINCT FROM to_jsonb(OLD)->'guarantee_fee'->>'paymentId' THEN
            PERFORM ledger_keep(fee_payment, NULL);
        END IF;
    END IF;
    RETURN NULL;
END
$$;
