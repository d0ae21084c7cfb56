-- ledger_install_triggers: (re)creates the triggers that post the money ledger's entries from
-- the tables each money path writes, and the one that keeps it append-only. db.Migrate calls it
-- after the functions are applied (a trigger needs its function to exist; these functions are
-- defined only in db/functions). CREATE OR REPLACE TRIGGER makes a second call change nothing.
CREATE OR REPLACE FUNCTION ledger_install_triggers()
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    CREATE OR REPLACE TRIGGER ledger_payment AFTER INSERT OR UPDATE OF status ON payments
        FOR EACH ROW EXECUTE FUNCTION ledger_after_payment();
    CREATE OR REPLACE TRIGGER ledger_booking AFTER UPDATE OF payment_id, status ON bookings
        FOR EACH ROW EXECUTE FUNCTION ledger_after_booking();
    CREATE OR REPLACE TRIGGER ledger_amendment AFTER INSERT OR UPDATE OF status, balance_payment_id ON booking_amendments
        FOR EACH ROW EXECUTE FUNCTION ledger_after_amendment();
    CREATE OR REPLACE TRIGGER ledger_channel_amendment AFTER INSERT OR UPDATE OF status ON booking_amendments
        FOR EACH ROW EXECUTE FUNCTION ledger_after_channel_amendment();
    CREATE OR REPLACE TRIGGER ledger_staff_refund AFTER INSERT ON staff_refunds
        FOR EACH ROW EXECUTE FUNCTION ledger_after_staff_refund();
    CREATE OR REPLACE TRIGGER ledger_price_change AFTER INSERT ON price_changes
        FOR EACH ROW EXECUTE FUNCTION ledger_after_price_change();
    CREATE OR REPLACE TRIGGER ledger_refund AFTER INSERT OR UPDATE OF status ON refunds
        FOR EACH ROW EXECUTE FUNCTION ledger_after_refund();
    CREATE OR REPLACE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON money_ledger
        FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
END
$$;
