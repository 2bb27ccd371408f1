-- rollups_off: point the entry-point macros at their raw_ twins, which read every sample (a
-- Parquet source has no blocks; the tests and the benchmark's baseline compare both paths).
-- Params: none.
CREATE OR REPLACE MACRO window_increases(names, t_start, t_end, step_s) AS TABLE
SELECT * FROM raw_window_increases(names, t_start, t_end, step_s);
CREATE OR REPLACE MACRO window_last(names, t_start, t_end, step_s) AS TABLE
SELECT * FROM raw_window_last(names, t_start, t_end, step_s);
CREATE OR REPLACE MACRO sample_bounds() AS TABLE SELECT * FROM raw_sample_bounds();
CREATE OR REPLACE MACRO series_last_ts(names) AS TABLE SELECT * FROM raw_series_last_ts(names);
CREATE OR REPLACE MACRO scrape_gaps(names, t_start, t_end) AS TABLE
SELECT * FROM raw_scrape_gaps(names, t_start, t_end);
CREATE OR REPLACE MACRO counter_drops(names, t_start, t_end) AS TABLE
SELECT * FROM raw_counter_drops(names, t_start, t_end);
CREATE OR REPLACE MACRO range_pieces(lists, t_start, t_end) AS TABLE
SELECT * FROM raw_range_pieces(lists, t_start, t_end);
