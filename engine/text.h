/* The plain text of the diagnosis (the words "report" keeps for the HTML page): the
 * per-capture findings ranked by what they cost, each a
 * short paragraph (who, how many flows, the cause with its evidence, the cost, the
 * fix and how to confirm it). A healthy capture says so in one line. Plain text,
 * so tshark's -z tcpdiag,diagnosis and any other front end print the same. */
#ifndef TCPDIAG_TEXT_H
#define TCPDIAG_TEXT_H

#include <glib.h>
#include "diagnosis.h"
#include "findings.h"
#include "hosts.h"

/* The rule that frames each report, as tshark frames its -z reports. */
#define TD_REPORT_RULE "=================================================================================="

/* A finding's sentence as the report's paragraph opens with it, without its rank:
 * who (role), the flows, the evidence of the one that lost most and its cost. */
void td_text_finding_sentence(const td_diagnoses *d, const td_hosts *hosts, const td_finding *f, GString *out);
/* The report's first line without its "tcpdiag: " ("diagnosis of 20 flows: 1 slow,
 * 19 healthy, 0 not diagnosed"), without a newline. */
void td_text_headline(const td_diagnoses *d, GString *out);
/* Appends the report of every flow of a diagnosed engine to out; hosts are the
 * same engine's host rules (an ECN finding names its client's lottery). */
void td_text_diagnosis(const td_diagnoses *d, const td_hosts *hosts, GString *out);
/* One line on the lone SYNs not kept beyond the max_flows limit; nothing when none. */
void td_text_not_kept(const td_engine *engine, GString *out);

/* The -z tcpdiag,diagnosis block: the report between two rules; without a
 * capture (d NULL), says so. */
void td_text_diagnosis_framed(const td_diagnoses *d, const td_hosts *hosts, GString *out);

/* The -z tcpdiag,hosts block: per client (connections, ECN asked and negotiated,
 * median durations, slowdown, SYNs without options), then per sender whose
 * offload is known (verdict, flows each way, what the capped flows share, median
 * rates); without a capture (hosts NULL), says so. */
void td_text_hosts_framed(const td_hosts *hosts, GString *out);

/* Appends the per-flow table (-z tcpdiag,flows): its title, header and one row
 * per flow (stream, endpoints, duration, packets, ECN, options missing, limit,
 * plateau, reaction, offload, cause), then the flows not kept; without a capture,
 * says so. */
void td_text_flows(const td_diagnoses *d, GString *out);
/* The same table with only the rows of flows whose primary cause keep accepts,
 * and a line saying how many were left out and why (left_out_why, e.g. "healthy"). */
void td_text_flows_where(const td_diagnoses *d, bool (*keep)(td_cause cause), const char *left_out_why,
                           GString *out);

/* One flow as the per-flow table and the Statistics table name it: "client ->
 * server" (or "a <> b" when roles are unknown), and the verdicts of its busiest data
 * direction, "no-data" when it carried none. */
void td_text_endpoints(const td_flow *flow, char *buf, size_t size);
const char *td_text_limit(const td_flow *flow);
const char *td_text_reaction(const td_flow *flow);
const char *td_text_offload(const td_flow *flow);

#endif
