-- +goose Up

-- Late arrivals (issue 39): the front desk records that a venue booking's guest came after the
-- booking began. The booking stays as it is (no workflow hears of it); the grid shows how late.
-- One row a booking, the last recorded; the audit log keeps each. No personal data: an erasure
-- leaves it.
CREATE TABLE IF NOT EXISTS booking_late_arrivals (
    booking_id   text PRIMARY KEY REFERENCES bookings (id),
    arrived_at   timestamptz NOT NULL,
    minutes_late integer NOT NULL CHECK (minutes_late >= 1),
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    recorded_by  text NOT NULL DEFAULT ''
);

-- +goose Down
DROP TABLE booking_late_arrivals;
