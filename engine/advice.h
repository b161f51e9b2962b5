/* The diagnosis in words: the one-sentence summary with its numbers, the cost clause,
 * the fix with its knob and how to confirm it. The words of each cause are its own
 * (causes/); this is how every front end asks for them, so every one of them says the
 * same thing. */
#ifndef TCPDIAG_ADVICE_H
#define TCPDIAG_ADVICE_H

#include <stddef.h>
#include "diagnosis.h"

/* Within TD_SUMMARY_MAX characters (cause.h). */
void td_advice_summary(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size);
/* The summary without its cost clause: what the capture shows. */
void td_advice_evidence(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size);
/* What the flow lost, the one cost clause of every front end: "6.6x slower than this
 * client's 19 other flows (1.4 s lost)", "1.01 s of its time lost", or what says
 * that nothing could be compared; with a subject, a sentence of it ("that flow was
 * 6.6x slower than ...", "that flow lost 1.01 s of its time"). */
void td_advice_cost(const td_diagnosis *diag, const char *subject, char *buf, size_t size);
/* Static text; NULL for none and unknown. */
const char *td_advice_fix(const td_diagnoses *d, const td_flow *flow);
const char *td_advice_confirm(const td_diagnoses *d, const td_flow *flow);

#endif
