-- ledger_booking_extras: what a booking's extras charge it now (its charge_added entries less its
-- charge_voided ones, in minor units of its currency), which its due adds to its price.
CREATE OR REPLACE FUNCTION ledger_booking_extras(p_booking text)
RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT COALESCE(sum(CASE WHEN kind = 'charge_added' THEN amount ELSE -amount END), 0)::bigint
    FROM money_ledger WHERE booking_id = p_booking AND kind IN ('charge_added', 'charge_voided')
$$;
