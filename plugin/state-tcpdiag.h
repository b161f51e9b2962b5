/* The open capture file's analysis, shared by the glue files through this one
 * interface: its engine, its per-host rules and diagnosis once it has been read
 * whole, and whether it has been. It lives from the file's open to its close
 * (packet-tcpdiag.c's init and cleanup routines). */
#ifndef TCPDIAG_STATE_H
#define TCPDIAG_STATE_H

#include <stdbool.h>

#include "diagnosis.h"
#include "flow.h"
#include "hosts.h"

/* A file opens: a new engine with config; the host rules will be built with
 * hosts_config, which must outlive the file (the preferences write into both). */
void tcpdiag_state_open(const td_config *config, const td_hosts_config *hosts_config);
/* The file closes: frees its engine, host rules and diagnosis. */
void tcpdiag_state_close(void);

/* The engine of the open file; NULL between files. */
td_engine *tcpdiag_state_engine(void);
/* The capture's clock after a TCP segment of the first pass was fed: the flows due by
 * then settle (settle.h). */
void tcpdiag_state_clock(int64_t time_ns);
/* The file has been read whole, so whole-flow verdicts are final (always in
 * tshark, where a frame seen again is the second pass; gui-tcpdiag.c). */
bool tcpdiag_state_complete(void);
/* The per-host rules of the open file: finishes the engine, the host rules and the
 * diagnosis on first use; NULL between files. */
const td_hosts *tcpdiag_state_hosts(void);
/* The diagnosis of the open file, built after the host rules it reads; NULL
 * between files. */
const td_diagnoses *tcpdiag_state_diagnoses(void);

#endif
