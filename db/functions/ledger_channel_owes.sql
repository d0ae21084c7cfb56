-- ledger_channel_owes: what a booking's sales channel owes for it by the money ledger: its sales
-- on the channel's account less their reversals; 0 for a booking not sold on account. A cancel's
-- reversal (ledger_on_booking), the booking's money (Store.ChannelOwes, twice in every staff
-- refund's answer) and the checker's money check read it. PL/pgSQL, not SQL, as ledger_balance:
-- a SQL function whose body reads a table is not inlined and was planned anew at every call
-- (about 60 µs of a call's 100 µs, one statement at a time through psql).
CREATE OR REPLACE FUNCTION ledger_channel_owes(p_booking text)
RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT COALESCE(sum(CASE WHEN kind = 'sold_on_account' THEN amount ELSE -amount END), 0)::bigint
        FROM money_ledger WHERE booking_id = p_booking AND kind IN ('sold_on_account', 'on_account_reversed'));
END
$$;
