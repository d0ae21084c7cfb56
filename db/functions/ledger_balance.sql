-- ledger_balance: what one account of a payment holds, by the money ledger (the balance
-- ledger_post keeps with each entry).
CREATE OR REPLACE FUNCTION ledger_balance(p_payment text, p_account text)
RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT COALESCE((SELECT balance FROM money_balances WHERE payment_id = p_payment AND account = p_account), 0)
$$;
