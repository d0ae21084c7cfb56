-- +goose Up

-- Correctly signed webhook events bookflow can never act on (no booking id, no amount, an
-- unreadable object). They are acknowledged to the provider, so it stops sending them, and kept
-- here for an operator; none of them is lost silently.
CREATE TABLE unprocessable_events (
    event_id    text PRIMARY KEY,
    type        text        NOT NULL,
    problem     text        NOT NULL,
    payload     jsonb       NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE unprocessable_events;
