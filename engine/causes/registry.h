/* Every cause, registered once in order of precedence (registry.c), and what the front
 * ends ask of a cause by its number. */
#ifndef TCPDIAG_REGISTRY_H
#define TCPDIAG_REGISTRY_H

#include "cause.h"

/* The cause's operations; a number out of range reads as unknown. */
const td_cause_ops *td_cause_ops_of(td_cause cause);

const char *td_cause_name(td_cause cause);
/* The causes read from the flow's time budget (TD_CAUSE_FROM_BUDGET): their evidence
 * is where the time went. */
bool td_cause_read_from_budget(td_cause cause);
/* Comma-separated cause names in order of precedence, "none" when empty. */
void td_causes_list(unsigned causes, char *buf, size_t size);

#endif
