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

/* Appends a capture's output. */
void td_output_text(const td_capture *c, GString *out);
void td_output_json(const td_capture *c, GString *out);
void td_output_ek(const td_capture *c, GString *out);
/* CSV: the header, the same for every capture (file, tcp.stream, every per-flow
 * field of the field table in its order, then the per-direction ones as
 * "c2s.tcpdiag.flight.limit", then "s2c..."), once; then each capture's rows. */
void td_output_csv_header(GString *out);
void td_output_csv(const td_capture *c, GString *out);

#endif
