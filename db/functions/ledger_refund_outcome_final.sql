-- ledger_refund_outcome_final: the trigger function that keeps a refund attempt's outcome final:
-- once succeeded or failed, its status, amount and payment never change (the ledger posted that
-- one outcome, money_ledger_one_outcome, and the readers of the rows, a resumed booking and the
-- checker's repair, must read what the ledger says). The store only moves an attempt on from
-- requested or pending. Trigger: ledger_install_triggers.
CREATE OR REPLACE FUNCTION ledger_refund_outcome_final()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'refund attempt % is % already: its outcome is final', OLD.id, OLD.status
        USING ERRCODE = 'restrict_violation';
END
$$;
