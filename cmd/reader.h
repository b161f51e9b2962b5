/* Capture files: pcap through the command's own reader (pcap_file.h) and pcapng
 * through libpcap, each when it reads them as wiretap would; everything else through
 * Wireshark's own file library (wiretap): every format Wireshark reads, compressed
 * ones too. Several threads may each read their own file at once. */
#ifndef TCPDIAG_CMD_READER_H
#define TCPDIAG_CMD_READER_H

#include <stdbool.h>
#include "decode.h"

/* Once per process, before any file is opened (and done with at exit). */
void td_reader_init(void);
void td_reader_cleanup(void);

typedef struct td_reader td_reader;

/* -v: each file opened says on stderr what reads it, and why not the faster readers. */
void td_reader_set_verbose(bool on);

/* Every reader ends at its next record, cleanly, as if its file ended there (what
 * SIGINT and SIGTERM ask for: the flows read so far are analysed and reported).
 * Async-signal-safe. */
void td_reader_request_stop(void);
bool td_reader_stop_requested(void);

/* NULL and a message (g_free it) when the file cannot be read. */
td_reader *td_reader_open(const char *path, char **error);
/* The reader reads its file to the end whatever stop is requested: a ring's file that
 * --follow reads after ^C (what dumpcap had written of it). */
void td_reader_read_to_end(td_reader *reader);
/* False for a file Wireshark opens for its content rather than for packets
 * (JSON, images and other media, Ruby marshal, systemd journal): wiretap reads
 * even a short text file as one such record. */
bool td_reader_holds_packets(td_reader *reader);
/* The next record that is a packet; false at the end of the file, with *error set
 * (g_free it) when the file ends in an error rather than cleanly. The frame's data
 * stays valid until the next call. Records that are not packets still take a
 * frame number, as in Wireshark. */
bool td_reader_next(td_reader *reader, td_frame *frame, char **error);
/* The description of the first link type met that td_link cannot name (packets
 * with TD_LINK_UNSUPPORTED), or NULL; valid until td_reader_cleanup. */
const char *td_reader_undecoded_link(const td_reader *reader);
/* Records in the file, packets or not, once td_reader_next has returned false
 * (before, those read so far, some of them not yet handed out). */
uint32_t td_reader_frames(const td_reader *reader);
void td_reader_close(td_reader *reader);

#endif
