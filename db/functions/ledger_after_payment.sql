-- ledger_after_payment: the trigger function of ledger_payment (ledger_install_triggers):
-- ledger_on_payment for the row written.
CREATE OR REPLACE FUNCTION ledger_after_payment()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_on_payment(NEW, CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, NULL);
    RETURN NULL;
END
$$;
