-- ledger_after_refund: the trigger function of ledger_refund (ledger_install_triggers):
-- ledger_on_refund for the row written.
CREATE OR REPLACE FUNCTION ledger_after_refund()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_on_refund(NEW, CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, NULL);
    RETURN NULL;
END
$$;
