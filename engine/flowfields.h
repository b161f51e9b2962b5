/* Every per-flow field the plugin shows, by its Wireshark field name, in one
 * table for the front ends that are not Wireshark (the tcpdiag command's JSON,
 * CSV and bulk outputs). The plugin builds its tree from the same core values;
 * test/integration/test_command.py holds the two to the same answers on every
 * bundled capture. Per-packet fields (tcpdiag.dir, tcpdiag.cc.event...) are not
 * per-flow and are not here. */
#ifndef TCPDIAG_FLOWFIELDS_H
#define TCPDIAG_FLOWFIELDS_H

#include <stdint.h>
#include "diagnosis.h"
#include "hosts.h"

typedef enum td_field_kind {
    TD_FIELD_STRING,
    TD_FIELD_UINT,          /* counts, bytes, ports, frame numbers */
    TD_FIELD_DOUBLE,        /* ratios, shares, rates (B/s) */
    TD_FIELD_TIME,          /* durations and epoch times, in ns */
} td_field_kind;

typedef struct td_field {
    const char   *name;     /* the plugin's field name, e.g. "tcpdiag.ecn.outcome" */
    td_field_kind kind;
    const char   *str;      /* valid during the callback only */
    uint64_t      uint;
    double        dbl;
    int64_t       ns;
} td_field;

/* Called once per field present, flow-wide fields first. dir is NULL for a
 * flow-wide field; for the fields Wireshark repeats per data direction (flight,
 * cc, offload) it is "c2s" or "s2c", or, when roles are unknown, "fwd" for data
 * sent by the endpoint of the flow's first packet and "rev" for the other. A field
 * can come more than once (tcpdiag.opts.default_mss, once per side). */
typedef void (*td_field_fn)(const td_field *field, const char *dir, void *ctx);

/* hosts: the capture's per-host rules, whose summaries a flow with known roles
 * carries (tcpdiag.host.*: its client's; tcpdiag.sender.*: its busiest sender's). */
void td_flow_fields(const td_diagnoses *d, const td_hosts *hosts, const td_flow *flow, td_field_fn fn, void *ctx);

/* The direction key td_flow_fields uses for data sent by `sender`. */
const char *td_flow_fields_dir(const td_flow *flow, int sender);

#endif
