-- rollups_on: point the entry-point macros at the block readers (migrations 009, 010 and 011 do).
-- Params: none.
CREATE OR REPLACE MACRO window_increases(names, t_start, t_end, step_s) AS TABLE
SELECT * FROM block_window_increases(names, t_start, t_end, step_s, edge_level(t_start, t_end, step_s));
CREATE OR REPLACE MACRO window_last(names, t_start, t_end, step_s) AS TABLE
SELECT * FROM block_window_last(names, t_start, t_end, step_s, edge_level(t_start, t_end, step_s));
CREATE OR REPLACE MACRO sample_bounds() AS TABLE SELECT * FROM block_sample_bounds();
CREATE OR REPLACE MACRO series_last_ts(names) AS TABLE SELECT * FROM block_series_last_ts(names);
CREATE OR REPLACE MACRO scrape_gaps(names, t_start, t_end) AS TABLE
SELECT * FROM block_scrape_gaps(names, t_start, t_end, edge_level(t_start, t_end, NULL));
CREATE OR REPLACE MACRO counter_drops(names, t_start, t_end) AS TABLE
SELECT * FROM block_counter_drops(names, t_start, t_end, edge_level(t_start, t_end, NULL));
CREATE OR REPLACE MACRO range_pieces(lists, t_start, t_end) AS TABLE
SELECT * FROM block_range_pieces(lists, t_start, t_end, edge_level(t_start, t_end, NULL));
