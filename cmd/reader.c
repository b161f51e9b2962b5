/* wiretap glue. The record buffer moved into wtap_rec in Wireshark 4.5/4.6
 * (TD_WTAP_REC_DATA, set by CMake from the version built against); the rest of
 * the API is the same from 4.0 to 4.6. */
#include "reader.h"

#include <glib.h>
#include <wiretap/wtap.h>
#include <wsutil/buffer.h>
#include <wsutil/wslog.h>

struct td_reader {
    wtap *wth;
    wtap_rec rec;
#ifndef TD_WTAP_REC_DATA
    Buffer buf;
#endif
    uint32_t frames;
};

void td_reader_init(void)
{
    /* Before ws_log_init, which differs between versions, wiretap logs at debug
     * level to stderr; warnings are what a user of this command wants. */
    ws_log_set_level(LOG_LEVEL_WARNING);
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

td_reader *td_reader_open(const char *path, char **error)
{
    int err = 0;
    char *err_info = NULL;
    wtap *wth = wtap_open_offline(path, WTAP_TYPE_AUTO, &err, &err_info, false);
    td_reader *r;

    if (!wth) {
        *error = describe(err, err_info);
        g_free(err_info);
        return NULL;
    }
    r = g_new0(td_reader, 1);
    r->wth = wth;
#ifdef TD_WTAP_REC_DATA
    wtap_rec_init(&r->rec, 2048);
#else
    wtap_rec_init(&r->rec);
    ws_buffer_init(&r->buf, 2048);
#endif
    return r;
}

static td_link link_of(int encap)
{
    switch (encap) {
    case WTAP_ENCAP_ETHERNET: return TD_LINK_ETHERNET;
    case WTAP_ENCAP_SLL:      return TD_LINK_SLL;
    case WTAP_ENCAP_SLL2:     return TD_LINK_SLL2;
    case WTAP_ENCAP_RAW_IP:   return TD_LINK_RAW;
    case WTAP_ENCAP_RAW_IP4:  return TD_LINK_RAW4;
    case WTAP_ENCAP_RAW_IP6:  return TD_LINK_RAW6;
    case WTAP_ENCAP_NULL:     return TD_LINK_NULL;
    case WTAP_ENCAP_LOOP:     return TD_LINK_LOOP;
    default:                  return TD_LINK_UNSUPPORTED;
    }
}

bool td_reader_next(td_reader *r, td_frame *frame, char **error)
{
    int err = 0;
    char *err_info = NULL;
    int64_t offset;

    *error = NULL;
    for (;;) {
        /* Each read hangs the record's options (a block) on rec: released here, or
         * memory would grow with every packet. */
        wtap_rec_reset(&r->rec);
#ifdef TD_WTAP_REC_DATA
        bool ok = wtap_read(r->wth, &r->rec, &err, &err_info, &offset);
#else
        bool ok = wtap_read(r->wth, &r->rec, &r->buf, &err, &err_info, &offset);
#endif
        if (!ok) {
            if (err)
                *error = describe(err, err_info);
            g_free(err_info);
            return false;
        }
        r->frames++;
        if (r->rec.rec_type != REC_TYPE_PACKET)
            continue;
        frame->link = link_of(r->rec.rec_header.packet_header.pkt_encap);
#ifdef TD_WTAP_REC_DATA
        frame->data = ws_buffer_start_ptr(&r->rec.data);
#else
        frame->data = ws_buffer_start_ptr(&r->buf);
#endif
        frame->caplen = r->rec.rec_header.packet_header.caplen;
        frame->wire_len = r->rec.rec_header.packet_header.len;
        frame->number = r->frames;
        frame->time_ns = (r->rec.presence_flags & WTAP_HAS_TS)
                         ? (int64_t)r->rec.ts.secs * 1000000000 + r->rec.ts.nsecs : 0;
        return true;
    }
}

uint32_t td_reader_frames(const td_reader *r)
{
    return r->frames;
}

void td_reader_close(td_reader *r)
{
    if (!r)
        return;
    wtap_close(r->wth);
    wtap_rec_cleanup(&r->rec);
#ifndef TD_WTAP_REC_DATA
    ws_buffer_free(&r->buf);
#endif
    g_free(r);
}
