-- ledger_after_booking: the trigger function of ledger_booking (ledger_install_triggers):
-- ledger_on_booking for the row written.
CREATE OR REPLACE FUNCTION ledger_after_booking()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_on_booking(NEW, OLD.payment_id, OLD.status, NULL);
    RETURN NULL;
END
$$;
