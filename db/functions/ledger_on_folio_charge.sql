-- ledger_on_folio_charge: posts an extra the desk charged (folio_charges, migration 00056), a
-- promise like a price set by hand: charge_added (sales to extras) when it is written,
-- charge_voided (extras to sales) once it is voided. Called by its trigger
-- (ledger_after_folio_charge). Each is posted once (its ref is the charge's).
CREATE OR REPLACE FUNCTION ledger_on_folio_charge(c folio_charges)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_post(c.booking_id, '', 'charge_added', c.kind, 'sales', 'extras', c.amount, c.currency,
        'charge-' || c.id, NULL, c.added_by, c.added_at);
    IF c.voided_at IS NOT NULL THEN
        PERFORM ledger_post(c.booking_id, '', 'charge_voided', c.kind, 'extras', 'sales', c.amount, c.currency,
            'charge-' || c.id, NULL, c.voided_by, c.voided_at);
    END IF;
END
$$;
