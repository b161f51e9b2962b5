/* When a flow's verdict is final while the capture goes on, so that a front end can
 * give its record then rather than at the end of the input (docs/diagnosis.md, "When a
 * flow's verdict is given"):
 * - a closed flow (flow.h: FIN both ways, or a RST) settles once the capture's clock
 *   has passed its last packet by the window (td_settle_config.window_s), so that the
 *   host rules compare it with the flows of the same hosts seen meanwhile;
 * - a flow silent for the idle timeout settles though it never closed;
 * - every other flow settles at the end of the input.
 * The capture's clock is its packets' time, never the wall clock: a file read at disk
 * speed and the same traffic read live give the same verdicts.
 *
 * At each point where flows settle, they are diagnosed against the flows settled
 * within the history (hosts.c, diagnosis.c): a settled flow is read by the later
 * flows' rules until the clock has passed its last packet by twice the window, or the
 * idle timeout if longer (300 s by default), then it is forgotten (td_engine_forget).
 * At the end, the flows that settled before keep the diagnosis they were given. A capture shorter than the window settles whole at its
 * end, so its verdicts are the whole file's. Every front end uses this: the plugin and
 * the command give the same verdicts. */
#ifndef TCPDIAG_SETTLE_H
#define TCPDIAG_SETTLE_H

#include "diagnosis.h"
#include "hosts.h"

typedef struct td_settler td_settler;

/* A flow that settled before the end of the input, with the diagnoses and host
 * rules of that point (valid during the call only; td_diagnosis_of gives the flow's). */
typedef void (*td_settled_fn)(const td_diagnoses *d, const td_hosts *hosts, const td_flow *flow, void *ctx);

/* settled may be NULL (the plugin keeps every flow's diagnosis for the end). hosts_cfg
 * must outlive the settler (preferences may write into it until the end). */
td_settler *td_settler_new(td_engine *engine, const td_hosts_config *hosts_cfg, td_settled_fn settled, void *ctx);
void td_settler_free(td_settler *s);

/* The flows forgotten past the history are released too (their memory given back,
 * td_engine_forget): released is called for each first, while it can still be read.
 * For a front end that needs no flow after its record (the command's streamed
 * records), so that memory holds the flows open at once and the history, however
 * long the capture. Without it, forgotten flows stay readable. */
void td_settler_release(td_settler *s, void (*released)(const td_flow *flow, void *ctx), void *ctx);

/* The capture's clock after each packet fed to the engine: that packet's time. Flows
 * that settle by then are diagnosed and handed to the settled function. */
void td_settler_clock(td_settler *s, int64_t time_ns);

/* The end of the input: the engine is finished, and every flow diagnosed; those
 * settled before keep the diagnosis they were given. The caller owns both. */
void td_settler_finish(td_settler *s, td_hosts **hosts, td_diagnoses **diagnoses);

/* Whether the flow settled before the end of the input (its record has been given). */
bool td_settler_settled_early(const td_settler *s, const td_flow *flow);

#endif
