/* Classic pcap files read in place, as wiretap reads them (see pcap_file.h). A file
 * is read with read() into a block of BLOCK bytes; records are handed out from it,
 * and the part of a record the block ends in is moved to its start before the next
 * read. What wiretap does with such a file, and this reader with it:
 * - the header's magic gives the byte order and the times' unit; wiretap reads
 *   other magics (Ixia's, the "modified" patches') in ways of their own: not here;
 * - version 2.4 only: older versions swap the two lengths, some of them sometimes;
 * - with the microsecond magic, wiretap reads the first three records as standard
 *   pcap and, when one looks wrong (a fraction of a second of a million or more, a
 *   record over its largest or the snapshot length, a wire length under the captured
 *   one or over 128 MiB, a record cut short), guesses at older variants: such a file
 *   is left to it whole;
 * - a record longer than the snapshot length is kept whole (libpcap would cut it);
 * - a record over 262,144 bytes (wiretap's largest for the link types the decoder
 *   reads) or cut short by the file's end is an error in wiretap: the rest of the
 *   file is left to wiretap, which reads on from that record and says it in its
 *   words;
 * - times are the seconds and the fraction times 1,000 (microseconds) or 1, in 32
 *   bits, read as a signed fraction of nanoseconds, as wiretap stores them. */
#include "pcap_file.h"

#include <errno.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

enum {
    BLOCK = 1 << 20,            /* holds the header and three of the largest records */
    FILE_HEADER = 24,
    RECORD_HEADER = 16,
    RECORDS_TRIED = 3,          /* wiretap's look at the first records */
};

#define LARGEST_WIRE_LENGTH (128u * 1024 * 1024)

struct td_pcap_file {
    int fd;
    bool swapped;               /* written in the other byte order */
    uint32_t fraction_ns;       /* nanoseconds in a unit of the fraction: 1000 or 1 */
    td_link link;
    uint8_t *block;
    size_t start, end;          /* the bytes not yet handed out: block[start, end) */
    bool at_end;                /* read() has said the file ends (or failed) */
    bool failed;                /* ...failed */
};

bool td_pcap_linktype_link(uint32_t linktype, td_link *link)
{
    switch (linktype) {
    case 1:   *link = TD_LINK_ETHERNET; return true;
    case 113: *link = TD_LINK_SLL;      return true;
    case 276: *link = TD_LINK_SLL2;     return true;
    case 101: *link = TD_LINK_RAW;      return true;
    case 228: *link = TD_LINK_RAW4;     return true;
    case 229: *link = TD_LINK_RAW6;     return true;
    case 0:   *link = TD_LINK_NULL;     return true;
    case 108: *link = TD_LINK_LOOP;     return true;
    case 9:   *link = TD_LINK_PPP;      return true;
    default:  return false;
    }
}

/* The byte order and the times' unit a magic number gives; false for another. */
static bool read_magic(const uint8_t *first, bool *swapped, uint32_t *fraction_ns)
{
    uint32_t magic;

    memcpy(&magic, first, 4);
    switch (magic) {
    case 0xA1B2C3D4: *fraction_ns = 1000; *swapped = false; return true;    /* microseconds, this machine's order */
    case 0xA1B23C4D: *fraction_ns = 1; *swapped = false; return true;       /* nanoseconds */
    case 0xD4C3B2A1: *fraction_ns = 1000; *swapped = true; return true;     /* the same, in the other order */
    case 0x4D3CB2A1: *fraction_ns = 1; *swapped = true; return true;
    default:         return false;
    }
}

bool td_pcap_file_magic(const uint8_t *first)
{
    bool swapped;
    uint32_t fraction_ns;

    return read_magic(first, &swapped, &fraction_ns);
}

/* have() when the block holds fewer than n bytes past start: moves them to the
 * block's start and reads on. Not inlined: once a block. */
static G_GNUC_NO_INLINE bool read_more(td_pcap_file *f, size_t n)
{
    size_t left = f->end - f->start;

    memmove(f->block, f->block + f->start, left);
    f->start = 0;
    f->end = left;
    while (f->end < n && !f->at_end) {
        ssize_t got = read(f->fd, f->block + f->end, BLOCK - f->end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            f->at_end = true;
            f->failed = got < 0;
        } else
            f->end += (size_t)got;
    }
    return f->end >= n;
}

/* At least n (at most BLOCK) bytes past start in the block; false when the file
 * ends first. */
static inline bool have(td_pcap_file *f, size_t n)
{
    return f->end - f->start >= n || read_more(f, n);
}

/* wiretap's test of a record header against the standard format, while it guesses
 * at the variant: true when nothing in it looks wrong. */
static bool looks_standard(const uint8_t *h, bool swapped, uint32_t snaplen)
{
    uint32_t fraction = td_pcap_get32(h + 4, swapped), caplen = td_pcap_get32(h + 8, swapped);
    uint32_t wire = td_pcap_get32(h + 12, swapped);

    return fraction < 1000000 && caplen <= TD_PCAP_LARGEST_RECORD && wire <= LARGEST_WIRE_LENGTH && caplen <= snaplen &&
           caplen <= wire;
}

/* NULL when wiretap reads the first records of the microsecond file as standard
 * pcap (each of them whole and nothing in them looking wrong), else why not. */
static const char *first_records(td_pcap_file *f, uint32_t snaplen)
{
    size_t off = 0;

    for (int i = 0; i < RECORDS_TRIED; i++) {
        const uint8_t *h;
        if (!have(f, off + RECORD_HEADER))
            return f->end - f->start == off && !f->failed ? NULL : "its first records cut short";
        h = f->block + f->start + off;
        if (!looks_standard(h, f->swapped, snaplen))
            return "first records wiretap reads as an older variant of pcap";
        off += RECORD_HEADER + td_pcap_get32(h + 8, f->swapped);
        if (!have(f, off))
            return "its first records cut short";
    }
    return NULL;
}

td_pcap_file *td_pcap_file_open(int fd, const char **why)
{
    td_pcap_file *f = g_new0(td_pcap_file, 1);
    const uint8_t *h;

    f->fd = fd;
    f->block = g_malloc(BLOCK);
    if (!have(f, FILE_HEADER)) {
        *why = "shorter than a pcap header";
        goto not_read;
    }
    h = f->block;
    if (!read_magic(h, &f->swapped, &f->fraction_ns)) {
        *why = "not a pcap file";
        goto not_read;
    }
    if (td_pcap_get16(h + 4, f->swapped) != 2 || td_pcap_get16(h + 6, f->swapped) != 4) {
        *why = "a pcap version other than 2.4";
        goto not_read;
    }
    if (!td_pcap_linktype_link(td_pcap_get32(h + 20, f->swapped), &f->link)) {
        *why = "a link type the decoder does not read";
        goto not_read;
    }
    f->start = FILE_HEADER;
    if (f->fraction_ns == 1000 && (*why = first_records(f, td_pcap_get32(h + 16, f->swapped))))
        goto not_read;
    return f;

not_read:
    g_free(f->block);
    g_free(f);
    return NULL;
}

td_link td_pcap_file_link(const td_pcap_file *f)
{
    return f->link;
}

td_pcap_step td_pcap_file_next(td_pcap_file *f, td_frame *frame, const char **why)
{
    const uint8_t *h;
    uint32_t caplen;

    if (!have(f, RECORD_HEADER)) {
        if (f->end == f->start && !f->failed)
            return TD_PCAP_END;
        *why = f->failed ? "a read failed" : "a record header cut short";
        return TD_PCAP_LEAVE;
    }
    caplen = td_pcap_get32(f->block + f->start + 8, f->swapped);
    if (caplen > TD_PCAP_LARGEST_RECORD) {
        *why = "a record over 262,144 bytes";
        return TD_PCAP_LEAVE;
    }
    if (!have(f, RECORD_HEADER + (size_t)caplen)) {
        *why = f->failed ? "a read failed" : "a record cut short";
        return TD_PCAP_LEAVE;
    }
    h = f->block + f->start;
    frame->link = f->link;
    frame->data = h + RECORD_HEADER;
    frame->caplen = caplen;
    frame->wire_len = td_pcap_get32(h + 12, f->swapped);
    frame->time_ns = (int64_t)td_pcap_get32(h, f->swapped) * 1000000000 +
                     (int32_t)(td_pcap_get32(h + 4, f->swapped) * f->fraction_ns);
    f->start += RECORD_HEADER + (size_t)caplen;
    return TD_PCAP_PACKET;
}

void td_pcap_file_close(td_pcap_file *f)
{
    if (!f)
        return;
    close(f->fd);
    g_free(f->block);
    g_free(f);
}
