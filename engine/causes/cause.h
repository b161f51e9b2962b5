/* What a cause is: the operations every cause implements (td_cause_ops, one table per
 * cause file in this folder, registered once in registry.c in order of precedence),
 * the facts about a flow its rule reads, and the measures and costs the causes share.
 *
 * A cause answers, for one flow: does it hold (holds), what did it cost and against
 * what (cost), where does it show first (evidence_frame), what does the capture show in
 * words (evidence), whose finding is it (who), what to do and how to confirm it
 * (advice), and which chart and figures the report reads it with. The diagnosis
 * (diagnosis.c) runs the rules; the words are read by every front end through
 * advice.c and findings.c. No front end switches on the cause. */
#ifndef TCPDIAG_CAUSE_H
#define TCPDIAG_CAUSE_H

#include <stddef.h>

#include "diagnoses.h"
#include "field_table.h"
#include "options.h"
#include "reference_groups.h"

/* ---- the facts a rule reads ---- */

/* Two measured responses make a reaction, as two recoveries make a lossy path. */
enum { TD_MIN_RESPONSES = 2, TD_MIN_RECOVERIES = 2 };

typedef struct td_cause_facts {
    const td_flight *f;         /* the busiest direction, NULL without data */
    int      sender;
    double   rate;              /* its payload bytes per second of the flow's active time */
    td_limit limit;
    const char *limit_why;
    td_options_audit audit;
    bool     ecn, wscale, lossy, offloaded, capped;
    td_group *client, *to_server, *by_sender;   /* its reference groups, NULL none */
} td_cause_facts;

/* What every rule is handed. */
typedef struct td_judge {
    const td_engine *engine;
    const td_config *cfg;
    const td_flow   *flow;
    const td_cause_facts *x;
} td_judge;

/* The facts of one flow, without its groups. */
void td_cause_gather(const td_flow *flow, td_cause_facts *x);
/* The reference groups a flow with a rate belongs to, made on first use. */
void td_cause_find_groups(td_groups *groups, const td_flow *flow, td_cause_facts *x);
/* A settled flow filed in the reference sets and its pair's path and queue fillers. */
void td_cause_file(const td_flow *flow, const td_cause_facts *x);

/* ---- measures the rules share ---- */

/* The time a flow was active (its time budget's duration less idle time): rates,
 * slowdowns and time lost are measured on it, so a short reply followed by minutes of
 * keep-alive is not slow, and no flow loses more time than it was active. */
int64_t td_cause_active_ns(const td_flow *flow);
/* The active time less the applications' waits. */
int64_t td_cause_transfer_ns(const td_flow *flow);
/* A part that is where the time of a whole went: a large share of it and long in
 * itself (td_budget_config). */
bool td_cause_takes_share(const td_config *cfg, int64_t part_ns, int64_t whole_ns);
/* A part of the flow's time budget that is where its time went: of its active time. */
bool td_cause_dominates(const td_judge *j, int64_t part_ns);
/* A flow with data whose flight could be analysed. */
bool td_cause_flight_known(const td_judge *j);
/* A conversation of requests and prompt, short answers. */
bool td_cause_exchange_flow(const td_flow *flow, const td_cause_facts *x);
/* A flow that kept sending while nothing asked it to (a download). */
bool td_cause_sends_unasked(const td_flow *flow, const td_cause_facts *x);
/* The flight's round trips took queue_rtt_ratio times the handshake's. */
bool td_cause_queue_standing(const td_config *cfg, const td_flow *flow, const td_flight *f);
/* The receive-window rule (receive_window.c), which a zero window reads too. */
bool td_cause_window_held(const td_judge *j);
/* Window scaling missing from a SYN that reached the capture point with NOPs where its
 * options had been: the path took it out (options-stripped, else missing-options). */
bool td_cause_syn_stripped(const td_options_audit *audit);
/* Window scaling missing, and the flight at the 64 KiB ceiling it sets. */
bool td_cause_window_unscaled(const td_cause_facts *x);

/* ---- costs ---- */

/* Against a reference rate: slowdown and time lost over the active time. */
void td_cost_against_rate(td_diagnosis *d, const td_judge *j, double reference);
/* The slowdown of a time `ns` that would have been ns - d->lost_ns without the loss. */
void td_cost_slowdown_within(td_diagnosis *d, int64_t ns);
/* Time lost within the flow's own life: the slowdown is what the active time would
 * have been without it. */
void td_cost_against_own_time(td_diagnosis *d, const td_judge *j, int64_t lost, td_reference reference);
/* Against the median of a reference set; false (nothing set) when the set was no
 * faster than the flow. */
bool td_cost_against_group(td_diagnosis *d, const td_judge *j, const td_group *g, td_group_set set,
                           td_reference reference);
/* The rate the largest offered window allowed at the flow's mean round trip. */
void td_cost_against_window(td_diagnosis *d, const td_judge *j);
/* An ECN flow against the client's flows to the same server without ECN, else (or
 * without ECN) against its window. */
void td_cost_against_ecn_peers(const td_judge *j, td_diagnosis *d);
/* The budget's silences (stall less zero-window time), of the flow's own time: a dead
 * peer's and the timeouts' cost. */
void td_cost_silence(const td_judge *j, td_diagnosis *d);
/* Against the client's flows with window scaling: what missing-options and
 * options-stripped, the two outcomes of one unscaled window, cost. */
void td_cost_against_scaled_flows(const td_judge *j, td_diagnosis *d);
/* The frame that ended the longest stall: where a silence shows. */
uint32_t td_cause_longest_stall_frame(const td_judge *j);

/* ---- words ---- */

/* Wireshark shows 240 characters of a label: the summary stays well below. */
enum { TD_SUMMARY_MAX = 200 };

/* What a cause's words read: the flow, its diagnosis and the diagnosed direction. */
typedef struct td_cause_view {
    const td_engine    *engine;
    const td_diagnoses *diagnoses;
    const td_flow      *flow;
    const td_diagnosis *diag;
    const td_flight    *f;      /* the diagnosed direction's, NULL none */
} td_cause_view;

void td_cause_view_of(const td_diagnoses *d, const td_flow *flow, td_cause_view *v);

typedef struct td_advice {
    const char *fix, *confirm;
} td_advice;

/* Shared by the causes whose fix is the same. */
extern const td_advice td_ecn_advice, td_loss_advice;

/* "the client", "the server" or "the sender" that sent the diagnosed data. */
const char *td_cause_sender_role(const td_cause_view *v);
/* The congestion signals the diagnosed direction answered were mostly ECN echoes. */
bool td_cause_ecn_driven(const td_cause_view *v);
/* A finding about one endpoint of the flow (-1: the first), with its role. */
const td_addr *td_cause_endpoint(const td_cause_view *v, int endpoint, const char **role);
/* The server when roles are known, else the diagnosed sender: a finding about what
 * connections met at the server (its listen queue, its losses, its distance). */
const td_addr *td_cause_at_server(const td_cause_view *v, const char **role);
/* The client: a finding about what its connections met on the path, or its own waits. */
const td_addr *td_cause_at_client(const td_cause_view *v, const char **role);
/* The receiver of the diagnosed data: a window it held or closed. */
const td_addr *td_cause_at_receiver(const td_cause_view *v, const char **role);
/* An endpoint in a sentence: "the client" or "the server"; without the roles (no
 * handshake captured, the ports only guess them) its address and port, and *roles_note
 * says so ("; roles guessed: no handshake", else ""). */
void td_cause_side_words(const td_cause_view *v, int endpoint, char *buf, size_t size, const char **roles_note);
/* A part of the budget and the longest of its spans, in words: "3.00 s" and
 * "longest 1.00 s, ended at frame 29". */
void td_cause_span_words(const td_time_budget *b, int64_t part_ns, td_time_span span, char *part, char *longest,
                         size_t size);

/* ---- the report's picture ---- */

/* The chart a cause calls for (report/charts.c draws each). */
typedef enum td_chart_model {
    TD_CHART_FLIGHT,            /* flight per round trip, with its signals */
    TD_CHART_CONGESTION_ECN,    /* flight per round trip with CE marks, echoes, CWRs and losses */
    TD_CHART_CONGESTION_LOSS,   /* flight per round trip and losses */
    TD_CHART_PLATEAU,           /* flight per round trip against the receive window */
    TD_CHART_CEILING,           /* window used against the 64 KiB ceiling */
    TD_CHART_RESTART,           /* flight per round trip against what earlier bursts got through */
    TD_CHART_SIZES,             /* segment size over time */
    TD_CHART_BLACKHOLE,         /* segment size against the size the handshake allowed */
    TD_CHART_HOLDS,             /* each small segment's hold against the round trip */
    TD_CHART_EXCHANGES,         /* each exchange's round trip against the empty path's */
    TD_CHART_NONE_BUDGET,       /* none: the evidence is where the time went (the budget bar) */
    TD_CHART_NONE_HANDSHAKE,    /* none: the evidence is the handshake */
} td_chart_model;

/* A figure the report shows beside a cause's chart: a field, and the unit its label
 * reads in (NULL: the field's own). */
typedef struct td_cause_figure {
    td_field_id id;
    const char *unit;
} td_cause_figure;

typedef struct td_figure_set {
    const td_cause_figure *items;
    size_t n;
} td_figure_set;

#define TD_FIGURE_SET(array) { (array), sizeof(array) / sizeof((array)[0]) }

/* Where the time went (the budget's parts), which the budget's causes are read with;
 * the congestion responses (window-collapse, ecn-loss-reaction); the plateau and the
 * window (sender-limited, receive-window); the options and their ceiling
 * (options-stripped, missing-options). */
extern const td_figure_set td_budget_figures, td_cc_figures, td_plateau_figures, td_options_figures;

/* ---- the operations ---- */

enum {
    /* read from the flow's time budget: its evidence is where the time went */
    TD_CAUSE_FROM_BUDGET = 1u << 0,
    /* the summary says its cost after the evidence (the others say theirs in it, or
       have none) */
    TD_CAUSE_COST_SAID = 1u << 1,
    /* the application's own pauses, not the network's: ranked after the network's
       findings, counted apart */
    TD_CAUSE_BY_APPLICATION = 1u << 2,
};

typedef struct td_cause_ops {
    td_cause    id;
    const char *name;           /* tcpdiag.diag.cause */
    unsigned    flags;          /* TD_CAUSE_* above */
    /* the rule; NULL for the verdicts that are no cause (none, unknown) */
    bool     (*holds)(const td_judge *j);
    /* sets d->reference, d->slowdown, d->lost_ns (and its own figures); NULL: no cost */
    void     (*cost)(const td_judge *j, td_diagnosis *d);
    uint32_t (*evidence_frame)(const td_judge *j);
    /* what the capture shows, without what it cost; at most TD_SUMMARY_MAX characters */
    void     (*evidence)(const td_cause_view *v, char *buf, size_t size);
    /* the party whose fix it is; NULL: the diagnosed sender */
    const td_addr *(*who)(const td_cause_view *v, const char **role);
    /* whether the finding is about the client's ECN (its lottery is said); NULL: no */
    bool     (*about_ecn)(const td_cause_view *v);
    td_advice (*advice)(const td_cause_view *v);
    td_chart_model chart;
    const char *chart_title;    /* NULL: the model's own title */
    const td_figure_set *figures;   /* the report's figures beside the chart, NULL none */
} td_cause_ops;

#endif
