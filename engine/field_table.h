/* The tcpdiag field table: every field and expert item any front end shows,
 * described once (name, type, label, description, scope, the subtree it sits in,
 * how its label reads). The plugin registers its fields and builds its tree from
 * it, the command writes its JSON, CSV and ek columns from it, and docs/fields.md
 * is checked against it (test/unit/test_field_table_doc.py). Values come from the
 * readers in field_values.c, which name fields by id, never by name. */
#ifndef TCPDIAG_FIELD_TABLE_H
#define TCPDIAG_FIELD_TABLE_H

#include <stdbool.h>

typedef enum td_field_type {
    TD_TYPE_STRING,
    TD_TYPE_UINT8,
    TD_TYPE_UINT16,
    TD_TYPE_UINT32,
    TD_TYPE_UINT64,
    TD_TYPE_DOUBLE,
    TD_TYPE_DURATION,       /* a relative time, kept in nanoseconds */
    TD_TYPE_FRAME,          /* a frame number */
} td_field_type;

/* What a value holds, for the front ends that print values rather than fields. */
typedef enum td_field_kind {
    TD_FIELD_STRING,
    TD_FIELD_UINT,          /* counts, bytes, ports, frame numbers */
    TD_FIELD_DOUBLE,        /* ratios, shares, rates (B/s) */
    TD_FIELD_TIME,          /* durations and epoch times, in ns */
} td_field_kind;

typedef enum td_field_scope {
    TD_SCOPE_FLOW,          /* one value per flow (names that say a direction included) */
    TD_SCOPE_DIRECTION,     /* one value per data direction: the flight, cc, offload subtrees */
    TD_SCOPE_PACKET,        /* about the packet it is on (tcpdiag.dir, tcpdiag.cc.event...) */
    TD_SCOPE_EXCHANGE,      /* one value per exchange (exchange.h): the command's exchange records,
                               the plugin's fields on the exchange's first packet */
} td_field_scope;

/* The subtrees of the plugin's tree, in the order they appear. */
typedef enum td_field_group {
    TD_GROUP_TOP,           /* the tcpdiag tree itself: per-packet items */
    TD_GROUP_DIAG,
    TD_GROUP_STALL,         /* inside TD_GROUP_DIAG */
    TD_GROUP_FLOW,
    TD_GROUP_ECN,
    TD_GROUP_OPTS,
    TD_GROUP_FLIGHT,        /* one per data direction, as the two below */
    TD_GROUP_CC,
    TD_GROUP_OFFLOAD,
    TD_GROUP_CLIENT,
    TD_GROUP_SENDER,
    TD_GROUP_EXCHANGE,      /* on an exchange's first packet */
    TD_GROUP_COUNT
} td_field_group;

/* How a label reads the value (the field itself keeps the exact value); the text is
 * td_field_label_text's (field_label.h). */
typedef enum td_field_label {
    TD_LABEL_PLAIN,          /* as Wireshark prints the type */
    TD_LABEL_DURATION,       /* 1.42 s, 120 ms (whole ms, rounded, below 1 s) */
    TD_LABEL_RATIO,          /* two decimals */
    TD_LABEL_RATE,           /* bytes per second, labelled in bit/s units first */
    TD_LABEL_SECONDS,        /* a double of seconds, labelled as a duration */
} td_field_label;

typedef enum td_field_id {
    /* tcpdiag.diag */
    TD_F_DIAG_CAUSE, TD_F_DIAG_CAUSES, TD_F_DIAG_SUMMARY, TD_F_DIAG_FIX, TD_F_DIAG_CONFIRM, TD_F_DIAG_SLOWDOWN,
    TD_F_DIAG_LOST, TD_F_DIAG_REFERENCE, TD_F_DIAG_PEERS, TD_F_DIAG_REASON, TD_F_DIAG_FRAME,
    TD_F_DIAG_QUEUE_FILLED_BY,
    /* per packet, on the answer packets (the items of plugin/diag-tcpdiag.c): a finding's
     * place and what it is about, the capture's headline and its counts */
    TD_F_DIAG_FINDING, TD_F_DIAG_FINDINGS, TD_F_DIAG_FINDING_WHO, TD_F_DIAG_FINDING_ROLE,
    TD_F_DIAG_FINDING_FLOWS, TD_F_DIAG_FINDING_LOST, TD_F_DIAG_FINDING_SPAN,
    TD_F_CAPTURE_HEADLINE, TD_F_CAPTURE_FLOWS, TD_F_CAPTURE_SLOW, TD_F_CAPTURE_APP_LIMITED,
    TD_F_CAPTURE_HEALTHY, TD_F_CAPTURE_UNDIAGNOSED,
    /* tcpdiag.host.stall */
    TD_F_STALL_HOST, TD_F_STALL_START, TD_F_STALL_DURATION, TD_F_STALL_FRAME, TD_F_STALL_FLOWS_HIT,
    TD_F_STALL_FLOWS_ACTIVE, TD_F_STALL_WAITED,
    /* tcpdiag.dir, tcpdiag.flow */
    TD_F_DIR, TD_F_FLOW_ROLES, TD_F_FLOW_COMMUNITY_ID, TD_F_FLOW_CLIENT, TD_F_FLOW_SERVER, TD_F_FLOW_CLIENT_PORT, TD_F_FLOW_SERVER_PORT,
    TD_F_FLOW_CLIENT_MSS, TD_F_FLOW_SERVER_MSS, TD_F_FLOW_DATA_SENDER, TD_F_FLOW_SYN_TO_SYNACK,
    TD_F_FLOW_SYNACK_TO_ACK, TD_F_FLOW_IRTT, TD_F_FLOW_VANTAGE, TD_F_FLOW_DURATION, TD_F_FLOW_STATE, TD_F_FLOW_PACKETS,
    TD_F_FLOW_ICMP_QUOTES, TD_F_FLOW_SIZES_FROM_IP, TD_F_FLOW_C2S_BYTES, TD_F_FLOW_S2C_BYTES,
    /* tcpdiag.ecn; the codepoint counts in td_ip_ecn order (not-ect, ect1, ect0, ce) */
    TD_F_ECN_OUTCOME, TD_F_ECN_REASON, TD_F_ECN_SYN_IP_ECN, TD_F_ECN_SYNACK_IP_ECN, TD_F_ECN_ACCECN_FEEDBACK,
    TD_F_ECN_C2S_NOT_ECT, TD_F_ECN_C2S_ECT1, TD_F_ECN_C2S_ECT0, TD_F_ECN_C2S_CE,
    TD_F_ECN_S2C_NOT_ECT, TD_F_ECN_S2C_ECT1, TD_F_ECN_S2C_ECT0, TD_F_ECN_S2C_CE,
    TD_F_ECN_C2S_DATA, TD_F_ECN_S2C_DATA,
    /* tcpdiag.flight */
    TD_F_FLIGHT_DIR, TD_F_FLIGHT_LIMIT, TD_F_FLIGHT_REASON, TD_F_FLIGHT_SEEN_FROM, TD_F_FLIGHT_ACK_LAG,
    TD_F_FLIGHT_MSS, TD_F_FLIGHT_ROUNDS, TD_F_FLIGHT_MAX, TD_F_FLIGHT_RWND, TD_F_FLIGHT_RETRANSMISSIONS, TD_F_FLIGHT_REORDERED,
    TD_F_FLIGHT_RWND_SHARE, TD_F_FLIGHT_CWND_SHARE, TD_F_FLIGHT_SENDER_SHARE, TD_F_FLIGHT_APP_SHARE,
    TD_F_FLIGHT_THROUGHPUT, TD_F_FLIGHT_PLATEAU, TD_F_FLIGHT_PLATEAU_MSS, TD_F_FLIGHT_PLATEAU_ROUNDS,
    TD_F_FLIGHT_PLATEAU_SHARE, TD_F_FLIGHT_PLATEAU_START, TD_F_FLIGHT_PLATEAU_ONSET, TD_F_FLIGHT_PLATEAU_LIMIT,
    TD_F_FLIGHT_PLATEAU_ROUND_TIME, TD_F_FLIGHT_HEADROOM, TD_F_FLIGHT_CEILING,
    TD_F_FLIGHT_ROUND,          /* per packet: the flight of the round trip it begins */
    /* tcpdiag.cc: per direction, then the per-packet event items */
    TD_F_CC_DIR, TD_F_CC_REACTION, TD_F_CC_FEEDBACK, TD_F_CC_CE, TD_F_CC_ECE_EPISODES, TD_F_CC_CWR,
    TD_F_CC_ACE_MARKS, TD_F_CC_LOSSES, TD_F_CC_REDUCTIONS, TD_F_CC_ECN_RATIO, TD_F_CC_LOSS_RATIO,
    TD_F_CC_COLLAPSE, TD_F_CC_COLLAPSE_FLOOR, TD_F_CC_COLLAPSE_FLOOR_MSS, TD_F_CC_COLLAPSE_ROUNDS,
    TD_F_CC_COLLAPSE_TIME, TD_F_CC_UNOBSERVED, TD_F_CC_CUT_SHARE, TD_F_CC_CONTROL_SHARE, TD_F_CC_CONFIDENCE,
    TD_F_CC_ALGORITHM, TD_F_CC_ALGORITHM_WHY,
    TD_F_CC_EVENT, TD_F_CC_LATENCY, TD_F_CC_FLIGHT_BEFORE, TD_F_CC_FLIGHT_AFTER, TD_F_CC_RATIO,
    /* tcpdiag.offload */
    TD_F_OFFLOAD_DIR, TD_F_OFFLOAD_VERDICT, TD_F_OFFLOAD_REASON, TD_F_OFFLOAD_MSS, TD_F_OFFLOAD_MSS_SOURCE,
    TD_F_OFFLOAD_SEGMENTS, TD_F_OFFLOAD_MAX, TD_F_OFFLOAD_MEDIAN, TD_F_OFFLOAD_P95, TD_F_OFFLOAD_SUPER_PACKETS,
    TD_F_OFFLOAD_SUPER_SHARE, TD_F_OFFLOAD_IP_LEN_ZERO, TD_F_OFFLOAD_CAP, TD_F_OFFLOAD_CAP_MSS,
    TD_F_OFFLOAD_CAP_START, TD_F_OFFLOAD_CAP_CAUSE,
    /* tcpdiag.sender */
    TD_F_SENDER_OFFLOAD, TD_F_SENDER_OFFLOADED_FLOWS, TD_F_SENDER_CAPPED_FLOWS, TD_F_SENDER_CAPPED_COMMON,
    TD_F_SENDER_CAPPED_MEDIAN_THROUGHPUT, TD_F_SENDER_OFFLOADED_MEDIAN_THROUGHPUT,
    /* tcpdiag.host (per client) */
    TD_F_HOST_CONNS, TD_F_HOST_ECN_REQUESTED, TD_F_HOST_ECN_NEGOTIATED, TD_F_HOST_ECN_SHARE,
    TD_F_HOST_ECN_MEDIAN_DURATION, TD_F_HOST_OTHER_MEDIAN_DURATION, TD_F_HOST_ECN_MEDIAN_THROUGHPUT,
    TD_F_HOST_OTHER_MEDIAN_THROUGHPUT, TD_F_HOST_ECN_SLOWDOWN, TD_F_HOST_OPTS_MISSING_CONNS,
    TD_F_HOST_OPTS_SHARE,
    /* tcpdiag.opts */
    TD_F_OPTS_CLIENT, TD_F_OPTS_SERVER, TD_F_OPTS_CLIENT_UNREADABLE, TD_F_OPTS_SERVER_UNREADABLE,
    TD_F_OPTS_CLIENT_WSCALE, TD_F_OPTS_SERVER_WSCALE, TD_F_OPTS_WSCALE_USED, TD_F_OPTS_SACK_USED,
    TD_F_OPTS_TS_USED, TD_F_OPTS_MISSING, TD_F_OPTS_LEFT_OUT_BY_CLIENT, TD_F_OPTS_LEFT_OUT_BY_SERVER,
    TD_F_OPTS_WINDOW_CEILING, TD_F_OPTS_CEILING_THROUGHPUT, TD_F_OPTS_AT_CEILING, TD_F_OPTS_DEFAULT_MSS,
    TD_F_OPTS_TS_STRIPPED,
    /* tcpdiag.time: the time budget (time_budget.h), in the flow subtree */
    TD_F_TIME_DURATION, TD_F_TIME_ACTIVE, TD_F_TIME_SETUP, TD_F_TIME_CLIENT_WAIT, TD_F_TIME_SERVER_WAIT,
    TD_F_TIME_TRANSFER, TD_F_TIME_STALL, TD_F_TIME_THINK, TD_F_TIME_IDLE, TD_F_TIME_SYN_RETRANSMISSIONS,
    TD_F_TIME_SYNACK_RETRANSMISSIONS, TD_F_TIME_EXCHANGES, TD_F_TIME_CLIENT_DELAY, TD_F_TIME_SERVER_DELAY,
    TD_F_TIME_NAGLE_HOLDS, TD_F_TIME_NAGLE_WAIT,
    /* tcpdiag.exchange: one exchange (exchange.h) */
    TD_F_EXCHANGE_INDEX, TD_F_EXCHANGE_FRAME, TD_F_EXCHANGE_BYTES_C2S, TD_F_EXCHANGE_BYTES_S2C,
    TD_F_EXCHANGE_ACTIVE, TD_F_EXCHANGE_CLIENT_TIME, TD_F_EXCHANGE_SERVER_TIME, TD_F_EXCHANGE_TRANSFER, TD_F_EXCHANGE_STALL,
    TD_F_EXCHANGE_THINK,
    TD_FIELD_COUNT
} td_field_id;

typedef struct td_field_def {
    const char     *name;           /* the filter name, e.g. tcpdiag.ecn.outcome */
    td_field_type   type;
    const char     *label;          /* the tree's label, e.g. "ECN outcome" */
    const char     *description;    /* NULL: none */
    td_field_scope  scope;
    td_field_group  group;
    td_field_label  label_style;
} td_field_def;

extern const td_field_def td_fields[TD_FIELD_COUNT];

td_field_kind td_field_kind_of(td_field_type type);

/* The subtree a subtree sits in (TD_GROUP_TOP for most). */
td_field_group td_field_group_parent(td_field_group group);

typedef enum td_expert_group {
    TD_EXPERT_PROTOCOL,
    TD_EXPERT_SEQUENCE,
} td_expert_group;

typedef enum td_expert_severity {
    TD_EXPERT_CHAT,
    TD_EXPERT_NOTE,
    TD_EXPERT_WARN,
} td_expert_severity;

typedef enum td_expert_id {
    /* Per cause, in td_cause order from host-stall to app-limited: a finding's item
     * (its Warning, on the flow that lost most), then the Note on each other flow. */
    TD_E_FINDING_HOST_STALL, TD_E_FINDING_ECN_BLACKHOLE, TD_E_FINDING_HANDSHAKE_RETRY, TD_E_FINDING_DEAD_PEER,
    TD_E_FINDING_PMTU_BLACKHOLE,
    TD_E_FINDING_WINDOW_COLLAPSE,
    TD_E_FINDING_OPTIONS_STRIPPED,
    TD_E_FINDING_MISSING_OPTIONS, TD_E_FINDING_ZERO_WINDOW,
    TD_E_FINDING_QUEUEING_DELAY, TD_E_FINDING_NAGLE_DELAYED_ACK,
    TD_E_FINDING_RECEIVE_WINDOW, TD_E_FINDING_SENDER_LIMITED, TD_E_FINDING_OFFLOAD_CAPPED,
    TD_E_FINDING_ECN_LOSS_REACTION, TD_E_FINDING_PATH_LOSS,
    TD_E_FINDING_SLOW_START_RESTART,
    TD_E_FINDING_RETRANSMISSION_TIMEOUT,
    TD_E_FINDING_SERVER_DELAY, TD_E_FINDING_CLIENT_DELAY, TD_E_FINDING_ROUND_TRIP_BOUND,
    TD_E_FINDING_APP_LIMITED,
    TD_E_FINDING_FLOW_HOST_STALL, TD_E_FINDING_FLOW_ECN_BLACKHOLE, TD_E_FINDING_FLOW_HANDSHAKE_RETRY,
    TD_E_FINDING_FLOW_DEAD_PEER,
    TD_E_FINDING_FLOW_PMTU_BLACKHOLE,
    TD_E_FINDING_FLOW_WINDOW_COLLAPSE,
    TD_E_FINDING_FLOW_OPTIONS_STRIPPED,
    TD_E_FINDING_FLOW_MISSING_OPTIONS,
    TD_E_FINDING_FLOW_ZERO_WINDOW, TD_E_FINDING_FLOW_QUEUEING_DELAY, TD_E_FINDING_FLOW_NAGLE_DELAYED_ACK,
    TD_E_FINDING_FLOW_RECEIVE_WINDOW, TD_E_FINDING_FLOW_SENDER_LIMITED,
    TD_E_FINDING_FLOW_OFFLOAD_CAPPED, TD_E_FINDING_FLOW_ECN_LOSS_REACTION, TD_E_FINDING_FLOW_PATH_LOSS,
    TD_E_FINDING_FLOW_SLOW_START_RESTART,
    TD_E_FINDING_FLOW_RETRANSMISSION_TIMEOUT, TD_E_FINDING_FLOW_SERVER_DELAY, TD_E_FINDING_FLOW_CLIENT_DELAY,
    TD_E_FINDING_FLOW_ROUND_TRIP_BOUND, TD_E_FINDING_FLOW_APP_LIMITED,
    TD_E_CAPTURE, TD_E_DIAG_ADVICE, TD_E_HOST_STALLED,
    TD_E_ECN_NEGOTIATED, TD_E_ECN_NOT_NEGOTIATED, TD_E_ECN_BROKEN_SETUP, TD_E_ECN_SYN_FALLBACK,
    TD_E_ECN_UNDETERMINED, TD_E_ECN_ECT_ON_SYN, TD_E_ECN_DATA_UNMARKED, TD_E_ECN_DATA_UNNEGOTIATED,
    TD_E_FLIGHT_SENDER_LIMITED, TD_E_FLIGHT_RWND_LIMITED,
    TD_E_CC_REDUCTION, TD_E_CC_WINDOW_COLLAPSE,
    TD_E_OFFLOAD_CAPPED,
    TD_E_SENDER_OFFLOAD_UNUSED, TD_E_HOST_ECN_SLOWER,
    TD_E_OPTS_NOOPT, TD_E_OPTS_LIMITING, TD_E_OPTS_MISSING_INFO, TD_E_OPTS_TS_VANISHED,
    TD_EXPERT_COUNT
} td_expert_id;

typedef struct td_expert_def {
    const char        *name;        /* filterable, e.g. tcpdiag.finding.window_collapse */
    td_expert_group    group;
    td_expert_severity severity;
    const char        *summary;     /* Expert Information's group title */
} td_expert_def;

extern const td_expert_def td_experts[TD_EXPERT_COUNT];

#endif
