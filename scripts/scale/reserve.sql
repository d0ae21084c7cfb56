-- A reservation's lock and update of 3 nights of a random hotel's room type.
\set h random(0, :nh - 1)
BEGIN;
SELECT 1 FROM inventory i JOIN resources r ON r.id = i.resource_id
 WHERE r.hotel_id = 'scale-' || :h AND r.code = 'rt1' AND i.unit_start >= current_date + 30 AND i.unit_start < current_date + 33
 ORDER BY i.resource_id, i.unit_start FOR UPDATE OF i;
UPDATE inventory i SET reserved = reserved + 1 FROM resources r WHERE r.id = i.resource_id AND r.hotel_id = 'scale-' || :h
 AND r.code = 'rt1' AND i.unit_start >= current_date + 30 AND i.unit_start < current_date + 33 AND i.total - i.reserved >= 1;
COMMIT;
