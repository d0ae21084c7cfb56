-- ledger_balance: what one account of a payment holds, by the money ledger (the balance
-- ledger_post keeps with each entry). PL/pgSQL, not SQL: a SQL function with a subquery is never
-- inlined and was planned anew on every call (0.3 ms of a confirmation); PL/pgSQL keeps its plan.
CREATE OR REPLACE FUNCTION ledger_balance(p_payment text, p_account text)
RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN COALESCE((SELECT balance FROM money_balances WHERE payment_id = p_payment AND account = p_account), 0);
END
$$;
