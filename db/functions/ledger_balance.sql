-- ledger_balance: what one account of a payment holds, by the money ledger: what its entries
-- brought in less what they took out.
CREATE OR REPLACE FUNCTION ledger_balance(p_payment text, p_account text)
RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT COALESCE(sum(CASE WHEN credit = p_account THEN amount ELSE -amount END), 0)::bigint
    FROM money_ledger WHERE payment_id = p_payment AND (credit = p_account OR debit = p_account)
$$;
