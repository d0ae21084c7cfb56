-- ledger_after_staff_refund: the trigger function of ledger_staff_refund
-- (ledger_install_triggers): ledger_on_staff_refund for the row written.
CREATE OR REPLACE FUNCTION ledger_after_staff_refund()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_on_staff_refund(NEW);
    RETURN NULL;
END
$$;
