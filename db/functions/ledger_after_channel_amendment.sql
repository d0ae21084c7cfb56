-- ledger_after_channel_amendment: the trigger function of ledger_channel_amendment
-- (ledger_install_triggers): ledger_on_channel_amendment for the row written.
CREATE OR REPLACE FUNCTION ledger_after_channel_amendment()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM ledger_on_channel_amendment(NEW, NULL, NULL);
    ELSE
        PERFORM ledger_on_channel_amendment(NEW, OLD.status, NULL);
    END IF;
    RETURN NULL;
END
$$;
