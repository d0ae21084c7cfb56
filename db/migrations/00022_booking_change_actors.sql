-- +goose Up

-- Who or what caused each booking state change: a transaction acting for someone names them with
-- set_config('bookflow.actor', ...) (the token's subject for a person, `system:<step>` for the
-- workflow's own steps); a booking made, or refused, by its request is its creator's.
ALTER TABLE booking_changes ADD COLUMN actor text;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_booking_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    actor text := NULLIF(current_setting('bookflow.actor', true), '');
BEGIN
    IF actor IS NULL AND (TG_OP = 'INSERT' OR NEW.status = 'REJECTED') THEN
        actor := NEW.created_by;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO booking_changes (booking_id, to_status, actor) VALUES (NEW.id, NEW.status, actor);
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO booking_changes (booking_id, from_status, to_status, actor) VALUES (NEW.id, OLD.status, NEW.status, actor);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_booking_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO booking_changes (booking_id, to_status) VALUES (NEW.id, NEW.status);
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO booking_changes (booking_id, from_status, to_status) VALUES (NEW.id, OLD.status, NEW.status);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
ALTER TABLE booking_changes DROP COLUMN actor;
