/* The per-capture diagnosis report: findings ranked by what they cost, each a
 * short paragraph (who, how many flows, the cause with its evidence, the cost, the
 * fix and how to confirm it). A healthy capture says so in one line. Plain text,
 * so tshark's -z tcpdiag,diagnosis and any other front end print the same. */
#ifndef TCPDIAG_REPORT_H
#define TCPDIAG_REPORT_H

#include <glib.h>
#include "diagnosis.h"
#include "hosts.h"

/* Appends the report of every flow of a diagnosed engine to out; hosts are the
 * same engine's host rules (an ECN finding names its client's lottery). */
void td_report_diagnosis(const td_diagnoses *d, const td_hosts *hosts, GString *out);
/* One line on the lone SYNs not kept beyond the max_flows limit; nothing when none. */
void td_report_not_kept(const td_engine *engine, GString *out);

#endif
