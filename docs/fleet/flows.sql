-- The fleet table: every flow of every capture, from the NDJSON that
-- `tcpdiag --format json` wrote (one file per capture or per batch, any number).
-- Columns are the plugin's field names; per-direction fields sit in the structs
-- c2s and s2c (fwd and rev for flows whose roles are unknown), e.g.
-- s2c."tcpdiag.cc.reaction". DuckDB infers the columns from the data: reading
-- every line (sample_size = -1) and joining the files by name lets a field that
-- only some flows carry still become a column.
CREATE OR REPLACE VIEW flows AS
SELECT * FROM read_json_auto('tcpdiag-*.ndjson', union_by_name = true, sample_size = -1);
