/* Classic pcap files read in place, as wiretap reads them (see pcap_file.h). A
 * regular file is mapped a window of WINDOW bytes at a time, and its records are
 * handed out where they lie in the window; another file (or one the system will not
 * map) is read with read() into a block of BLOCK bytes, the part of a record the
 * block ends in moved to its start before the next read. Mapping spares the copy
 * read() makes of every byte, a tenth of the command's time (issue 38). What wiretap
 * does with such a file, and this reader with it:
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
 *   bits, read as a signed fraction of nanoseconds, as wiretap stores them.
 * A file that grows while it is read (a capture still being written) is read as far
 * as it reaches when its last window ends, as read() would. One that shrinks (a ring
 * of tcpdump -W rewriting its oldest file) would raise SIGBUS where a mapped page is
 * gone: the handler below maps zeros there and the reader leaves the rest to wiretap
 * with "the file shrank while it was read", where read() would have met the end. The
 * record the cut fell in may reach the decoder with zeros for its bytes past the cut
 * (a file rewritten under a reader gives it the new bytes either way): reading each
 * record's last byte before handing it out would have caught it, but cost 3 % of the
 * command's time, a cache miss a packet. */
#include "pcap_file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    FILE_HEADER = 24,
    RECORD_HEADER = 16,
    RECORDS_TRIED = 3,          /* wiretap's look at the first records */
    /* read(): holds the header and three of the largest records */
    BLOCK = 1 << 20,
    /* mapped: the same, from any page boundary; larger, so that the windows' mapping
     * costs little a byte, and small enough to keep peak memory low */
    WINDOW = 4 << 20,
};

G_STATIC_ASSERT(BLOCK >= FILE_HEADER + RECORDS_TRIED * (RECORD_HEADER + TD_PCAP_LARGEST_RECORD));
G_STATIC_ASSERT(WINDOW >= BLOCK + (64 << 10));  /* a page boundary before the block's first byte */

#define LARGEST_WIRE_LENGTH (128u * 1024 * 1024)
#define SHRANK "the file shrank while it was read"

struct td_pcap_file {
    int fd;
    bool swapped;               /* written in the other byte order */
    uint32_t fraction_ns;       /* nanoseconds in a unit of the fraction: 1000 or 1 */
    td_link link;
    const uint8_t *bytes;       /* the window or the block: bytes[start, end) not yet handed out */
    size_t start, end;
    /* read() */
    uint8_t *block;             /* NULL while the file is mapped */
    bool at_end;                /* read() has said the file ends (or failed) */
    bool failed;                /* ...failed */
    /* mapped */
    uint8_t *window;            /* NULL when read() reads the file */
    size_t window_len;
    uint64_t window_at;         /* the file offset of window[0] */
    volatile sig_atomic_t shrank;   /* a page of the window was gone (SIGBUS) */
    td_pcap_file *next_mapped;  /* this thread's files with a window, for the handler */
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

/* The files this thread reads mapped: a file is read on the thread that opened it
 * (pcap_file.h), so the handler, which runs on the thread that touched the page,
 * finds it here without a lock. */
static _Thread_local td_pcap_file *mapped_here;
static struct sigaction bus_before;
static size_t page_size;

/* SIGBUS: a page of a window is gone, the file cut under it. Zeros are mapped from
 * that page to the window's end, so the read that faulted goes on, and the file is
 * marked: its next record is left to wiretap. A SIGBUS of anything else gets the
 * handling it had before, when the fault repeats. */
static void on_bus(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)context;
    if (info->si_code > 0)      /* raised by a fault, not sent */
        for (td_pcap_file *f = mapped_here; f; f = f->next_mapped) {
            uint8_t *at = info->si_addr;
            if (at >= f->window && at < f->window + f->window_len) {
                uint8_t *page = (uint8_t *)((uintptr_t)at & ~(uintptr_t)(page_size - 1));
                if (mmap(page, (size_t)(f->window + f->window_len - page), PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                    f->shrank = 1;
                    return;
                }
            }
        }
    sigaction(SIGBUS, &bus_before, NULL);
    if (info->si_code <= 0)
        raise(SIGBUS);
}

/* Once a process, by pthread_once (which ThreadSanitizer sees order the page size's
 * write before every read, where it cannot see GLib's own g_once do so). */
static void install_bus_handler(void)
{
    struct sigaction sa = { .sa_sigaction = on_bus, .sa_flags = SA_SIGINFO | SA_NODEFER };

    page_size = (size_t)sysconf(_SC_PAGESIZE);
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &bus_before);
}

static void unmap(td_pcap_file *f)
{
    munmap(f->window, f->window_len);
    f->window = NULL;
    for (td_pcap_file **p = &mapped_here; *p; p = &(*p)->next_mapped)
        if (*p == f) {
            *p = f->next_mapped;
            break;
        }
}

/* The window moved to the file's offset `from`, as far as the file reaches now (at
 * most WINDOW bytes); false when the system will not map it. */
static bool map_window(td_pcap_file *f, uint64_t from, uint64_t size)
{
    uint64_t at = from & ~(uint64_t)(page_size - 1);
    size_t len = (size_t)MIN((uint64_t)WINDOW, size - at);
    void *w;

    /* the old window goes first: both at once would be the peak resident memory */
    if (f->window)
        unmap(f);
    w = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f->fd, (off_t)at);
    if (w == MAP_FAILED)
        return false;
    f->next_mapped = mapped_here;
    mapped_here = f;
    f->window = w;
    f->window_len = len;
    f->window_at = at;
    f->bytes = w;
    f->start = (size_t)(from - at);
    f->end = len;
    /* the next window on its way from the disk while this one is read */
    if (size > at + len)
        posix_fadvise(f->fd, (off_t)(at + len), WINDOW, POSIX_FADV_WILLNEED);
    return true;
}

static bool read_more(td_pcap_file *f, size_t n);

/* The read() way, from the file's offset `from`: the window's bytes not handed out
 * are read again into the block. */
static bool leave_mapping(td_pcap_file *f, uint64_t from)
{
    if (f->window)
        unmap(f);
    f->block = g_malloc(BLOCK);
    f->bytes = f->block;
    f->start = f->end = 0;
    if (lseek(f->fd, (off_t)from, SEEK_SET) < 0) {
        f->at_end = f->failed = true;
        return false;
    }
    return true;
}

/* have() when the window holds fewer than n bytes past start: the next window, from
 * start, if the file reaches past this one. */
static bool map_more(td_pcap_file *f, size_t n)
{
    uint64_t from = f->window_at + f->start, mapped_to = f->window_at + f->end;
    struct stat st;

    if (f->shrank)
        return false;
    if (fstat(f->fd, &st) != 0) {
        f->failed = true;
        return false;
    }
    if ((uint64_t)st.st_size < mapped_to) {
        f->shrank = 1;
        return false;
    }
    if ((uint64_t)st.st_size == mapped_to)
        return false;
    if (!map_window(f, from, (uint64_t)st.st_size))
        return leave_mapping(f, from) && read_more(f, n);
    return f->end - f->start >= n;
}

/* have() when the block holds fewer than n bytes past start: moves them to the
 * block's start and reads on. */
static bool read_more(td_pcap_file *f, size_t n)
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

/* Not inlined: once a window or block. */
static G_GNUC_NO_INLINE bool more(td_pcap_file *f, size_t n)
{
    return f->window ? map_more(f, n) : read_more(f, n);
}

/* At least n (at most BLOCK) bytes past start; false when the file ends first. */
static inline bool have(td_pcap_file *f, size_t n)
{
    return f->end - f->start >= n || more(f, n);
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
        h = f->bytes + f->start + off;
        if (!looks_standard(h, f->swapped, snaplen))
            return "first records wiretap reads as an older variant of pcap";
        off += RECORD_HEADER + td_pcap_get32(h + 8, f->swapped);
        if (!have(f, off))
            return "its first records cut short";
    }
    return NULL;
}

/* The file's bytes given back: its window or its block. */
static void release(td_pcap_file *f)
{
    if (f->window)
        unmap(f);
    g_free(f->block);
    g_free(f);
}

td_pcap_file *td_pcap_file_open(int fd, const char **why)
{
    static pthread_once_t bus_handler = PTHREAD_ONCE_INIT;
    td_pcap_file *f = g_new0(td_pcap_file, 1);
    off_t from = lseek(fd, 0, SEEK_CUR);
    struct stat st;
    const uint8_t *h;

    f->fd = fd;
    pthread_once(&bus_handler, install_bus_handler);
    if (from < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= from ||
        !map_window(f, (uint64_t)from, (uint64_t)st.st_size)) {
        f->block = g_malloc(BLOCK);
        f->bytes = f->block;
    }
    if (!have(f, FILE_HEADER)) {
        *why = "shorter than a pcap header";
        goto not_read;
    }
    h = f->bytes + f->start;
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
    f->start += FILE_HEADER;
    if (f->fraction_ns == 1000 && (*why = first_records(f, td_pcap_get32(h + 16, f->swapped))))
        goto not_read;
    return f;

not_read:
    release(f);
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

    if (f->shrank) {
        *why = SHRANK;
        return TD_PCAP_LEAVE;
    }
    if (!have(f, RECORD_HEADER)) {
        if (f->end == f->start && !f->failed && !f->shrank)
            return TD_PCAP_END;
        *why = f->shrank ? SHRANK : f->failed ? "a read failed" : "a record header cut short";
        return TD_PCAP_LEAVE;
    }
    caplen = td_pcap_get32(f->bytes + f->start + 8, f->swapped);
    if (caplen > TD_PCAP_LARGEST_RECORD) {
        *why = "a record over 262,144 bytes";
        return TD_PCAP_LEAVE;
    }
    if (!have(f, RECORD_HEADER + (size_t)caplen)) {
        *why = f->shrank ? SHRANK : f->failed ? "a read failed" : "a record cut short";
        return TD_PCAP_LEAVE;
    }
    h = f->bytes + f->start;
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
    release(f);
}
