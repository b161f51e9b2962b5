/* Shared between the glue files: the protocol and the engine of the open file. */
#ifndef TCPDIAG_GLUE_H
#define TCPDIAG_GLUE_H

#include "core/flow.h"

/* The engine of the capture being dissected; NULL between files. */
td_engine *tcpdiag_engine(void);

void tcpdiag_register_stats(void);

#endif
