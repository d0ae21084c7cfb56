-- ledger_owe: makes sure p_amount of a payment is owed back before a refund attempt draws on it.
-- A refund of money its booking never kept (a second payment, a wrong amount, one settled by
-- finance) is asked back here from what was received (cause extra, or manual for finance's),
-- even when the attempt is recorded before the payment's own row;
-- what a booking keeps and no earlier ask covers (a refund the workflow drew otherwise than the
-- database) is asked back from kept, with cause unplanned, so the books show it.
CREATE OR REPLACE FUNCTION ledger_owe(p_booking text, p_payment text, p_amount bigint, p_currency text, p_ref text,
    p_cause text, p_actor text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    short bigint := p_amount - greatest(ledger_balance(p_payment, 'owed'), 0);
    from_received bigint;
BEGIN
    IF short <= 0 THEN
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM money_ledger WHERE kind = 'kept' AND ref = p_payment) THEN
        -- Money its booking never kept: from received, even before the payment's row says it
        -- arrived (the account is below zero until its captured entry fills it).
        PERFORM ledger_post(p_booking, p_payment, 'refund_asked', p_cause, 'received', 'owed', short, p_currency,
            p_ref || '@received', NULL, p_actor, p_at);
        RETURN;
    END IF;
    from_received := least(short, greatest(ledger_balance(p_payment, 'received'), 0));
    PERFORM ledger_post(p_booking, p_payment, 'refund_asked', p_cause, 'received', 'owed', from_received, p_currency,
        p_ref || '@received', NULL, p_actor, p_at);
    PERFORM ledger_post(p_booking, p_payment, 'refund_asked', 'unplanned', 'kept', 'owed', short - from_received,
        p_currency, p_ref || '@kept', NULL, p_actor, p_at);
END
$$;
