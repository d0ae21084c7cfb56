-- ledger_after_price_change: the trigger function of ledger_price_change
-- (ledger_install_triggers): ledger_on_price_change for the row written.
CREATE OR REPLACE FUNCTION ledger_after_price_change()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_on_price_change(NEW);
    RETURN NULL;
END
$$;
