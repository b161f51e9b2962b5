/* The report's per-round, per-segment, per-hold and per-exchange history: bounded
 * series that merge their points in pairs when full, keyed by direction, sender or
 * flow in a book the report owns. */
#include "series.h"

#include <glib.h>
#include <string.h>

struct td_series_book {
    GHashTable *by_dir;         /* the direction's td_flight -> td_dir_series* */
    uint64_t points;            /* allocated across the book */
};

static void dir_series_free(gpointer data)
{
    td_dir_series *ds = data;

    g_free(ds->rounds.points);
    g_free(ds->sizes.points);
    g_free(ds->holds.points);
    g_free(ds->exchanges.points);
    g_free(ds);
}

td_series_book *td_series_book_new(void)
{
    td_series_book *book = g_new0(td_series_book, 1);

    book->by_dir = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, dir_series_free);
    return book;
}

void td_series_book_free(td_series_book *book)
{
    if (!book)
        return;
    g_hash_table_destroy(book->by_dir);
    g_free(book);
}

static uint16_t add_u16(uint16_t a, uint32_t b)
{
    return (uint16_t)MIN((uint32_t)a + b, UINT16_MAX);
}

void td_series_merge(td_series_point *a, const td_series_point *b)
{
    if (!a->samples) {
        *a = *b;
        return;
    }
    a->t_ns = b->t_ns;
    a->lo = MIN(a->lo, b->lo);
    a->hi = MAX(a->hi, b->hi);
    a->window = b->window;
    a->ce = add_u16(a->ce, b->ce);
    a->ece = add_u16(a->ece, b->ece);
    a->cwr = add_u16(a->cwr, b->cwr);
    a->losses = add_u16(a->losses, b->losses);
    a->samples += b->samples;
}

/* Full: every two neighbours become one, and each point from now on holds twice
 * the samples, so the series keeps covering the whole transfer evenly. */
static void halve(td_series *s)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < s->n; i += 2) {
        td_series_point p = s->points[i];
        if (i + 1 < s->n)
            td_series_merge(&p, &s->points[i + 1]);
        s->points[n++] = p;
    }
    s->n = n;
    s->stride *= 2;
}

/* False when the book's budget allows no more points. */
static bool add_sample(td_series_book *book, td_series *s, const td_series_point *sample)
{
    td_series_merge(&s->pending, sample);
    if (s->pending.samples < s->stride)
        return true;
    if (s->n == s->capacity) {
        if (s->capacity == TD_SERIES_POINTS) {
            halve(s);
        } else {
            uint32_t capacity = s->capacity ? MIN(s->capacity * 4, (uint32_t)TD_SERIES_POINTS) : 16;
            if (book->points + (capacity - s->capacity) > TD_SERIES_BUDGET)
                return false;
            book->points += capacity - s->capacity;
            s->points = g_renew(td_series_point, s->points, capacity);
            s->capacity = capacity;
        }
    }
    s->points[s->n++] = s->pending;
    memset(&s->pending, 0, sizeof s->pending);
    return true;
}

static td_dir_series *series_for(td_series_book *book, const void *dir)
{
    td_dir_series *ds = g_hash_table_lookup(book->by_dir, dir);

    if (!ds && book->points < TD_SERIES_BUDGET) {
        ds = g_new0(td_dir_series, 1);
        ds->rounds.stride = ds->sizes.stride = ds->holds.stride = ds->exchanges.stride = 1;
        g_hash_table_insert(book->by_dir, (gpointer)dir, ds);
    }
    return ds;
}

void td_series_round(td_series_book *book, const void *dir, int64_t at_ns, const td_round_sample *sample)
{
    td_dir_series *ds = series_for(book, dir);
    td_series_point p = {
        .t_ns = at_ns, .lo = sample->flight, .hi = sample->flight, .window = sample->window, .samples = 1,
    };

    if (!ds)
        return;
    /* the counters only grow: what came since the last round is this round's */
    p.ce = add_u16(0, sample->ce - ds->ce);
    p.ece = add_u16(0, sample->ece - ds->ece);
    p.cwr = add_u16(0, sample->cwr - ds->cwr);
    p.losses = add_u16(0, sample->losses - ds->losses);
    ds->ce = sample->ce;
    ds->ece = sample->ece;
    ds->cwr = sample->cwr;
    ds->losses = sample->losses;
    add_sample(book, &ds->rounds, &p);
}

void td_series_segment(td_series_book *book, const void *dir, int64_t at_ns, uint32_t payload)
{
    td_dir_series *ds = series_for(book, dir);
    td_series_point p = { .t_ns = at_ns, .lo = payload, .hi = payload, .samples = 1 };

    if (ds)
        add_sample(book, &ds->sizes, &p);
}

/* A duration as a point's value: microseconds, at most UINT32_MAX. */
static td_series_point duration_point(int64_t at_ns, int64_t ns)
{
    uint32_t us = (uint32_t)CLAMP(ns / 1000, 0, (int64_t)UINT32_MAX);

    return (td_series_point){ .t_ns = at_ns, .lo = us, .hi = us, .samples = 1 };
}

void td_series_hold(td_series_book *book, const void *sender, int64_t at_ns, int64_t held_ns)
{
    td_dir_series *ds = series_for(book, sender);
    td_series_point p = duration_point(at_ns, held_ns);

    if (ds)
        add_sample(book, &ds->holds, &p);
}

/* The open exchange, if any, ends at at_ns. */
static void end_exchange(td_series_book *book, td_dir_series *ds, int64_t at_ns, int64_t transfer_ns)
{
    td_series_point p = duration_point(at_ns, transfer_ns - ds->transfer_ns);

    if (ds->exchange_open)
        add_sample(book, &ds->exchanges, &p);
    ds->exchange_open = false;
}

void td_series_request(td_series_book *book, const void *budget, int64_t at_ns, int64_t transfer_ns)
{
    td_dir_series *ds = series_for(book, budget);

    if (!ds)
        return;
    end_exchange(book, ds, at_ns, transfer_ns);
    ds->exchange_open = true;
    ds->transfer_ns = transfer_ns;
}

/* Looked up, not made: a flow that made no request keeps no history for closing. */
void td_series_closing(td_series_book *book, const void *budget, int64_t at_ns, int64_t transfer_ns)
{
    td_dir_series *ds = g_hash_table_lookup(book->by_dir, budget);

    if (ds)
        end_exchange(book, ds, at_ns, transfer_ns);
}

void td_series_exchange(td_series_book *book, const void *budget, const td_exchange *ex)
{
    td_dir_series *ds = series_for(book, budget);
    uint32_t at;

    if (!ds)
        return;
    ds->exchanges_ended++;
    /* the earlier of two as slow stays ahead */
    for (at = ds->slowest_n; at > 0 && ds->slowest[at - 1].active_ns < ex->active_ns; at--)
        if (at < TD_SERIES_SLOWEST)
            ds->slowest[at] = ds->slowest[at - 1];
    if (at >= TD_SERIES_SLOWEST)
        return;
    ds->slowest[at] = *ex;
    if (ds->slowest_n < TD_SERIES_SLOWEST)
        ds->slowest_n++;
}

const td_dir_series *td_series_of(const td_series_book *book, const void *dir)
{
    return book && dir ? g_hash_table_lookup(book->by_dir, dir) : NULL;
}

uint32_t td_series_len(const td_series *s)
{
    return s->n + (s->pending.samples ? 1 : 0);
}

td_series_point td_series_at(const td_series *s, uint32_t i)
{
    return i < s->n ? s->points[i] : s->pending;
}
