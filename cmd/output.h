/* What the command prints for an analysed capture: the reports tshark prints for
 * -z tcpdiag,diagnosis and -z tcpdiag,flows, or one record per flow (NDJSON, CSV,
 * or Elasticsearch/OpenSearch bulk lines as tshark -T ek writes them). */
#ifndef TCPDIAG_CMD_OUTPUT_H
#define TCPDIAG_CMD_OUTPUT_H

#include <glib.h>
#include "capture.h"

typedef enum td_format {
    TD_FORMAT_TEXT,
    TD_FORMAT_JSON,
    TD_FORMAT_CSV,
    TD_FORMAT_EK,
} td_format;

/* "text", "json", "csv", "ek"; false when the name is none of them. */
bool td_format_parse(const char *name, td_format *format);

/* Which flows an output shows. */
typedef enum td_flows_shown {
    TD_SHOW_ALL,            /* every flow (json, csv and ek by default; text with --flows) */
    TD_SHOW_WITH_CAUSE,     /* every flow whose cause is not none (the text table by default) */
    TD_SHOW_SLOW,           /* only flows with a known cause: neither none nor unknown (--slow) */
} td_flows_shown;

/* Whether a flow of c is shown under shown. */
bool td_output_shows(const td_capture *c, const td_flow *flow, td_flows_shown shown);

/* Where a capture's flow records go: appended to out, which is handed to drain (when
 * not NULL) and emptied each time it holds a chunk, so that the records leave as they
 * are made rather than sitting whole in memory (1.2 GB of JSON for a million-flow SYN
 * flood). Without a drain, out keeps them all. */
typedef struct td_records {
    GString *out;
    void (*drain)(const GString *chunk);
    struct collector *exchanges;    /* output.c's, for the exchange records: NULL until the first */
} td_records;

/* Hands what out holds to the drain, if there is one (the end of a capture's records). */
void td_records_flush(td_records *records);
/* What the records kept to write them (not out). */
void td_records_free(td_records *records);

/* Appends a capture's text report. */
void td_output_text(const td_capture *c, td_flows_shown shown, GString *out);
/* Adds a capture's flow records in format (json, ek or csv), those of the flows that
 * settled before the end of the file (td_capture_settled_early) left out: they were
 * given by td_output_settled. */
void td_output_records(td_format format, const td_capture *c, td_flows_shown shown, td_records *records);
/* The record of a flow that settled while the file was read (capture.h's settled
 * function, whose capture holds that point's diagnosis): it leaves at once when the
 * records have a drain, so that a live capture's records come as its flows end. */
void td_output_settled(td_format format, const td_capture *c, const td_flow *flow, td_flows_shown shown,
                       td_records *records);
/* An exchange of a flow as it completes (exchange.h), while the file is read: its record
 * {"record":"exchange",...} with the flow's tcp.stream and Community ID, which join it
 * to the flow's record (which comes after it: a flow's verdict comes when it settles,
 * its exchanges as they end). Only when every flow is shown (shown TD_SHOW_ALL): an
 * exchange leaves before its flow's verdict is known. */
void td_output_exchange(td_format format, const td_capture *c, const td_flow *flow, const td_exchange *ex,
                        td_flows_shown shown, td_records *records);
/* The file's status record, after its flows: {"record":"file","file":...} with how
 * it was read (file.status read, cut-short or unreadable; file.error), its frames,
 * TCP segments, flows and the packets skipped by reason. Flow records carry
 * "record":"flow". */
void td_output_json_file(const td_capture *c, GString *out);
/* CSV: the header, the same for every capture (record, file, tcp.stream, the file
 * status columns, every per-flow field of the field table in its order, then the
 * per-direction ones as "c2s.tcpdiag.flight.limit", then "s2c..."), once; then each
 * capture's flow rows and its status row (record "file"). */
void td_output_csv_header(GString *out);
void td_output_csv_file(const td_capture *c, GString *out);

#endif
