-- ledger_install_triggers: (re)creates the triggers that post the money ledger's entries from
-- the tables each money path writes, the one that keeps it append-only, and the one that keeps a
-- refund attempt's outcome final. db.Migrate calls it after the functions are applied (a trigger
-- needs its function to exist; these functions are defined only in db/functions). CREATE OR
-- REPLACE TRIGGER makes a second call change nothing.
--
-- Their names begin with an underscore so they fire before every other AFTER ROW trigger of
-- their tables (PostgreSQL fires a table's triggers of one timing in name order, and "_" sorts
-- before every letter): a transaction takes a booking's money (ledger_post locks its
-- money_kept_by_booking row) before its events' lock ('booking-events:<id>', taken by the
-- *_queue_event triggers, 00032), the one lock order on every table, so an amendment and a
-- refund's webhook of one booking never deadlock. Named ledger_* before; those are dropped.
CREATE OR REPLACE FUNCTION ledger_install_triggers()
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DROP TRIGGER IF EXISTS ledger_payment ON payments;
    DROP TRIGGER IF EXISTS ledger_booking ON bookings;
    DROP TRIGGER IF EXISTS ledger_amendment ON booking_amendments;
    DROP TRIGGER IF EXISTS ledger_channel_amendment ON booking_amendments;
    DROP TRIGGER IF EXISTS ledger_staff_refund ON staff_refunds;
    DROP TRIGGER IF EXISTS ledger_price_change ON price_changes;
    DROP TRIGGER IF EXISTS ledger_refund ON refunds;
    CREATE OR REPLACE TRIGGER _ledger_payment AFTER INSERT OR UPDATE OF status ON payments
        FOR EACH ROW EXECUTE FUNCTION ledger_after_payment();
    CREATE OR REPLACE TRIGGER _ledger_booking AFTER UPDATE OF payment_id, status, paid ON bookings
        FOR EACH ROW EXECUTE FUNCTION ledger_after_booking();
    CREATE OR REPLACE TRIGGER _ledger_amendment AFTER INSERT OR UPDATE OF status, balance_payment_id ON booking_amendments
        FOR EACH ROW EXECUTE FUNCTION ledger_after_amendment();
    CREATE OR REPLACE TRIGGER _ledger_channel_amendment AFTER INSERT OR UPDATE OF status ON booking_amendments
        FOR EACH ROW EXECUTE FUNCTION ledger_after_channel_amendment();
    CREATE OR REPLACE TRIGGER _ledger_staff_refund AFTER INSERT ON staff_refunds
        FOR EACH ROW EXECUTE FUNCTION ledger_after_staff_refund();
    CREATE OR REPLACE TRIGGER _ledger_price_change AFTER INSERT ON price_changes
        FOR EACH ROW EXECUTE FUNCTION ledger_after_price_change();
    CREATE OR REPLACE TRIGGER _ledger_folio_charge AFTER INSERT OR UPDATE OF voided_at ON folio_charges
        FOR EACH ROW EXECUTE FUNCTION ledger_after_folio_charge();
    CREATE OR REPLACE TRIGGER _ledger_refund AFTER INSERT OR UPDATE OF status ON refunds
        FOR EACH ROW EXECUTE FUNCTION ledger_after_refund();
    CREATE OR REPLACE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON money_ledger
        FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
    CREATE OR REPLACE TRIGGER _ledger_refund_outcome_final BEFORE UPDATE OF status, amount, payment_id ON refunds
        FOR EACH ROW WHEN (OLD.status IN ('succeeded', 'failed')
            AND (NEW.status, NEW.amount, NEW.payment_id) IS DISTINCT FROM (OLD.status, OLD.amount, OLD.payment_id))
        EXECUTE FUNCTION ledger_refund_outcome_final();
END
$$;
