-- A search: every room type of a random hotel over 3 nights, as db.Availability reads it.
\set h random(0, :nh - 1)
SELECT r.code, d, CASE WHEN i.unit_start IS NULL OR i.closed_at IS NOT NULL THEN 0 WHEN i.total IS NULL THEN 1000000000 ELSE i.total - i.reserved END
FROM resources r CROSS JOIN generate_series((current_date + 30)::timestamp, (current_date + 32)::timestamp, interval '1 day') d
LEFT JOIN LATERAL (SELECT * FROM inventory x WHERE x.resource_id = r.id AND x.unit_start = d LIMIT 1) i ON true
WHERE r.hotel_id = 'scale-' || :h ORDER BY r.code, d;
