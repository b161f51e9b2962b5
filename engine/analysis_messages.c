/* The wording of the analyses' and per-host rules' expert Notes (see analysis_messages.h). */
#include "analysis_messages.h"

#include "units.h"

void td_message_sender_limited(const td_flight *f, const td_plateau *p, GString *out)
{
    double share = 100.0 * (double)p->ns / (double)td_flight_measured_ns(f);
    const char *after = p->onset == TD_ONSET_NONE ? "growth" : td_onset_name(p->onset);
    char ceiling[32];

    /* What matters first, within Wireshark's 240 characters. */
    td_format_rate(td_plateau_ceiling(p), ceiling, sizeof ceiling);
    g_string_append_printf(out,
        "Sender holds its flight at %u B (%.1f MSS) for %.0f%% of the transfer (%u round trips, after %s) under a "
        "%u B window, nothing lost; ceiling %s at %.1f ms a round trip",
        p->high, (double)p->high / f->mss, share, p->rounds, after,
        p->min_window == UINT32_MAX ? f->max_window : p->min_window, ceiling, (double)p->ns / p->rounds / 1e6);
}

void td_message_rwnd_limited(const td_flight *f, GString *out)
{
    g_string_append_printf(out, "The receive window is the bottleneck: flight reached the offered window (at most %u "
                           "bytes) for %.0f%% of the transfer time", f->max_window, td_flight_share(f, TD_LIMIT_RWND));
}

static const char *signal_of(td_cc_event_kind kind)
{
    return kind == TD_CC_LOSS ? "a loss" : kind == TD_CC_ACE ? "AccECN marks" : "an ECN echo";
}

void td_message_cc_reduction(const td_cc_event *e, GString *out)
{
    g_string_append_printf(out, "Congestion response (%s) to %s: flight %u -> %u bytes (ratio %.2f)",
                           td_cc_event_name((td_cc_event_kind)e->kind), signal_of((td_cc_event_kind)e->kind),
                           e->before, e->after, (double)e->after / e->before);
}

void td_message_window_collapse(const td_flight *f, GString *out)
{
    const td_cc *cc = &f->cc;

    g_string_append_printf(out,
        "Window collapse: the flight sat at %u bytes (%.1f MSS) for %u round trips (%.2f s) while %s kept "
        "coming", cc->collapse_floor, f->mss ? (double)cc->collapse_floor / f->mss : 0.0, cc->collapse_rounds,
        (double)cc->collapse_ns / 1e9, cc->feedback == TD_FEEDBACK_NONE ? "losses" : "congestion signals");
}

static const char *cap_cause_text(td_cap_cause cause)
{
    switch (cause) {
    case TD_CAP_CAUSE_WINDOW_COLLAPSE:
        return ": a symptom of the window collapse (repeated cwnd reductions), not a NIC limit";
    case TD_CAP_CAUSE_FLIGHT_PLATEAU:
        return ": every burst is the whole flight the sender allows (see tcpdiag.flight)";
    case TD_CAP_CAUSE_NONE:
        break;
    }
    return "";
}

void td_message_offload_capped(const td_flight *f, GString *out)
{
    const td_offload_result *r = &f->seg.result;

    g_string_append_printf(out, "From here on no super-packet exceeds %u bytes (%.1f x MSS)%s", r->cap,
                           f->mss ? (double)r->cap / f->mss : 0.0, cap_cause_text(r->cap_cause));
}

void td_message_ecn_lottery(const td_client_summary *client, GString *out)
{
    g_string_append_printf(out, "%u of %u connections asked for ECN, %u negotiated it", client->ecn_requested,
                           client->conns, client->ecn_negotiated);
}

void td_message_ecn_slower(const td_client_summary *client, GString *out)
{
    char host[64], slow[32], fast[32];

    td_addr_format(&client->addr, host, sizeof host);
    td_format_rate(client->ecn_median_rate, slow, sizeof slow);
    td_format_rate(client->other_median_rate, fast, sizeof fast);
    g_string_append_printf(out, "ECN flows of %s are %.1fx slower than its other flows (median %s vs %s)", host,
                           client->ecn_slowdown, slow, fast);
}

void td_message_offload_unused(const td_sender_summary *s, GString *out)
{
    char common[64], slow[32], fast[32];

    td_common_traits(s->common, common, sizeof common);
    td_format_rate(s->capped_median_rate, slow, sizeof slow);
    td_format_rate(s->offloaded_median_rate, fast, sizeof fast);
    g_string_append_printf(out, "Offload not used on this flow while %u other flows from this host use it "
                           "(in common: %s; median %s vs %s)", s->offloaded_flows, common, slow, fast);
}
