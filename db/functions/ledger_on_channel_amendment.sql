-- ledger_on_channel_amendment: an amendment applied to a booking sold on its channel's account
-- (no provider payment: applied at once, settled in the channel's statement) moves what the
-- channel owes by its difference (ledger_on_channel_account, cause amendment). One applied to
-- the hold before its sale is in the price the sale posts; one after its cancel moves nothing.
-- was is the row's status before (NULL for a new row). Called by its trigger
-- (ledger_after_channel_amendment) and by the backfill.
CREATE OR REPLACE FUNCTION ledger_on_channel_amendment(m booking_amendments, was text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    b bookings;
BEGIN
    IF m.status <> 'APPLIED' OR was IS NOT DISTINCT FROM 'APPLIED' OR m.difference = 0 THEN
        RETURN;
    END IF;
    SELECT * INTO b FROM bookings WHERE id = m.booking_id;
    IF b.channel_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM money_ledger WHERE kind = 'sold_on_account' AND ref = b.id || '/on-account')
        AND NOT EXISTS (SELECT 1 FROM money_ledger WHERE kind = 'on_account_reversed' AND ref = b.id || '/on-account') THEN
        PERFORM ledger_on_channel_account(b, m.difference, 'amendment', 'amendment-' || m.id, p_at);
    END IF;
END
$$;
