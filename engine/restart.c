/* Slow-start restart after idle: each burst after a pause against the flight the path
 * was already known to carry (restart.h says what and why). */
#include "restart.h"

#include <glib.h>
#include <string.h>

/* A burst ends (the next pause, or the capture's end): it restarted when its pause
 * was long enough and its first round far below the flight known before; its cost is
 * the rounds beyond what its bytes needed at that flight. */
static void close_burst(td_restart *r, const td_flight_config *cfg)
{
    uint64_t needed;

    if (!r->in_burst)
        return;
    r->in_burst = false;
    if (!r->known_before || !r->rounds || r->first_at_window ||
        r->pause_ns < (int64_t)cfg->restart_idle_ms * 1000000 ||
        (uint64_t)r->first_flight * 100 > (uint64_t)r->known_before * cfg->restart_share_pct)
        return;
    needed = (r->bytes + r->known_before - 1) / r->known_before;
    if (needed >= r->rounds)
        return;                 /* the burst was too small for the restart to cost a round */
    if (!r->restarts) {
        r->frame = r->first_frame;
        r->restart_flight = r->first_flight;
        r->restart_known = r->known_before;
    }
    r->restarts++;
    r->cost_ns += (int64_t)((double)r->ns * (double)(r->rounds - needed) / r->rounds);
}

static void restart_begin(td_dir *d G_GNUC_UNUSED, void *state)
{
    memset(state, 0, sizeof(td_restart));
}

static void restart_release(void *state G_GNUC_UNUSED)
{
}

static void restart_on_round(td_dir *d, void *state, uint32_t index G_GNUC_UNUSED, uint32_t flight, int64_t ns,
                             const td_flight_config *cfg)
{
    td_restart *r = state;

    if (d->round_pause_ns || !r->in_burst) {
        close_burst(r, cfg);
        r->in_burst = true;
        r->pause_ns = d->round_pause_ns;
        r->first_flight = flight;
        r->first_frame = d->round_start_frame;
        r->first_at_window = d->round_at_window;
        r->rounds = 0;
        r->ns = 0;
        r->bytes = 0;
        r->known_before = r->known;
    }
    r->rounds++;
    r->ns += ns;
    r->bytes += flight;
    if (flight > r->known)
        r->known = flight;
}

static void restart_finish(td_dir *d G_GNUC_UNUSED, void *state, const td_flight_config *cfg)
{
    close_burst(state, cfg);
}

const td_dir_ops td_restart_ops = {
    .measured_only = true,
    .begin = restart_begin,
    .release = restart_release,
    .on_round = restart_on_round,
    .finish = restart_finish,
};
