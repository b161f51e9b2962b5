/* A frame's TCP segment as a td_record, read from the frame's bytes
 * (segment-tcpdiag.c). */
#ifndef TCPDIAG_SEGMENT_GLUE_H
#define TCPDIAG_SEGMENT_GLUE_H

#include <epan/packet.h>

#include "record.h"
#include "segment.h"

/* Looks up the protocols it needs and makes the file's stream memo; at every
 * file's start. */
void tcpdiag_segment_init(void);
/* Frees the stream memo, whose conversations die with the file; at its end. */
void tcpdiag_segment_forget(void);
/* What the frame holds: TD_FRAME_SEGMENT (rec filled), TD_FRAME_QUOTED (a TCP
 * header inside an ICMP error: only its stream is read) or TD_FRAME_OTHER (no
 * complete TCP/IP headers, or a segment Wireshark numbered no stream for: not
 * analysed); never TD_FRAME_MALFORMED, which the command alone counts apart. */
td_frame_kind tcpdiag_read_record(packet_info *pinfo, tvbuff_t *frame, td_record *rec);

#endif
