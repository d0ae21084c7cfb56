-- +goose Up

-- The staff console's server-side sessions (github.com/alexedwards/scs/pgxstore's table): the
-- browser holds only the token; signing out deletes the row, so the cookie opens nothing after.
CREATE TABLE sessions (
    token  text PRIMARY KEY,
    data   bytea       NOT NULL,
    expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- +goose Down
DROP TABLE sessions;
