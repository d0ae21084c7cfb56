-- ledger_after_folio_charge: the trigger function of _ledger_folio_charge
-- (ledger_install_triggers): ledger_on_folio_charge for the row written.
CREATE OR REPLACE FUNCTION ledger_after_folio_charge()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_on_folio_charge(NEW);
    RETURN NULL;
END
$$;
