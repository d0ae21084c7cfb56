-- ledger_after_amendment: the trigger function of ledger_amendment (ledger_install_triggers):
-- ledger_on_amendment for the row written.
CREATE OR REPLACE FUNCTION ledger_after_amendment()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM ledger_on_amendment(NEW, NULL, NULL, NULL);
    ELSE
        PERFORM ledger_on_amendment(NEW, OLD.status, OLD.balance_payment_id, NULL);
    END IF;
    RETURN NULL;
END
$$;
