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

/* Appends a capture's output; CSV rows go to a table instead (td_csv_*), whose
 * columns are known only once every file has been read. */
void td_output_text(const td_capture *c, td_flows_shown shown, GString *out);
void td_output_json(const td_capture *c, td_flows_shown shown, GString *out);
void td_output_ek(const td_capture *c, td_flows_shown shown, GString *out);

/* The file's status record, after its flows: {"record":"file","file":...} with how
 * it was read (file.status read, cut-short or unreadable; file.error), its frames,
 * TCP segments, flows and the packets skipped by reason. Flow records carry
 * "record":"flow". */
void td_output_json_file(const td_capture *c, GString *out);

typedef struct td_csv td_csv;
td_csv *td_csv_new(void);
void td_csv_add(td_csv *csv, const td_capture *c, td_flows_shown shown);
/* The file's status row (record "file"), as td_output_json_file's. */
void td_csv_add_file(td_csv *csv, const td_capture *c);
/* Moves the rows of part (another file's) into csv, after csv's own. */
void td_csv_append(td_csv *csv, td_csv *part);
/* The header (record, file, tcp.stream, then every field met, in the order met; a
 * per-direction field as "c2s.tcpdiag.flight.limit"), then the rows. */
void td_csv_write(const td_csv *csv, GString *out);
void td_csv_free(td_csv *csv);

#endif
