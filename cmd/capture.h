/* One capture file through the core: read, decode, number the streams, feed the
 * engine, diagnose. State grows with the flows (and conversations) of the file,
 * never with its packets: each frame is read, turned into a record, fed and gone. */
#ifndef TCPDIAG_CMD_CAPTURE_H
#define TCPDIAG_CMD_CAPTURE_H

#include <glib.h>
#include "diagnosis.h"
#include "hosts.h"
#include "prefs.h"
#include "series.h"
#include "settle.h"
#include "streams.h"

typedef struct td_capture_counts {
    uint64_t frames;        /* every record, as frame.number counts them */
    uint64_t segments;      /* TCP segments fed to the engine */
    uint64_t quotes;        /* ICMP errors quoting a TCP segment */
    uint64_t other;         /* neither (not TCP, IP fragments, unsupported link layers) */
    uint64_t undecoded_link;    /* ...of which packets of a link type the decoder does not read */
    uint64_t malformed;     /* headers cut short or inconsistent: skipped */
    uint64_t late;          /* segments of a flow after it settled (settle.h): not analysed */
} td_capture_counts;

typedef struct td_capture {
    char *path;             /* the file's; merged, the first file opened (else the first given) */
    char *error;            /* the file could not be read (whole or in part); g_free'd */
    bool opened;            /* false: nothing was read */
    /* Nothing shows that the file is a packet capture: it could not be opened, or
     * wiretap opened it for its content (JSON, media), or it failed before its
     * first TCP segment (wiretap's heuristics take some text files for a format
     * that yields a few odd records, then fails). */
    bool not_a_capture;
    td_config cfg;          /* the engine keeps a pointer to it */
    td_series_book *series; /* the report's history (prefs keep_history), else NULL */
    td_engine *engine;
    td_diagnoses *diagnoses;
    td_hosts *hosts;
    td_settler *settler;
    td_capture_counts counts;
    char *undecoded_link;   /* wiretap's name of the first link type not decoded, or NULL */
    guint sources_skipped;  /* merged files found in folders that are not captures: left out */
} td_capture;

/* A flow that settled while the file was read (settle.h), before its end: c's
 * diagnoses and hosts are that point's during the call. */
typedef struct td_capture_sink {
    void (*settled)(const td_capture *c, const td_flow *flow, void *ctx);
    /* Each exchange of a flow as it completes (exchange.h); c's diagnoses are NULL then. */
    void (*exchange)(const td_capture *c, const td_flow *flow, const td_exchange *ex, void *ctx);
    void *ctx;
} td_capture_sink;

/* Reads the whole file, with the preferences given; sink (may be NULL) is given the
 * flows that settle before the end. *packets (may be NULL) is advanced as frames are read, for
 * a progress display in another thread. A file that fails part-way keeps what was
 * read before the error, diagnosed, and says so in error. */
td_capture *td_capture_analyse(const char *path, const td_prefs *prefs, td_wireshark version,
                               volatile gint *packets, const td_capture_sink *sink);
/* Several files as one capture in time order (dumpcap ring buffers, rotated files),
 * as mergecap would make it: the packets of all the files, earliest first (the
 * file given first on a tie), numbered in that order. path is the first file's; a
 * file that cannot be read is an error, and the others are still analysed, except
 * that a file found in a folder (in_folder[i], or NULL for none) that wiretap cannot
 * open, or opens for a content without packets (JSON, media), is no capture: it is
 * left out and counted in sources_skipped. */
td_capture *td_capture_analyse_merged(const char *const *paths, const bool *in_folder, guint count,
                                      const td_prefs *prefs, td_wireshark version, volatile gint *packets,
                                      const td_capture_sink *sink);
/* A dumpcap ring buffer followed as it is written (dumpcap -b ... -w RING): its files
 * read as one capture in the order dumpcap wrote them, each once dumpcap has gone on
 * to the next; until a stop is requested (SIGINT, SIGTERM), when the newest is read
 * as far as it was written, and the capture ends. Waits for the ring's first file. */
td_capture *td_capture_follow(const char *ring, const td_prefs *prefs, td_wireshark version,
                              volatile gint *packets, const td_capture_sink *sink);
/* Whether the flow settled before the end of the file (its record went to the sink). */
bool td_capture_settled_early(const td_capture *c, const td_flow *flow);
void td_capture_free(td_capture *capture);

#endif
