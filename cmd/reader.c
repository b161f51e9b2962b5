/* Capture files through tcpdiag's own pcap reader, libpcap or wiretap, safe for
 * several threads reading files at once. A classic pcap file is read in place by
 * pcap_file.c, which reads only what wiretap reads the same way and leaves the rest
 * of a file to wiretap. A pcapng file that libpcap reads exactly as wiretap would
 * (checked by a walk over its blocks before any packet is read, below) is read by
 * libpcap: wiretap spends about six times the instructions a packet on the same
 * records. Everything else goes to wiretap: compressed files, other formats, pipes
 * and standard input, pcapng with blocks wiretap numbers as frames or with
 * interfaces of different link types, link types the decoder does not name.
 * wiretap's record buffer moved into wtap_rec in Wireshark 4.5/4.6
 * (TD_WTAP_REC_DATA, set by CMake from the version built against); the rest of its
 * API is the same from 4.0 to 4.6. */
#include "reader.h"
#include "pcap_file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wiretap/wtap.h>
#include <wsutil/buffer.h>
#include <wsutil/wslog.h>

/* Every call into wiretap and wsutil here holds wiretap_lock. wsutil keeps one
 * process-wide, unlocked cache of small buffers (ws_buffer_init takes from it,
 * ws_buffer_free gives back), and wiretap uses it when it opens and closes a file
 * and, for pcapng, on every block whose options it reads; wtap_strerror may fill
 * a static buffer. Two threads in there at once corrupt the heap, or hand one
 * buffer to two files (-j gave other output than -j 1: issue 20).
 *
 * A pthread mutex, not a GMutex: ThreadSanitizer sees its ordering (GLib's
 * futex-based GMutex is invisible to it), so the TSan stage in CI checks the rule.
 * Taking it once per record cost 5 % of the command's CPU time, so a reader takes
 * it once per batch of records, each read into a record of its own. */
static pthread_mutex_t wiretap_lock = PTHREAD_MUTEX_INITIALIZER;

/* Set by a signal handler, read by every reader thread before each record: a
 * lock-free atomic, safe in a handler (C11 7.14.1.1) and seen by ThreadSanitizer. */
static atomic_int stop_requested;

void td_reader_request_stop(void)
{
    atomic_store_explicit(&stop_requested, 1, memory_order_relaxed);
}

bool td_reader_stop_requested(void)
{
    return atomic_load_explicit(&stop_requested, memory_order_relaxed) != 0;
}

enum { BATCH = 32 };

/* One packet record read ahead, with its own data buffer. */
typedef struct slot {
    wtap_rec rec;
#ifndef TD_WTAP_REC_DATA
    Buffer buf;
#endif
    const uint8_t *data;    /* its bytes, in the buffer above */
    td_link link;
    uint32_t number;        /* its frame number */
} slot;

struct td_reader {
    char *path;
    /* the pcap reader's reading, or libpcap's, or neither: wiretap's (wth), from the
     * start or from the frame after those the other gave when it stopped part-way */
    td_pcap_file *pcap_file;
    pcap_t *pcap;
    td_link pcap_link;
    wtap *wth;
    slot *slots;            /* BATCH of them, wiretap's only */
    unsigned batch;         /* records read ahead at most: BATCH, or 1 from a pipe */
    bool to_end;            /* stop requests are not for it (td_reader_read_to_end) */
    unsigned filled, next;  /* slots read ahead, and the next one handed out */
    bool ended;             /* no more records: the batch is the last */
    char *end_error;        /* ...because of this error (NULL: a clean end) */
    const char *undecoded_link;     /* wiretap's description of the first link type not decoded */
    uint32_t frames;        /* records read, packets or not */
    uint32_t skip;          /* records wiretap reads and drops: those handed out before it */
};

/* -v: each file says which reader reads it, and why not the faster ones. */
static atomic_bool verbose;

void td_reader_set_verbose(bool on)
{
    atomic_store(&verbose, on);
}

static void say_reader(const char *path, const char *how, const char *why)
{
    if (atomic_load(&verbose))
        fprintf(stderr, "tcpdiag: %s: read by %s%s%s%s\n", strcmp(path, "-") == 0 ? "standard input" : path, how,
                why ? " (" : "", why ? why : "", why ? ")" : "");
}

void td_reader_init(void)
{
    /* Before ws_log_init, which differs between versions, wiretap logs at debug
     * level to stderr. Its warnings are about files its format probes do not
     * recognise (4.6's netlog reader warns on any JSON file in a walked folder);
     * why a file cannot be read comes back as an error, which the command prints. */
    char errbuf[PCAP_ERRBUF_SIZE];

    ws_log_set_level(LOG_LEVEL_CRITICAL);
    wtap_init(false);
    /* once, before any thread opens a file: libpcap's process-wide settings. The local
     * encoding is libpcap's default anyway, so a libpcap that refuses the call reads
     * as well without it: nothing to report (4.6's libpcap marks the result as one to
     * check). */
    if (pcap_init(PCAP_CHAR_ENC_LOCAL, errbuf) != 0)
        errbuf[0] = '\0';
}

void td_reader_cleanup(void)
{
    wtap_cleanup();
}

static char *describe(int err, const char *err_info)
{
    return err_info ? g_strdup_printf("%s (%s)", wtap_strerror(err), err_info) : g_strdup(wtap_strerror(err));
}

/* Standard input or a fifo: a live capture may be behind it, whose packets must reach
 * the engine as they come (a flow's record leaves when a later packet moves the clock
 * past it): reading ahead would hold them until more arrive. */
static bool is_live(const char *path)
{
    struct stat st;

    if (strcmp(path, "-") == 0)
        return fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode);
    return stat(path, &st) != 0 || !S_ISREG(st.st_mode);
}

/* Opens the file with wiretap into r (the lock held by the caller); false and
 * *error when wiretap cannot. */
static bool open_wiretap(td_reader *r, const char *path, char **error)
{
    int err = 0;
    char *err_info = NULL;

    r->wth = wtap_open_offline(path, WTAP_TYPE_AUTO, &err, &err_info, false);
    if (!r->wth) {
        *error = describe(err, err_info);
        g_free(err_info);
        return false;
    }
    r->batch = is_live(path) ? 1 : BATCH;
    r->slots = g_new0(slot, BATCH);
    for (unsigned i = 0; i < BATCH; i++) {
#ifdef TD_WTAP_REC_DATA
        wtap_rec_init(&r->slots[i].rec, 2048);
#else
        wtap_rec_init(&r->slots[i].rec);
        ws_buffer_init(&r->slots[i].buf, 2048);
#endif
    }
    return true;
}

/* ---- Which pcapng files libpcap reads ----
 * libpcap and wiretap give the same packets, bytes and times for a pcapng file,
 * except where they part ways, which the walk below keeps from libpcap:
 * - libpcap cuts a record longer than the interface's snapshot length down to it,
 *   where wiretap keeps it whole;
 * - wiretap numbers some pcapng blocks that are no packet as frames (custom,
 *   systemd journal, process events...), which libpcap skips; the simple and the
 *   obsolete packet blocks are left to wiretap as well;
 * - libpcap refuses interfaces of different link types, and wiretap and libpcap may
 *   differ on timestamp offsets and on binary timestamp resolutions;
 * - a file that ends in the middle of a record: each library says so in its words,
 *   and wiretap's are the command's;
 * - link types the decoder does not read: wiretap names them (td_reader_undecoded_link).
 * The walk reads each block from a window of the file read with pread. */

static uint32_t snap_limit(uint32_t snaplen)
{
    return snaplen == 0 || snaplen > TD_PCAP_LARGEST_RECORD ? TD_PCAP_LARGEST_RECORD : snaplen;
}

/* The file as the walk reads it: a window of it read with pread, moved on as the walk
 * goes. (Mapping the file whole counted every page of it in the process's resident
 * memory: a peak of 107 MiB instead of 14 on the bench capture.) */
enum { WINDOW = 1 << 20 };

typedef struct window {
    int fd;
    uint64_t size;          /* the file's */
    uint64_t start;         /* the file offset of buf[0] */
    size_t len;             /* bytes in buf */
    uint8_t *buf;           /* WINDOW bytes */
} window;

/* bytes_at when the window does not hold them: moves it to off. */
static G_GNUC_NO_INLINE const uint8_t *window_move(window *w, uint64_t off, size_t n)
{
    size_t want, got = 0;

    if (n > WINDOW || off > w->size || w->size - off < n)
        return NULL;
    want = (size_t)MIN((uint64_t)WINDOW, w->size - off);
    while (got < want) {
        ssize_t r = pread(w->fd, w->buf + got, want - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    w->start = off;
    w->len = got;
    return got >= n ? w->buf : NULL;
}

/* The n bytes at off (n at most WINDOW), or NULL when the file holds fewer. Inline:
 * the walk asks it for every record header, and the window holds nearly all. */
static inline const uint8_t *bytes_at(window *w, uint64_t off, size_t n)
{
    if (off >= w->start && off + n <= w->start + w->len)
        return w->buf + (off - w->start);
    return window_move(w, off, n);
}

enum { BLOCK_SHB = 0x0A0D0D0A, BLOCK_IDB = 1, BLOCK_NRB = 4, BLOCK_ISB = 5, BLOCK_EPB = 6, BLOCK_DSB = 0x0A,
       OPT_END = 0, OPT_TSRESOL = 9, OPT_TSOFFSET = 14 };

/* An interface's options: NULL when its timestamps read the same in both libraries. */
static const char *idb_options(const uint8_t *p, const uint8_t *end, bool swapped)
{
    while (end - p >= 4) {
        uint16_t code = td_pcap_get16(p, swapped), len = td_pcap_get16(p + 2, swapped);
        size_t padded = ((size_t)len + 3) & ~(size_t)3;
        if (code == OPT_END)
            return NULL;
        if ((size_t)(end - p - 4) < padded)
            return "an interface's options cut short";
        if (code == OPT_TSRESOL && (len != 1 || p[4] > 9))
            return "a timestamp resolution finer than nanoseconds or binary";
        if (code == OPT_TSOFFSET)
            return "a timestamp offset";
        p += 4 + padded;
    }
    return NULL;
}

/* NULL when libpcap reads the pcapng file as wiretap does, else why not. */
static const char *walk_pcapng(window *w, td_link *link)
{
    const uint8_t *m = bytes_at(w, 0, 28);
    bool swapped;
    uint32_t interfaces = 0, first_linktype = 0, limit = TD_PCAP_LARGEST_RECORD, bom;
    uint64_t off = 0;
    const char *why;

    if (!m)
        return "shorter than a pcapng section header";
    memcpy(&bom, m + 8, 4);
    if (bom != 0x1A2B3C4D && bom != 0x4D3C2B1A)
        return "no pcapng byte-order mark";
    swapped = bom == 0x4D3C2B1A;
    if (td_pcap_get16(m + 12, swapped) != 1 || td_pcap_get16(m + 14, swapped) != 0)
        return "a pcapng version other than 1.0";
    while (off < w->size) {
        const uint8_t *block = bytes_at(w, off, 12), *body;
        uint32_t type, len;
        if (!block)
            return "ends inside a block header";
        type = td_pcap_get32(block, swapped);
        len = td_pcap_get32(block + 4, swapped);
        if (len < 12 || len % 4 || len > w->size - off)
            return "a block of a bad length, or cut short";
        if (len > WINDOW)
            return "a block over 1 MiB";
        block = bytes_at(w, off, len);
        if (!block || td_pcap_get32(block + len - 4, swapped) != len)
            return "a block of a bad length, or cut short";
        body = block + 8;
        switch (type) {
        case BLOCK_SHB:
            if (off != 0)
                return "more than one section";
            break;
        case BLOCK_IDB: {
            uint32_t linktype;
            td_link l;
            if (len < 20)
                return "an interface block cut short";
            linktype = td_pcap_get16(body, swapped);
            if (!td_pcap_linktype_link(linktype, &l))
                return "a link type the decoder does not read";
            if (interfaces && linktype != first_linktype)
                return "interfaces with different link types";
            if (!interfaces) {
                first_linktype = linktype;
                *link = l;
            }
            if (snap_limit(td_pcap_get32(body + 4, swapped)) < limit)
                limit = snap_limit(td_pcap_get32(body + 4, swapped));
            if ((why = idb_options(body + 8, block + len - 4, swapped)))
                return why;
            interfaces++;
            break;
        }
        case BLOCK_EPB: {
            uint32_t caplen;
            if (len < 32)
                return "a packet block cut short";
            caplen = td_pcap_get32(body + 12, swapped);
            if (td_pcap_get32(body, swapped) >= interfaces)
                return "a packet of an interface not described";
            if (caplen > limit)
                return "a record longer than the interface's snapshot length";
            if (caplen > len - 32)
                return "a packet longer than its block";
            break;
        }
        case BLOCK_NRB:
        case BLOCK_ISB:
        case BLOCK_DSB:
            break;
        default:
            return "blocks wiretap reads as frames and libpcap skips, or packets in other than enhanced blocks";
        }
        off += len;
    }
    return interfaces ? NULL : "no interface";
}

/* The pcapng file read through libpcap, when the walk finds that it reads as
 * wiretap would read it (fd is then libpcap's); NULL and why not (fd closed)
 * otherwise. */
static pcap_t *open_libpcap(int fd, uint64_t size, td_link *link, char *why, size_t why_size)
{
    char errbuf[PCAP_ERRBUF_SIZE];
    const char *verdict;
    window w = { .fd = fd, .size = size };
    FILE *file;
    pcap_t *p;

    w.buf = g_malloc(WINDOW);
    verdict = walk_pcapng(&w, link);
    g_free(w.buf);
    if (verdict) {
        snprintf(why, why_size, "%s", verdict);
        close(fd);
        return NULL;
    }
    file = fdopen(fd, "rb");
    if (!file) {
        snprintf(why, why_size, "%s", g_strerror(errno));
        close(fd);
        return NULL;
    }
    /* fewer read calls than stdio's 4 KiB: records are read a few bytes at a time */
    setvbuf(file, NULL, _IOFBF, 1 << 18);
    /* one thread reads this file, so libpcap's two freads a record need not lock it
       (a lock and an unlock each, about 60 instructions a packet) */
    __fsetlocking(file, FSETLOCKING_BYCALLER);
    p = pcap_fopen_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!p) {
        snprintf(why, why_size, "libpcap: %s", errbuf);
        fclose(file);
    }
    return p;
}

/* Opens the file with the pcap reader or libpcap into r: the name of the one that
 * reads it, or NULL and why neither does (a buffer of PCAP_ERRBUF_SIZE + 64). */
static const char *open_fast(td_reader *r, const char *path, char *why, size_t why_size)
{
    struct stat st;
    uint8_t magic[4];
    const char *verdict;
    int fd;

    if (strcmp(path, "-") == 0) {
        snprintf(why, why_size, "standard input, read as it comes");
        return NULL;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_size, "%s", g_strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 24 || pread(fd, magic, 4, 0) != 4) {
        snprintf(why, why_size, "%s", S_ISREG(st.st_mode) ? "too short for pcap" : "not a regular file, read as it comes");
        close(fd);
        return NULL;
    }
    if (td_pcap_get32(magic, false) == BLOCK_SHB) {
        r->pcap = open_libpcap(fd, (uint64_t)st.st_size, &r->pcap_link, why, why_size);
        return r->pcap ? "libpcap" : NULL;
    }
    if (!td_pcap_file_magic(magic)) {
        snprintf(why, why_size, "%s", magic[0] == 0x1f && magic[1] == 0x8b ? "gzip-compressed" : "neither pcap nor pcapng");
        close(fd);
        return NULL;
    }
    r->pcap_file = td_pcap_file_open(fd, &verdict);
    if (!r->pcap_file) {
        snprintf(why, why_size, "%s", verdict);
        close(fd);
        return NULL;
    }
    return "tcpdiag's pcap reader";
}

td_reader *td_reader_open(const char *path, char **error)
{
    char why[PCAP_ERRBUF_SIZE + 64];
    td_reader *r = g_new0(td_reader, 1);
    const char *fast;
    bool opened;

    r->path = g_strdup(path);
    fast = open_fast(r, path, why, sizeof why);
    if (fast) {
        say_reader(path, fast, NULL);
        return r;
    }
    pthread_mutex_lock(&wiretap_lock);
    opened = open_wiretap(r, path, error);
    pthread_mutex_unlock(&wiretap_lock);
    if (!opened) {
        g_free(r->path);
        g_free(r);
        return NULL;
    }
    say_reader(path, "wiretap", why);
    return r;
}

void td_reader_read_to_end(td_reader *r)
{
    r->to_end = true;
}

bool td_reader_holds_packets(td_reader *r)
{
    int encap;

    if (!r->wth)        /* the pcap reader's or libpcap's: a pcap or pcapng file */
        return true;
    pthread_mutex_lock(&wiretap_lock);
    encap = wtap_file_encap(r->wth);
    pthread_mutex_unlock(&wiretap_lock);
    switch (encap) {
    case WTAP_ENCAP_JSON:
    case WTAP_ENCAP_MIME:
    case WTAP_ENCAP_JPEG_JFIF:
    case WTAP_ENCAP_MP4:
    case WTAP_ENCAP_RUBY_MARSHAL:
    case WTAP_ENCAP_SYSTEMD_JOURNAL:
        return false;
    default:
        return true;
    }
}

/* ERF record types (Endace's format) whose payload is an Ethernet frame; wiretap
 * moves their 2-byte offset-and-pad header into the pseudo-header, so the frame
 * starts at the record's data. And those that carry a bare IP packet. */
enum { ERF_TYPE_MASK = 0x7f, ERF_ETH = 2, ERF_COLOR_ETH = 11, ERF_DSM_COLOR_ETH = 16, ERF_COLOR_HASH_ETH = 20,
       ERF_IPV4 = 22, ERF_IPV6 = 23 };

static td_link erf_link(const wtap_rec *rec)
{
    switch (rec->rec_header.packet_header.pseudo_header.erf.phdr.type & ERF_TYPE_MASK) {
    case ERF_ETH:
    case ERF_COLOR_ETH:
    case ERF_DSM_COLOR_ETH:
    case ERF_COLOR_HASH_ETH: return TD_LINK_ETHERNET;
    case ERF_IPV4:           return TD_LINK_RAW4;
    case ERF_IPV6:           return TD_LINK_RAW6;
    default:                 return TD_LINK_UNSUPPORTED;
    }
}

static td_link link_of(const wtap_rec *rec)
{
    int encap = rec->rec_header.packet_header.pkt_encap;

    switch (encap) {
    case WTAP_ENCAP_ERF:      return erf_link(rec);
    case WTAP_ENCAP_ETHERNET: return TD_LINK_ETHERNET;
    case WTAP_ENCAP_SLL:      return TD_LINK_SLL;
    case WTAP_ENCAP_SLL2:     return TD_LINK_SLL2;
    case WTAP_ENCAP_RAW_IP:   return TD_LINK_RAW;
    case WTAP_ENCAP_RAW_IP4:  return TD_LINK_RAW4;
    case WTAP_ENCAP_RAW_IP6:  return TD_LINK_RAW6;
    case WTAP_ENCAP_NULL:     return TD_LINK_NULL;
    case WTAP_ENCAP_LOOP:     return TD_LINK_LOOP;
    case WTAP_ENCAP_PPP:      return TD_LINK_PPP;
    default:                  return TD_LINK_UNSUPPORTED;
    }
}

/* Reads up to r->batch packet records ahead, with the lock held by the caller. */
static void read_batch(td_reader *r)
{
    int err = 0;
    char *err_info = NULL;
    int64_t offset;

    r->filled = r->next = 0;
    while (r->filled < r->batch) {
        slot *s = &r->slots[r->filled];
        if (td_reader_stop_requested() && !r->to_end) {
            r->ended = true;
            return;
        }
        /* Each read hangs the record's options (a block) on rec: released here, or
         * memory would grow with every packet. */
        wtap_rec_reset(&s->rec);
#ifdef TD_WTAP_REC_DATA
        bool ok = wtap_read(r->wth, &s->rec, &err, &err_info, &offset);
#else
        bool ok = wtap_read(r->wth, &s->rec, &s->buf, &err, &err_info, &offset);
#endif
        if (!ok) {
            r->ended = true;
            if (err && (r->to_end || !td_reader_stop_requested()))     /* a read a stop interrupted ends cleanly */
                r->end_error = describe(err, err_info);
            g_free(err_info);
            return;
        }
        r->frames++;
        if (r->frames <= r->skip)       /* libpcap handed it out */
            continue;
        /* Records that are not packets still take a frame number, as in Wireshark. */
        if (s->rec.rec_type == REC_TYPE_PACKET) {
#ifdef TD_WTAP_REC_DATA
            s->data = ws_buffer_start_ptr(&s->rec.data);
#else
            s->data = ws_buffer_start_ptr(&s->buf);
#endif
            s->number = r->frames;
            s->link = link_of(&s->rec);
            if (s->link == TD_LINK_UNSUPPORTED && !r->undecoded_link)
                r->undecoded_link = wtap_encap_description(s->rec.rec_header.packet_header.pkt_encap);
            r->filled++;
        }
    }
}

/* The pcap reader or libpcap stopped part-way (a record cut short or too long for
 * wiretap, the file changed under libpcap, or libpcap read it otherwise than the
 * walk foresaw): wiretap reads on from the next frame, and says why it failed if
 * it fails too. */
static void fall_back(td_reader *r, const char *failure)
{
    char *why = g_strdup_printf("%s stopped after frame %u: %s", r->pcap_file ? "the pcap reader" : "libpcap",
                                r->frames, failure);
    char *error = NULL;
    bool opened;

    if (r->pcap)
        pcap_close(g_steal_pointer(&r->pcap));
    td_pcap_file_close(g_steal_pointer(&r->pcap_file));
    r->skip = r->frames;
    r->frames = 0;
    pthread_mutex_lock(&wiretap_lock);
    opened = open_wiretap(r, r->path, &error);
    pthread_mutex_unlock(&wiretap_lock);
    if (opened)
        say_reader(r->path, "wiretap from there on", why);
    else {
        r->ended = true;
        r->end_error = error;
        r->frames = r->skip;
    }
    g_free(why);
}

/* The next packet through the pcap reader; false at a clean end or a stop, or when
 * the rest of the file is wiretap's (then it has taken over: r->pcap_file is NULL). */
static bool next_pcap_file(td_reader *r, td_frame *frame)
{
    const char *why;

    if (td_reader_stop_requested() && !r->to_end)
        return false;
    switch (td_pcap_file_next(r->pcap_file, frame, &why)) {
    case TD_PCAP_PACKET:
        frame->number = ++r->frames;
        return true;
    case TD_PCAP_LEAVE:
        fall_back(r, why);
        return false;
    case TD_PCAP_END:
    default:
        return false;
    }
}

/* The next packet through libpcap; false at a clean end or a stop, or after a
 * failure (then wiretap has taken over: r->pcap is NULL). */
static bool next_libpcap(td_reader *r, td_frame *frame)
{
    struct pcap_pkthdr *header;
    const u_char *data;
    int rc;

    if (td_reader_stop_requested() && !r->to_end)
        return false;
    rc = pcap_next_ex(r->pcap, &header, &data);
    if (rc == 1) {
        frame->link = r->pcap_link;
        frame->data = data;
        frame->caplen = header->caplen;
        frame->wire_len = header->len;
        frame->number = ++r->frames;
        /* nanosecond precision: tv_usec holds nanoseconds */
        frame->time_ns = (int64_t)header->ts.tv_sec * 1000000000 + header->ts.tv_usec;
        return true;
    }
    if (rc != PCAP_ERROR_BREAK) {
        char *failure = g_strdup(rc == 0 ? "no packet" : pcap_geterr(r->pcap));
        fall_back(r, failure);
        g_free(failure);
    }
    return false;
}

bool td_reader_next(td_reader *r, td_frame *frame, char **error)
{
    const slot *s;

    *error = NULL;
    if (r->pcap_file) {
        if (next_pcap_file(r, frame))
            return true;
        if (r->pcap_file)   /* its end */
            return false;
    } else if (r->pcap) {
        if (next_libpcap(r, frame))
            return true;
        if (r->pcap)    /* its end */
            return false;
    }
    if (r->next == r->filled && !r->ended) {
        pthread_mutex_lock(&wiretap_lock);
        read_batch(r);
        pthread_mutex_unlock(&wiretap_lock);
    }
    if (r->next == r->filled) {     /* ended, and every record read handed out */
        *error = g_steal_pointer(&r->end_error);
        return false;
    }
    s = &r->slots[r->next++];
    frame->link = s->link;
    frame->data = s->data;
    frame->caplen = s->rec.rec_header.packet_header.caplen;
    frame->wire_len = s->rec.rec_header.packet_header.len;
    frame->number = s->number;
    frame->time_ns = (s->rec.presence_flags & WTAP_HAS_TS)
                     ? (int64_t)s->rec.ts.secs * 1000000000 + s->rec.ts.nsecs : 0;
    return true;
}

const char *td_reader_undecoded_link(const td_reader *r)
{
    return r->undecoded_link;
}

uint32_t td_reader_frames(const td_reader *r)
{
    return r->frames;
}

void td_reader_close(td_reader *r)
{
    if (!r)
        return;
    if (r->pcap)
        pcap_close(r->pcap);
    td_pcap_file_close(r->pcap_file);
    if (r->wth) {
        pthread_mutex_lock(&wiretap_lock);
        wtap_close(r->wth);
        for (unsigned i = 0; i < BATCH; i++) {
            wtap_rec_cleanup(&r->slots[i].rec);
#ifndef TD_WTAP_REC_DATA
            ws_buffer_free(&r->slots[i].buf);
#endif
        }
        pthread_mutex_unlock(&wiretap_lock);
    }
    g_free(r->slots);
    g_free(r->end_error);
    g_free(r->path);
    g_free(r);
}
