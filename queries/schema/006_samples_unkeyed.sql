-- 006_samples_unkeyed: samples without the (series_id, ts) primary key.
-- Keeping that ART index up to date cost a bulk pull ~5× its other write work; uniqueness is
-- kept by the only write path instead (queries/write/samples_insert.sql skips any (series, ts)
-- already stored, under the store's single-writer lock), so re-pulling stays idempotent.
CREATE TABLE samples_unkeyed (
    series_id   BIGINT NOT NULL,
    ts          TIMESTAMP NOT NULL,  -- UTC
    value       DOUBLE NOT NULL
);
INSERT INTO samples_unkeyed SELECT series_id, ts, value FROM samples ORDER BY series_id, ts;
DROP TABLE samples;
ALTER TABLE samples_unkeyed RENAME TO samples;
