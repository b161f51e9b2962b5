/* The readers of the field table: which per-flow fields a flow carries and their
 * values, by field id (field_table.h), for every front end: the plugin builds its tree
 * from them, the tcpdiag command its JSON, CSV and ek records. Presence follows one
 * rule for all: a value is given only once it is final (view->complete, or what a
 * single pass already knows for good). Per-packet fields (tcpdiag.dir,
 * tcpdiag.cc.event...) are the plugin's, not read here. */
#ifndef TCPDIAG_FIELD_VALUES_H
#define TCPDIAG_FIELD_VALUES_H

#include <stdint.h>
#include "diagnosis.h"
#include "exchange.h"
#include "field_table.h"
#include "hosts.h"

typedef struct td_field_value {
    td_field_id id;
    const char *dir;        /* per-direction fields (TD_SCOPE_DIRECTION): c2s, s2c, or with unknown
                             * roles fwd (data of the flow's first packet's sender) and rev; else NULL */
    const char *str;        /* TD_FIELD_STRING; valid during the call only */
    uint64_t    uint;       /* TD_FIELD_UINT */
    double      dbl;        /* TD_FIELD_DOUBLE */
    int64_t     ns;         /* TD_FIELD_TIME */
} td_field_value;

/* Where the values go. A field can come more than once (tcpdiag.opts.default_mss,
 * once per side). */
typedef struct td_field_sink {
    void (*value)(void *ctx, const td_field_value *value);
    /* Optional: the values that follow belong to this subtree (sender: the data
     * direction's sender for flight, cc and offload, else -1). heading is the
     * subtree's label, or NULL when the sink does not ask for headings. */
    void (*group)(void *ctx, td_field_group group, int sender, const char *heading);
    /* Optional: false for a field the sink would drop, whose value is then not
     * built (formatted text costs time on every packet). */
    bool (*wants)(void *ctx, td_field_id id);
    bool headings;
    void *ctx;
} td_field_sink;

typedef struct td_flow_view {
    const td_engine *engine;
    const td_diagnoses *diagnoses;  /* with hosts: NULL until the capture has been read */
    const td_hosts *hosts;          /* the per-host rules a flow with known roles carries */
    bool complete;                  /* the capture has been read: whole-flow values are final */
    uint32_t frame;                 /* the packet shown (the host rules go on a flow's first
                                     * packet only); 0: the flow itself */
} td_flow_view;

/* Every field the flow carries in the view, flow-wide subtrees first, in the order
 * of the plugin's tree. */
void td_flow_fields(const td_flow_view *view, const td_flow *flow, const td_field_sink *sink);

/* What td_flow_fields reads that can still change: for one view of one flow, two
 * equal keys (compared whole, memcmp) give the same fields and values, so a front
 * end may keep what it built from them. Once the capture has been read every value
 * is final; before, the single-pass readers read only the handshake and the ECN
 * outcome. */
typedef struct td_flow_fields_key {
    const td_flow *flow;
    uint32_t handshake_frames[4];   /* first and last SYN, SYN-ACK, ACK */
    uint32_t ecn_decided_frame;
    uint8_t  ecn_outcome;
    bool     roles_known;
    bool     complete;
    bool     first_packet;          /* the host rules go on it */
} td_flow_fields_key;

void td_flow_fields_key_of(const td_flow_view *view, const td_flow *flow, td_flow_fields_key *key);

/* The fields of one exchange of the flow (tcpdiag.exchange.*), in the field table's
 * order, in the exchange's subtree. */
void td_exchange_fields(const td_exchange *ex, const td_field_sink *sink);

/* The field of a part of the time budget (tcpdiag.time.setup, ...): its label and
 * description are the part's words wherever a front end names it. */
td_field_id td_time_part_field(td_time_part part);

/* The direction key td_flow_fields uses for data sent by `sender`. */
const char *td_flow_fields_dir(const td_flow *flow, int sender);

#endif
