-- +goose Up

-- A site's country (issue 39): ISO 3166-1 alpha-2, upper case, or NULL when not given. The front
-- desk types phone numbers as the site's guests say them: a national number ("06 30 123 4567")
-- is read in the site's country (domain.NormalisePhone); without a country only international
-- numbers are accepted. Nullable, no default: no rewrite of the tables. IF NOT EXISTS: the
-- upgrade tests add it to an old schema first (db.MigrateToForTodaysStore).
ALTER TABLE hotels ADD COLUMN IF NOT EXISTS country text CHECK (country ~ '^[A-Z]{2}$');
ALTER TABLE venues ADD COLUMN IF NOT EXISTS country text CHECK (country ~ '^[A-Z]{2}$');

-- +goose Down
ALTER TABLE venues DROP COLUMN country;
ALTER TABLE hotels DROP COLUMN country;
