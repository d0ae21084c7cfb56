-- +goose Up

-- A staff refund asked by someone who is not the booking's desk (finance, issue 39 defect 1):
-- what it gives back at the desk waits there until someone hands it over, whichever workflow asks
-- its parts (the one that recorded it, a resumed one, the StaffRefund workflow). Kept with the
-- refund so that the database, not the request that happens to ask a part, decides. A constant
-- default: no rewrite of the table; the previous release's rows and writes are the desk's.
ALTER TABLE staff_refunds ADD COLUMN IF NOT EXISTS away_from_desk boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE staff_refunds DROP COLUMN away_from_desk;
