/* The diagnosis: one answer per flow, from the analyses the engine has made.
 * The primary cause, every cause that holds, what it cost against a reference the
 * capture itself gives, the fix and how to confirm it (docs/diagnosis.md).
 * Runs once the capture has been read (after td_engine_finish), or on the flows that
 * settle while it goes on (settle.c); reads the flow model, every analysis and the
 * host rules (hosts.c), and none of them reads it back (no cycle). The causes'
 * rules are in causes/, one file each; the verdicts and their table in diagnoses.h. */
#ifndef TCPDIAG_DIAGNOSIS_H
#define TCPDIAG_DIAGNOSIS_H

#include "diagnoses.h"
#include "causes/registry.h"

struct td_hosts;

/* Diagnoses every flow of a finished engine. hosts: the same engine's host rules
 * (td_hosts_build), or NULL; a flow that a host rule calls slower is never healthy. */
td_diagnoses *td_diagnose(const td_engine *engine, const struct td_hosts *hosts);
/* Diagnoses only the flows given (indices in flow order), settled ones, while the capture
 * goes on (settle.c): they are compared with every flow settled so far. Any other
 * flow has no diagnosis here (td_diagnosis_of gives NULL). */
td_diagnoses *td_diagnose_flows(const td_engine *engine, const struct td_hosts *hosts, const guint *indices,
                                guint n);

#endif
