/* Which Wireshark's behaviour the decoder and the stream numbering reproduce: the
 * one whose wiretap the command is built against, so that its records and its
 * tcp.stream are that tshark's. Measured on crafted captures with tshark 4.0.17,
 * 4.4.18 and 4.6.9 (test/unit/test_streams.c, test_decode.c). */
#ifndef TCPDIAG_CMD_WIRESHARK_H
#define TCPDIAG_CMD_WIRESHARK_H

typedef enum td_wireshark {
    TD_WIRESHARK_4_0,       /* 4.0 (4.2 unchecked) */
    TD_WIRESHARK_4_4,
    TD_WIRESHARK_4_6,       /* and later, until measured otherwise */
} td_wireshark;

#endif
