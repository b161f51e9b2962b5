/* The diagnosis in words: the one-sentence summary with its numbers, the cost
 * clause, the fix with its knob and how to confirm it, and the units people read
 * (bit/s, s or ms). Shared by the Wireshark glue, its reports and any other
 * front end, so every one of them says the same thing. */
#ifndef TCPDIAG_ADVICE_H
#define TCPDIAG_ADVICE_H

#include <stddef.h>
#include "diagnosis.h"

/* Wireshark shows 240 characters of a label: the summary stays well below. */
enum { TD_SUMMARY_MAX = 200 };

void td_advice_summary(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size);
/* The summary without its cost clause: what the capture shows. */
void td_advice_evidence(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size);
/* "6.6x slower than this client's 19 other flows (1.4 s lost)", or what says
 * that nothing could be compared. */
void td_advice_cost(const td_diagnosis *diag, char *buf, size_t size);
/* Static text; NULL for none and unknown. */
const char *td_advice_fix(const td_diagnoses *d, const td_flow *flow);
const char *td_advice_confirm(const td_diagnoses *d, const td_flow *flow);

/* 1.52 Mbit/s, 640 kbit/s ... from bytes per second. */
void td_format_rate(double bytes_per_s, char *buf, size_t size);
/* A duration as people read it, the one rule of every front end: 6.50 s, 120 ms,
 * and below 10 ms three decimals of a millisecond (0.421 ms, 0.000 ms), since a LAN's round
 * trip or a handshake half is a fraction of one and "0 ms" would read as none. */
void td_format_duration(int64_t ns, char *buf, size_t size);

#endif
