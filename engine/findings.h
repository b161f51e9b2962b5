/* The one findings model every front end asks: which flows are findings, how they
 * group (a cause and the party whose fix it is) and rank (by what they cost), and how
 * a capture's flows are counted. The text report, --summary, the plugin's experts and
 * tables, the records and the HTML report all read it, so they agree. */
#ifndef TCPDIAG_FINDINGS_H
#define TCPDIAG_FINDINGS_H

#include <glib.h>
#include "diagnosis.h"

/* A flow with this primary cause is a finding: a cause held (not healthy, not
 * unknown), the network's or its application's. */
bool td_cause_is_finding(td_cause cause);
/* The application's own pauses, not the network's: ranked after the network's
 * findings and counted apart from the slow flows. */
bool td_cause_by_application(td_cause cause);

/* One finding: a cause, and who it is about (the party whose fix it is), with its
 * flows. The report writes one paragraph per finding; the plugin gives each one
 * Expert Information Warning. */
typedef struct td_finding {
    td_cause cause;
    const td_addr *who;
    const char *role;               /* client, server or host */
    GPtrArray *flows;               /* const td_flow*, in capture order */
    int64_t lost_ns;                /* summed over the flows whose loss is known */
    const td_flow *worst;           /* the flow that lost most (the example) */
    int64_t worst_lost_ns;
    /* The capture time that the flows which lost time covered, their lives joined: less
     * than lost_ns when they waited side by side (nine clients retrying their SYNs
     * together lose nine times the wall-clock time); 0 below two such flows. */
    int64_t span_ns;
} td_finding;

/* The findings of a diagnosed engine, ranked by cost: the network's first, then by
 * time lost, by flows, by precedence (td_finding*; g_ptr_array_free(findings, TRUE)
 * frees them). */
GPtrArray *td_findings(const td_diagnoses *d);
/* What a finding lost, the one phrase of every front end: "461.77 s lost", and with
 * flows side by side the capture time it covered, "461.77 s lost over 67.02 s";
 * empty when nothing known was lost. */
void td_finding_lost_words(const td_finding *f, char *buf, size_t size);

/* The capture's flows by verdict: slow (a network cause), held back by their
 * application, healthy, and not diagnosed (cause unknown). */
typedef struct td_tally {
    unsigned flows, slow, by_application, healthy, undiagnosed;
} td_tally;

td_tally td_findings_tally(const td_diagnoses *d);

#endif
