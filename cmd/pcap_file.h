/* Classic pcap files (format 2.4, microsecond or nanosecond times, either byte
 * order) read in place: the file is mapped (or read) in large windows and each record
 * is handed out where it lies, with no copy and no call per record. It reads a
 * file only as wiretap reads it, and hands the rest of a file it cannot read so to
 * the caller (reader.c gives it to wiretap). No wiretap or libpcap here, so the unit
 * tests and the fuzzer use it alone. */
#ifndef TCPDIAG_CMD_PCAP_FILE_H
#define TCPDIAG_CMD_PCAP_FILE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "decode.h"

/* What pcap and pcapng files share, which reader.c's pcapng walk reads too. */

/* wiretap's (and libpcap's) largest record for the link types the decoder reads. */
enum { TD_PCAP_LARGEST_RECORD = 262144 };

/* The decoder's link for a link type as pcap and pcapng files number it (with no
 * FCS length in its upper bits); false for one the decoder does not read. */
bool td_pcap_linktype_link(uint32_t linktype, td_link *link);

/* A file's 16- and 32-bit fields, written in this machine's byte order or, swapped,
 * in the other. */
static inline uint16_t td_pcap_get16(const uint8_t *p, bool swapped)
{
    uint16_t v;

    memcpy(&v, p, 2);
    return swapped ? GUINT16_SWAP_LE_BE(v) : v;
}

static inline uint32_t td_pcap_get32(const uint8_t *p, bool swapped)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return swapped ? GUINT32_SWAP_LE_BE(v) : v;
}

/* The file's first four bytes are one of classic pcap's magic numbers that this
 * reader reads (microseconds or nanoseconds, either byte order). */
bool td_pcap_file_magic(const uint8_t *first);

typedef struct td_pcap_file td_pcap_file;

/* The pcap file open on fd (read from its current offset, the file's start: mapped
 * when fd is a regular file, else with read()), or NULL
 * and why not (a static string) when wiretap might read it otherwise: another format
 * or version, a link type the decoder does not read, or first records that make
 * wiretap guess at one of pcap's old variants. On NULL the caller keeps fd; else
 * td_pcap_file_close closes it. */
td_pcap_file *td_pcap_file_open(int fd, const char **why);

td_link td_pcap_file_link(const td_pcap_file *file);

typedef enum td_pcap_step {
    TD_PCAP_PACKET,     /* the next record, in the frame (all but its number) */
    TD_PCAP_END,        /* the file ended cleanly, after a whole record */
    TD_PCAP_LEAVE,      /* the rest is for wiretap, and why: a record cut short or
                           over wiretap's largest, or a read that failed */
} td_pcap_step;

/* The next record. The frame's data stays valid until the next call. A file is read
 * on the thread that opened it: the handler of SIGBUS (a mapped file cut while it is
 * read) looks for it among that thread's files. */
td_pcap_step td_pcap_file_next(td_pcap_file *file, td_frame *frame, const char **why);

void td_pcap_file_close(td_pcap_file *file);

#endif
