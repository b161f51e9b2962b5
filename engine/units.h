/* The units people read, the one rule of every front end: rates in bit/s and durations
 * in s or ms. */
#ifndef TCPDIAG_UNITS_H
#define TCPDIAG_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* 1.52 Mbit/s, 640 kbit/s ... from bytes per second. */
void td_format_rate(double bytes_per_s, char *buf, size_t size);
/* A duration as people read it: 6.50 s, 120 ms, and below 10 ms three decimals of a
 * millisecond (0.421 ms, 0.000 ms), since a LAN's round trip or a handshake half is a
 * fraction of one and "0 ms" would read as none. */
void td_format_duration(int64_t ns, char *buf, size_t size);

#endif
