-- ledger_on_price_change: posts a price set by hand, a promise: the difference from the price
-- before, sales to price when it rose, price to sales when it fell. Called by its trigger
-- (ledger_after_price_change) and by the backfill.
CREATE OR REPLACE FUNCTION ledger_on_price_change(c price_changes)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF c.after > c.before THEN
        PERFORM ledger_post(c.booking_id, '', 'price_set', NULL, 'sales', 'price', c.after - c.before,
            c.currency, 'price-change-' || c.id, NULL, c.actor, c.at);
    ELSIF c.after < c.before THEN
        PERFORM ledger_post(c.booking_id, '', 'price_set', NULL, 'price', 'sales', c.before - c.after,
            c.currency, 'price-change-' || c.id, NULL, c.actor, c.at);
    END IF;
END
$$;
