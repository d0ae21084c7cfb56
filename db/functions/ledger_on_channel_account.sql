-- ledger_on_channel_account: posts a change of what booking b's sales channel owes for it, sold on
-- the channel's account (an agent's booking confirmed without a payment, which the channel pays
-- in its statement). It is a promise, as a price set by hand is: no payment moves (payment_id
-- ''). A rise is sold_on_account, sales to channel:<channelId>; a fall is on_account_reversed,
-- back. cause says what changed it (NULL for the sale, cancel, amendment) and ref names that
-- fact. Called by ledger_on_booking (the sale confirmed, its cancel) and
-- ledger_on_channel_amendment.
CREATE OR REPLACE FUNCTION ledger_on_channel_account(b bookings, p_change bigint, p_cause text, p_ref text,
    p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_change > 0 THEN
        PERFORM ledger_post(b.id, '', 'sold_on_account', p_cause, 'sales', 'channel:' || b.channel_id, p_change,
            b.currency, p_ref, NULL, NULL, p_at);
    ELSIF p_change < 0 THEN
        PERFORM ledger_post(b.id, '', 'on_account_reversed', p_cause, 'channel:' || b.channel_id, 'sales', -p_change,
            b.currency, p_ref, NULL, NULL, p_at);
    END IF;
END
$$;
