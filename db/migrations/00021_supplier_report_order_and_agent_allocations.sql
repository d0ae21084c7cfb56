-- +goose Up

-- Supplier stock reports are applied in the order the supplier read them, night by night:
-- reported_at is the report time (the supplier's reportedAt, or bookflow's own stand-in) of the
-- report that last set the night. A report no newer than it leaves the night alone. NULL: set by
-- hand, or before reports had times; any report may write it.
ALTER TABLE inventory ADD COLUMN reported_at timestamptz;

-- The signed pushes accepted lately, by the digest of their signed timestamp and body: a push
-- replayed within the signature's tolerance is refused. Rows older than the tolerance are
-- pruned as pushes arrive.
CREATE TABLE supplier_pushes (
    supplier_id text        NOT NULL REFERENCES suppliers (id),
    digest      text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (supplier_id, digest)
);

-- +goose Down
DROP TABLE supplier_pushes;
ALTER TABLE inventory DROP COLUMN reported_at;
