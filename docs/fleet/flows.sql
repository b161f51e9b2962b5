-- The fleet table: every flow of every capture, from the NDJSON that
-- `tcpdiag --format json` wrote (one file per capture or per batch, any number),
-- and beside it one status row per capture file and one row per exchange (a request
-- and its response) of every flow.
-- Columns are the plugin's field names; per-direction fields sit in the structs
-- c2s and s2c (fwd and rev for flows whose roles are unknown), e.g.
-- s2c."tcpdiag.cc.reaction". DuckDB infers the columns from the data: reading
-- every line (sample_size = -1) and joining the files by name lets a field that
-- only some flows carry still become a column.
CREATE OR REPLACE VIEW records AS
SELECT * FROM read_json_auto('tcpdiag-*.ndjson', union_by_name = true, sample_size = -1);

-- The column map: every column a shipped query names, with its type, so that the
-- queries run on any set of captures, also one where no flow carries the field
-- (no host stall, no offload verdict, no flow with known roles). A column the data
-- lacks is added as NULL; a struct gains the members it lacks. Add the columns
-- your own queries need.
CREATE OR REPLACE VIEW flow_columns AS
SELECT NULL::VARCHAR AS file,
       NULL::BIGINT AS "tcp.stream",
       NULL::VARCHAR AS "tcpdiag.flow.roles",
       NULL::VARCHAR AS "tcpdiag.flow.client",
       NULL::VARCHAR AS "tcpdiag.flow.server",
       NULL::VARCHAR AS "tcpdiag.ecn.outcome",
       NULL::VARCHAR AS "tcpdiag.diag.cause",
       NULL::VARCHAR AS "tcpdiag.host.stall",
       NULL::DOUBLE AS "tcpdiag.host.stall_duration",
       NULL::BIGINT AS "tcpdiag.host.stall_flows_active",
       NULL::STRUCT("tcpdiag.cc.algorithm" VARCHAR, "tcpdiag.cc.reaction" VARCHAR,
                    "tcpdiag.offload.verdict" VARCHAR) AS c2s,
       NULL::STRUCT("tcpdiag.cc.algorithm" VARCHAR, "tcpdiag.cc.reaction" VARCHAR,
                    "tcpdiag.offload.verdict" VARCHAR) AS s2c
WHERE false;

CREATE OR REPLACE VIEW flows AS
(SELECT COLUMNS(lambda c: c <> 'record' AND NOT starts_with(c, 'file.') AND NOT starts_with(c, 'tcpdiag.exchange.'))
 FROM records WHERE record = 'flow')
UNION ALL BY NAME
(SELECT * FROM flow_columns);

-- One row per capture file: how it was read (file.status read, cut-short or
-- unreadable; file.error), its frames, TCP segments, flows, and the packets
-- skipped by reason.
CREATE OR REPLACE VIEW file_columns AS
SELECT NULL::VARCHAR AS file, NULL::VARCHAR AS "file.status", NULL::VARCHAR AS "file.error",
       NULL::VARCHAR AS "file.undecoded_link_type"
WHERE false;

CREATE OR REPLACE VIEW files AS
(SELECT COLUMNS(lambda c: c = 'file' OR starts_with(c, 'file.')) FROM records WHERE record = 'file')
UNION ALL BY NAME
(SELECT * FROM file_columns);

-- One row per exchange: a request and its response, or a one-way transfer (tcpdiag(1),
-- docs/fields.md, tcpdiag.exchange.*). file and tcp.stream join it to its flow in
-- `flows`, and tcpdiag.flow.community_id to other tools' logs; times are seconds.
-- Every column is listed, so that the view has them all on any set of captures.
CREATE OR REPLACE VIEW exchange_columns AS
SELECT NULL::VARCHAR AS file,
       NULL::BIGINT AS "tcp.stream",
       NULL::VARCHAR AS "tcpdiag.flow.community_id",
       NULL::BIGINT AS "tcpdiag.exchange.index",
       NULL::BIGINT AS "tcpdiag.exchange.frame",
       NULL::BIGINT AS "tcpdiag.exchange.bytes_c2s",
       NULL::BIGINT AS "tcpdiag.exchange.bytes_s2c",
       NULL::DOUBLE AS "tcpdiag.exchange.active",
       NULL::DOUBLE AS "tcpdiag.exchange.client_time",
       NULL::DOUBLE AS "tcpdiag.exchange.server_time",
       NULL::DOUBLE AS "tcpdiag.exchange.transfer",
       NULL::DOUBLE AS "tcpdiag.exchange.stall",
       NULL::DOUBLE AS "tcpdiag.exchange.think"
WHERE false;

CREATE OR REPLACE VIEW exchanges AS
(SELECT COLUMNS(lambda c: c IN ('file', 'tcp.stream', 'tcpdiag.flow.community_id')
                          OR starts_with(c, 'tcpdiag.exchange.'))
 FROM records WHERE record = 'exchange')
UNION ALL BY NAME
(SELECT * FROM exchange_columns);
