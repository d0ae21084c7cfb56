-- +goose Up

-- What each run of the invariant checker found and repaired (bookflow check, and its hourly
-- schedule).
CREATE TABLE invariant_checks (
    id          bigserial PRIMARY KEY,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT now(),
    repair      boolean     NOT NULL,
    findings    jsonb       NOT NULL
);

-- +goose Down
DROP TABLE invariant_checks;
