/* A frame's TCP segment as a td_record, read from the frame's bytes
 * (segment-tcpdiag.c). */
#ifndef TCPDIAG_SEGMENT_GLUE_H
#define TCPDIAG_SEGMENT_GLUE_H

#include <epan/packet.h>

#include "record.h"

typedef enum tcpdiag_frame_kind {
    TD_FRAME_OTHER,             /* no complete TCP/IP headers: not analysed */
    TD_FRAME_SEGMENT,
    TD_FRAME_QUOTED_SEGMENT,    /* a TCP header inside an ICMP error: only its stream is read */
} tcpdiag_frame_kind;

/* Looks up the protocols it needs and makes the file's stream memo; at every
 * file's start. */
void tcpdiag_segment_init(void);
/* Frees the stream memo, whose conversations die with the file; at its end. */
void tcpdiag_segment_forget(void);
tcpdiag_frame_kind tcpdiag_read_record(packet_info *pinfo, tvbuff_t *frame, td_record *rec);

#endif
