-- ledger_refuse_change: the trigger function that keeps the money ledger append-only: an entry
-- is never updated or deleted; a correction is a new entry. Triggers: ledger_install_triggers.
CREATE OR REPLACE FUNCTION ledger_refuse_change()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the money ledger is append-only: % of entry % refused', TG_OP, OLD.id
        USING ERRCODE = 'restrict_violation';
END
$$;
