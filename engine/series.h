/* The history the HTML report draws, kept only when asked for: per data direction,
 * each round trip's flight, offered window and congestion signals, and the sizes of
 * the segments over time; per sender, each small segment Nagle held; per flow, the
 * network's time in each exchange: bounded series that halve their resolution when
 * full. flight.c, nagle.c and flow.c record into a book only when their configuration
 * points at one (the command's --report), so the plugin and the other outputs keep no
 * history at all. */
#ifndef TCPDIAG_SERIES_H
#define TCPDIAG_SERIES_H

#include <stdbool.h>
#include <stdint.h>
#include "exchange.h"

/* A screen is about a thousand pixels wide: more points than this per series add
 * nothing a reader can see. When a series is full, neighbouring points merge in
 * pairs (each then covers twice as many samples). */
enum { TD_SERIES_POINTS = 512 };
/* Points a whole book may hold (32 bytes each: 128 MB): beyond, a direction that
 * starts is not recorded, and its chart says so. */
enum { TD_SERIES_BUDGET = 4 * 1024 * 1024 };

/* One or more consecutive samples. */
typedef struct td_series_point {
    int64_t  t_ns;              /* capture time of its last sample (a round: when it closed) */
    uint32_t lo, hi;            /* smallest and largest sample: the round flights, segment sizes */
    uint32_t window;            /* offered window at its last sample, 0 when unknown */
    uint16_t ce, ece, cwr, losses;  /* congestion signals during its samples */
    uint32_t samples;
} td_series_point;

typedef struct td_series {
    td_series_point *points;
    uint32_t n, capacity;
    uint32_t stride;            /* samples per point: doubles when the series halves */
    td_series_point pending;    /* the samples not yet making a whole point */
} td_series;

/* The slowest exchanges a flow keeps for the report: the few a reader can look at. */
enum { TD_SERIES_SLOWEST = 3 };

/* The history kept under one key: a data direction's (its td_flight) rounds and
 * sizes, a sender's (its td_nagle_side) holds, a flow's (its td_time_budget)
 * exchanges. Durations are in microseconds in a point's lo and hi (71 minutes at
 * most). */
typedef struct td_dir_series {
    td_series rounds;           /* per round trip: flight, window, signals */
    td_series sizes;            /* per data segment: payload bytes */
    uint32_t ce, ece, cwr, losses;  /* the congestion counters at the last round */
    td_series holds;            /* per small segment Nagle held: the time held (µs) */
    td_series exchanges;        /* per exchange: the network's time in it (µs) */
    int64_t transfer_ns;        /* the budget's transfer time when the open exchange began */
    bool exchange_open;         /* a request began and its exchange has not ended yet */
    td_exchange slowest[TD_SERIES_SLOWEST];     /* the flow's exchanges with the most active
                                                   time, the most first (exchange.h) */
    uint32_t slowest_n;
    uint32_t exchanges_ended;   /* of the flow, all of them */
} td_dir_series;

typedef struct td_series_book td_series_book;

/* What a closing round trip tells the history: its flight, the window offered (0 when
 * unknown) and the direction's congestion counters so far (they only grow). */
typedef struct td_round_sample {
    uint32_t flight, window;
    uint32_t ce, ece, cwr, losses;
} td_round_sample;

td_series_book *td_series_book_new(void);
void td_series_book_free(td_series_book *book);

/* flight.c's two hooks, for the data direction dir (its td_flight, as a key only): a
 * round trip closed at at_ns, and a data segment of payload bytes captured at at_ns. */
void td_series_round(td_series_book *book, const void *dir, int64_t at_ns, const td_round_sample *sample);
void td_series_segment(td_series_book *book, const void *dir, int64_t at_ns, uint32_t payload);
/* nagle.c's hook: a small segment of the sender (its td_nagle_side, as a key only),
 * released at at_ns, was held held_ns behind the data before it. */
void td_series_hold(td_series_book *book, const void *sender, int64_t at_ns, int64_t held_ns);
/* flow.c's hooks, for a flow (its td_time_budget, as a key only) whose budget has
 * charged transfer_ns to transfer so far: at at_ns the client began a request (its
 * new data after the server's, or its first), or the flow began to close (its first
 * FIN or RST). Either ends the open exchange, whose network time is the transfer
 * time charged since its request began: a request, the reply and the next request's
 * way to the capture point, which is one round trip at every capture point. */
void td_series_request(td_series_book *book, const void *budget, int64_t at_ns, int64_t transfer_ns);
void td_series_closing(td_series_book *book, const void *budget, int64_t at_ns, int64_t transfer_ns);

/* flow.c's hook as each exchange of a flow (its td_time_budget, as a key only) ends:
 * kept if it is among the flow's TD_SERIES_SLOWEST with the most active time. */
void td_series_exchange(td_series_book *book, const void *budget, const td_exchange *ex);

/* The history kept under a key (a direction's td_flight, a sender's td_nagle_side, a
 * flow's td_time_budget), NULL when none was recorded (no book, or the budget was
 * spent). */
const td_dir_series *td_series_of(const td_series_book *book, const void *dir);
/* The points of a series, the samples not yet making a whole point included as its
 * last point. */
uint32_t td_series_len(const td_series *s);
/* Adds point b, which follows a, to a: a then ends where b ends and holds the extremes
 * and the signals of both (a with no samples becomes b). */
void td_series_merge(td_series_point *a, const td_series_point *b);
td_series_point td_series_at(const td_series *s, uint32_t i);

#endif
