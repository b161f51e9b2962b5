/* wiretap glue, safe for several threads reading files at once. The record
 * buffer moved into wtap_rec in Wireshark 4.5/4.6 (TD_WTAP_REC_DATA, set by CMake
 * from the version built against); the rest of the API is the same from 4.0 to 4.6. */
#include "reader.h"

#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
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
    wtap *wth;
    slot slots[BATCH];
    unsigned batch;         /* records read ahead at most: BATCH, or 1 from a pipe */
    bool to_end;            /* stop requests are not for it (td_reader_read_to_end) */
    unsigned filled, next;  /* slots read ahead, and the next one handed out */
    bool ended;             /* wiretap has no more: the batch is the last */
    char *end_error;        /* ...because of this error (NULL: a clean end) */
    const char *undecoded_link;     /* wiretap's description of the first link type not decoded */
    uint32_t frames;        /* records read, packets or not */
};

void td_reader_init(void)
{
    /* Before ws_log_init, which differs between versions, wiretap logs at debug
     * level to stderr. Its warnings are about files its format probes do not
     * recognise (4.6's netlog reader warns on any JSON file in a walked folder);
     * why a file cannot be read comes back as an error, which the command prints. */
    ws_log_set_level(LOG_LEVEL_CRITICAL);
    wtap_init(false);
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

td_reader *td_reader_open(const char *path, char **error)
{
    int err = 0;
    char *err_info = NULL;
    wtap *wth;
    td_reader *r = NULL;

    pthread_mutex_lock(&wiretap_lock);
    wth = wtap_open_offline(path, WTAP_TYPE_AUTO, &err, &err_info, false);
    if (wth) {
        r = g_new0(td_reader, 1);
        r->wth = wth;
        r->batch = is_live(path) ? 1 : BATCH;
        for (unsigned i = 0; i < BATCH; i++) {
#ifdef TD_WTAP_REC_DATA
            wtap_rec_init(&r->slots[i].rec, 2048);
#else
            wtap_rec_init(&r->slots[i].rec);
            ws_buffer_init(&r->slots[i].buf, 2048);
#endif
        }
    } else
        *error = describe(err, err_info);
    pthread_mutex_unlock(&wiretap_lock);
    g_free(err_info);
    return r;
}

void td_reader_read_to_end(td_reader *r)
{
    r->to_end = true;
}

bool td_reader_holds_packets(td_reader *r)
{
    int encap;

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

bool td_reader_next(td_reader *r, td_frame *frame, char **error)
{
    const slot *s;

    *error = NULL;
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
    pthread_mutex_lock(&wiretap_lock);
    wtap_close(r->wth);
    for (unsigned i = 0; i < BATCH; i++) {
        wtap_rec_cleanup(&r->slots[i].rec);
#ifndef TD_WTAP_REC_DATA
        ws_buffer_free(&r->slots[i].buf);
#endif
    }
    pthread_mutex_unlock(&wiretap_lock);
    g_free(r->end_error);
    g_free(r);
}
