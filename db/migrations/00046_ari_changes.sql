-- +goose Up

-- The ARI change log (issue 35, docs/rates-and-restrictions.md "For channel managers: ARI"): what
-- a channel manager polls with a cursor. The availability outbox cannot hold a cursor (the cache
-- relay deletes its rows), so every write that changes what the ARI export answers adds a row
-- here, in its own transaction, from the AFTER triggers below: one row per statement, room type
-- (and plan) and kind, covering the dates it touched, not one per night.
-- xid is the writer's transaction: the feed serves rows in (xid, id) order and only those of
-- transactions older than every transaction still in flight (pg_snapshot_xmin), so a change
-- committed late, with a lower id, is never passed over (bigserial ids commit out of order).
CREATE TABLE ari_changes (
    id         bigserial   PRIMARY KEY,
    xid        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    hotel_id   text        NOT NULL,
    room_type  text,          -- NULL: every room type
    rate_plan  text,          -- NULL: every plan
    from_date  date,          -- [from_date, to_date); NULL: open
    to_date    date,
    kind       text        NOT NULL CHECK (kind IN ('availability', 'rate', 'restriction', 'plan')),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ari_changes_feed ON ari_changes (hotel_id, xid, id);
CREATE INDEX ari_changes_age ON ari_changes (created_at);

-- The newest position the retention deleted per hotel: a cursor before it may have missed a
-- change (the feed answers 410 Gone: export again).
CREATE TABLE ari_changes_pruned (
    hotel_id text   PRIMARY KEY,
    xid      xid8   NOT NULL,
    id       bigint NOT NULL
);

-- The rows a statement touched, for the functions below: the new ones of an INSERT, the old ones
-- of a DELETE, both of an UPDATE (a row's dates or scope before and after). Transition tables are
-- named per event, so a function serving several events reads them through dynamic SQL.
-- +goose StatementBegin
CREATE FUNCTION ari_touched_rows(op text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE op WHEN 'INSERT' THEN 'new_rows' WHEN 'DELETE' THEN 'old_rows'
        ELSE '(SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows)' END
$$;
-- +goose StatementEnd

-- Inventory: counts (availability) and prices (rate) of hotel room types; a venue's units have
-- no hotel and are left out. Nights start at 00:00, so unit_start::date is the night. An UPDATE
-- (every hold, release and rate write) is static SQL, planned once per session.
-- +goose StatementBegin
CREATE FUNCTION ari_record_inventory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        INSERT INTO ari_changes (hotel_id, room_type, from_date, to_date, kind)
        SELECT r.hotel_id, r.code, min(n.unit_start)::date, max(n.unit_start)::date + 1, k.kind
        FROM new_rows n JOIN old_rows o ON o.resource_id = n.resource_id AND o.unit_start = n.unit_start
        JOIN resources r ON r.id = n.resource_id AND r.hotel_id IS NOT NULL
        CROSS JOIN LATERAL (VALUES
            ('availability', n.total IS DISTINCT FROM o.total OR n.reserved <> o.reserved OR n.blocked <> o.blocked
                OR (n.closed_at IS NULL) <> (o.closed_at IS NULL)),
            ('rate', n.rate IS DISTINCT FROM o.rate OR n.currency IS DISTINCT FROM o.currency OR n.free <> o.free)) k(kind, changed)
        WHERE k.changed
        GROUP BY r.hotel_id, r.code, k.kind;
    ELSE
        EXECUTE format($q$INSERT INTO ari_changes (hotel_id, room_type, from_date, to_date, kind)
            SELECT r.hotel_id, r.code, min(x.unit_start)::date, max(x.unit_start)::date + 1, k.kind
            FROM %s x JOIN resources r ON r.id = x.resource_id AND r.hotel_id IS NOT NULL
            CROSS JOIN (VALUES ('availability'), ('rate')) k(kind)
            GROUP BY r.hotel_id, r.code, k.kind$q$, ari_touched_rows(TG_OP));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- A night split between channels leaves the direct sale what their allocations do not hold; a
-- channel's sale from its allocation (used) moves inventory.reserved too, which records it.
-- +goose StatementBegin
CREATE FUNCTION ari_record_allocations() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    touched text := ari_touched_rows(TG_OP);
BEGIN
    IF TG_OP = 'UPDATE' THEN
        touched := '(SELECT n.* FROM new_rows n JOIN old_rows o ON o.resource_id = n.resource_id
            AND o.unit_start = n.unit_start AND o.channel_id = n.channel_id AND o.agent_id IS NOT DISTINCT FROM n.agent_id
            WHERE o.allotted <> n.allotted)';
    END IF;
    EXECUTE format($q$INSERT INTO ari_changes (hotel_id, room_type, from_date, to_date, kind)
        SELECT r.hotel_id, r.code, min(x.unit_start)::date, max(x.unit_start)::date + 1, 'availability'
        FROM %s x JOIN resources r ON r.id = x.resource_id AND r.hotel_id IS NOT NULL
        GROUP BY r.hotel_id, r.code$q$, touched);
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- A plan's own rates move it and every plan derived from it.
-- +goose StatementBegin
CREATE FUNCTION ari_record_plan_rates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$INSERT INTO ari_changes (hotel_id, room_type, rate_plan, from_date, to_date, kind)
        WITH RECURSIVE moved AS (
            SELECT x.hotel_id, x.plan_code, r.code, min(x.unit_start)::date AS from_date,
                max(x.unit_start)::date + 1 AS to_date
            FROM %s x JOIN resources r ON r.id = x.resource_id
            GROUP BY x.hotel_id, x.plan_code, r.code
            UNION SELECT p.hotel_id, p.code, m.code, m.from_date, m.to_date
            FROM moved m JOIN rate_plans p ON p.hotel_id = m.hotel_id AND p.parent = m.plan_code)
        SELECT hotel_id, code, plan_code, from_date, to_date, 'rate' FROM moved$q$, ari_touched_rows(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Restrictions are sale rules of direct sales (no channel, no agent) of the kinds the export
-- shows: a rule's dates before and after a write, per room type and plan (NULL: every one). An
-- open end stays open.
-- +goose StatementBegin
CREATE FUNCTION ari_record_sale_rules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$INSERT INTO ari_changes (hotel_id, room_type, rate_plan, from_date, to_date, kind)
        SELECT x.hotel_id, x.room_type, x.rate_plan,
            CASE WHEN bool_or(x.from_date IS NULL) THEN NULL ELSE min(x.from_date) END,
            CASE WHEN bool_or(x.to_date IS NULL) THEN NULL ELSE max(x.to_date) END, 'restriction'
        FROM %s x
        WHERE x.channel_id IS NULL AND x.agent_id IS NULL AND x.kind IN ('stop_sell', 'closed_to_arrival',
            'closed_to_departure', 'stay_through', 'arrival_advance', 'length_of_stay')
        GROUP BY x.hotel_id, x.room_type, x.rate_plan$q$, ari_touched_rows(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- A plan's terms, room types or derivation: it and every plan derived from it, on every date.
-- +goose StatementBegin
CREATE FUNCTION ari_record_rate_plans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$INSERT INTO ari_changes (hotel_id, rate_plan, kind)
        WITH RECURSIVE moved AS (
            SELECT x.hotel_id, x.code FROM %s x
            UNION SELECT p.hotel_id, p.code FROM moved m JOIN rate_plans p ON p.hotel_id = m.hotel_id AND p.parent = m.code)
        SELECT hotel_id, code, 'plan' FROM moved$q$, ari_touched_rows(TG_OP));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Transition tables need one trigger per event (PostgreSQL allows no event list nor column list
-- with them); the functions tell the events apart by TG_OP.
CREATE TRIGGER ari_inventory_insert AFTER INSERT ON inventory REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_inventory();
CREATE TRIGGER ari_inventory_update AFTER UPDATE ON inventory REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_inventory();
CREATE TRIGGER ari_inventory_delete AFTER DELETE ON inventory REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_inventory();
CREATE TRIGGER ari_allocations_insert AFTER INSERT ON allocations REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_allocations();
CREATE TRIGGER ari_allocations_update AFTER UPDATE ON allocations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_allocations();
CREATE TRIGGER ari_allocations_delete AFTER DELETE ON allocations REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_allocations();
CREATE TRIGGER ari_plan_rates_insert AFTER INSERT ON plan_rates REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_plan_rates();
CREATE TRIGGER ari_plan_rates_update AFTER UPDATE ON plan_rates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_plan_rates();
CREATE TRIGGER ari_plan_rates_delete AFTER DELETE ON plan_rates REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_plan_rates();
CREATE TRIGGER ari_sale_rules_insert AFTER INSERT ON sale_rules REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_sale_rules();
CREATE TRIGGER ari_sale_rules_update AFTER UPDATE ON sale_rules REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_sale_rules();
CREATE TRIGGER ari_sale_rules_delete AFTER DELETE ON sale_rules REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_sale_rules();
CREATE TRIGGER ari_rate_plans_insert AFTER INSERT ON rate_plans REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_rate_plans();
CREATE TRIGGER ari_rate_plans_update AFTER UPDATE ON rate_plans REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_rate_plans();
CREATE TRIGGER ari_rate_plans_delete AFTER DELETE ON rate_plans REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ari_record_rate_plans();

-- +goose Down
DROP TRIGGER ari_rate_plans_delete ON rate_plans;
DROP TRIGGER ari_rate_plans_update ON rate_plans;
DROP TRIGGER ari_rate_plans_insert ON rate_plans;
DROP TRIGGER ari_sale_rules_delete ON sale_rules;
DROP TRIGGER ari_sale_rules_update ON sale_rules;
DROP TRIGGER ari_sale_rules_insert ON sale_rules;
DROP TRIGGER ari_plan_rates_delete ON plan_rates;
DROP TRIGGER ari_plan_rates_update ON plan_rates;
DROP TRIGGER ari_plan_rates_insert ON plan_rates;
DROP TRIGGER ari_allocations_delete ON allocations;
DROP TRIGGER ari_allocations_update ON allocations;
DROP TRIGGER ari_allocations_insert ON allocations;
DROP TRIGGER ari_inventory_delete ON inventory;
DROP TRIGGER ari_inventory_update ON inventory;
DROP TRIGGER ari_inventory_insert ON inventory;
DROP FUNCTION ari_record_rate_plans();
DROP FUNCTION ari_record_sale_rules();
DROP FUNCTION ari_record_plan_rates();
DROP FUNCTION ari_record_allocations();
DROP FUNCTION ari_record_inventory();
DROP FUNCTION ari_touched_rows(text);
DROP TABLE ari_changes_pruned;
DROP TABLE ari_changes;
