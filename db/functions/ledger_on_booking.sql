-- ledger_on_booking: posts what a booking's row says of its money: a payment it now names is
-- kept (ledger_keep); a booking moved to REFUNDING asks its refund due back (ledger_draw, cause
-- cancel). A channel's hold confirmed without a payment is sold on the channel's account at its
-- price; cancelled once confirmed, what the channel still owes for it goes back
-- (ledger_on_channel_account, ref <bookingId>/on-account for both). Called by its trigger
-- (ledger_after_booking) and by the backfill.
CREATE OR REPLACE FUNCTION ledger_on_booking(b bookings, was_paid_by text, was text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF b.payment_id IS NOT NULL AND b.payment_id IS DISTINCT FROM was_paid_by THEN
        PERFORM ledger_keep(b.payment_id, p_at);
    END IF;
    IF b.status = 'REFUNDING' AND was IS DISTINCT FROM 'REFUNDING' AND was IS DISTINCT FROM 'REFUNDED'
        AND b.refund_due > 0 THEN
        PERFORM ledger_draw(b.id, b.refund_due, 'cancel', b.id || '/refund', NULL, p_at);
    END IF;
    IF b.channel_id IS NOT NULL AND b.payment_id IS NULL AND b.status = 'CONFIRMED' AND was = 'HOLD' THEN
        PERFORM ledger_on_channel_account(b, b.total, NULL, b.id || '/on-account', p_at);
    END IF;
    IF b.channel_id IS NOT NULL AND b.status = 'CANCELLED' AND was IN ('CONFIRMED', 'COMPLETED') THEN
        PERFORM ledger_on_channel_account(b, -ledger_channel_owes(b.id), 'cancel', b.id || '/on-account', p_at);
    END IF;
END
$$;
