-- +goose Up

-- The money ledger: every movement and every promise of a booking's money, one row each, never
-- updated or deleted (a correction is a new entry). Each entry moves amount from one account
-- (debit) to another (credit) of the same payment, so the sum of every account of a payment is
-- zero by construction; a balance is what came into an account less what left it. The accounts
-- and the kinds of entry are described in docs/payments-and-refunds.md ("The ledger").
--
-- The entries are posted by triggers on the tables each money path writes (payments, refunds,
-- staff_refunds, booking_amendments, price_changes, bookings), in the transaction of the change:
-- no path can move money without its entry. Their functions, and the triggers, are defined in
-- db/functions/ledger.sql, applied after the migrations; the entries of the rows written before
-- this migration are posted once by db.Migrate (backfillLedger), which sets backfilled_at.
CREATE TABLE money_ledger (
    id         bigserial   PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    booking_id text        NOT NULL,
    -- payment_id is the payment whose money moves; '' for a promise (a price, a balance due).
    payment_id text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('captured', 'kept', 'refund_asked', 'attempt_sent',
        'refund_succeeded', 'refund_failed', 'settled_by_hand', 'price_set', 'balance_due', 'balance_lapsed')),
    -- cause says why a refund was asked: cancel, amendment, goodwill, early_departure, reversal,
    -- extra (money the booking does not keep), manual (settled by hand by finance).
    cause      text,
    debit      text        NOT NULL,
    credit     text        NOT NULL CHECK (credit <> debit),
    amount     bigint      NOT NULL CHECK (amount > 0),
    currency   text        NOT NULL,
    -- ref names the fact the entry records (a payment, a refund attempt, a staff refund's part, an
    -- amendment): each fact is posted once.
    ref        text        NOT NULL,
    method     text,
    actor      text,
    UNIQUE (kind, ref)
);
CREATE INDEX money_ledger_booking ON money_ledger (booking_id, id);
CREATE INDEX money_ledger_payment ON money_ledger (payment_id, id) WHERE payment_id <> '';
CREATE INDEX money_ledger_at ON money_ledger (at);

-- Exactly one outcome per refund attempt.
CREATE UNIQUE INDEX money_ledger_one_outcome ON money_ledger (ref)
    WHERE kind IN ('refund_succeeded', 'refund_failed', 'settled_by_hand');

-- What each account of a payment holds: the sum of its entries, kept by ledger_post with each
-- entry (as TigerBeetle keeps an account's posted debits and credits), so a balance is read
-- without summing the entries, and the checker scans balances, not the ledger.
CREATE TABLE money_balances (
    payment_id text   NOT NULL,
    account    text   NOT NULL,
    booking_id text   NOT NULL,
    balance    bigint NOT NULL,
    PRIMARY KEY (payment_id, account)
);
CREATE INDEX money_balances_below_zero ON money_balances (booking_id) WHERE balance < 0
    AND account IN ('received', 'kept', 'owed', 'refunding');

-- Set once the entries of the rows written before the ledger existed are posted.
CREATE TABLE money_ledger_backfill (
    one           boolean PRIMARY KEY DEFAULT true CHECK (one),
    backfilled_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE money_balances;
DROP TRIGGER IF EXISTS ledger_payment ON payments;
DROP TRIGGER IF EXISTS ledger_booking ON bookings;
DROP TRIGGER IF EXISTS ledger_amendment ON booking_amendments;
DROP TRIGGER IF EXISTS ledger_staff_refund ON staff_refunds;
DROP TRIGGER IF EXISTS ledger_price_change ON price_changes;
DROP TRIGGER IF EXISTS ledger_refund ON refunds;
-- Their names since ledger_install_triggers made them fire first on their tables.
DROP TRIGGER IF EXISTS _ledger_payment ON payments;
DROP TRIGGER IF EXISTS _ledger_booking ON bookings;
DROP TRIGGER IF EXISTS _ledger_amendment ON booking_amendments;
DROP TRIGGER IF EXISTS _ledger_staff_refund ON staff_refunds;
DROP TRIGGER IF EXISTS _ledger_price_change ON price_changes;
DROP TRIGGER IF EXISTS _ledger_refund ON refunds;
DROP TABLE money_ledger_backfill;
DROP TABLE money_ledger;
