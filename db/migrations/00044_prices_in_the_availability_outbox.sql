-- +goose Up

-- A night's price is cached with what is left of it (issue 35: searches answer offers per rate
-- plan from the cache), so a change of a room type's rate, or of a plan's own rate, goes through
-- the availability outbox like a change of its counts. Derived plans are priced from these at
-- read time: a parent's change moves its children without a row of their own.
-- +goose StatementBegin
CREATE FUNCTION record_price_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO availability_outbox (resource_id, unit_start)
    VALUES (COALESCE(NEW.resource_id, OLD.resource_id), COALESCE(NEW.unit_start, OLD.unit_start));
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER inventory_record_price_change AFTER UPDATE OF rate, currency, free ON inventory
    FOR EACH ROW WHEN (OLD.rate IS DISTINCT FROM NEW.rate OR OLD.currency IS DISTINCT FROM NEW.currency
        OR OLD.free IS DISTINCT FROM NEW.free)
    EXECUTE FUNCTION record_price_change();

CREATE TRIGGER plan_rates_record_price_change AFTER INSERT OR DELETE OR UPDATE OF rate, currency ON plan_rates
    FOR EACH ROW EXECUTE FUNCTION record_price_change();

-- A night's plan rates are read by night (a search's nights, a relayed unit): the key leads by
-- plan, so without this each night read scanned every plan's rates of its room type.
CREATE INDEX plan_rates_night ON plan_rates (resource_id, unit_start);

-- +goose Down
DROP INDEX plan_rates_night;
DROP TRIGGER plan_rates_record_price_change ON plan_rates;
DROP TRIGGER inventory_record_price_change ON inventory;
DROP FUNCTION record_price_change();
