-- ledger_channel_owes: what a booking's sales channel owes for it by the money ledger: its sales
-- on the channel's account less their reversals; 0 for a booking not sold on account. A cancel's
-- reversal (ledger_on_booking) and the booking's money (Store.ChannelOwes) read it.
CREATE OR REPLACE FUNCTION ledger_channel_owes(p_booking text)
RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT COALESCE(sum(CASE WHEN kind = 'sold_on_account' THEN amount ELSE -amount END), 0)::bigint
    FROM money_ledger WHERE booking_id = p_booking AND kind IN ('sold_on_account', 'on_account_reversed')
$$;
