/* The diagnosis in words: the summary, the fix and how to confirm it, and the units
 * people read. */
#include "advice.h"

#include <stdio.h>
#include <string.h>

#include "options.h"

void td_format_rate(double bytes_per_s, char *buf, size_t size)
{
    static const char *const units[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
    double bits = bytes_per_s * 8;
    unsigned u = 0;

    while (bits >= 1000 && u + 1 < G_N_ELEMENTS(units)) {
        bits /= 1000;
        u++;
    }
    g_snprintf(buf, size, bits >= 100 || u == 0 ? "%.0f %s" : "%.3g %s", bits, units[u]);
}

void td_format_duration(int64_t ns, char *buf, size_t size)
{
    if (ns >= 1000000000 || ns <= -1000000000)
        g_snprintf(buf, size, "%.2f s", (double)ns / 1e9);
    else if (ns >= 9999500 || ns <= -9999500)   /* what would print as 10.000 ms reads 10 ms */
        g_snprintf(buf, size, "%.0f ms", (double)ns / 1e6);
    else
        g_snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
}

static const char *reference_phrase(const td_diagnosis *diag, char *buf, size_t size)
{
    switch ((td_reference)diag->reference) {
    case TD_REF_CLIENT_FLOWS:
        g_snprintf(buf, size, "this client's %u other flow%s", diag->peers, diag->peers == 1 ? "" : "s");
        return buf;
    case TD_REF_SENDER_FLOWS:
        g_snprintf(buf, size, "this sender's %u other flow%s", diag->peers, diag->peers == 1 ? "" : "s");
        return buf;
    case TD_REF_WINDOW_CEILING:
        return "what its window allowed";
    case TD_REF_OWN_RATE:
        return "its own pace outside the episode";
    case TD_REF_REFERENCE_RTT:
        return "the same exchange at the reference round trip";
    case TD_REF_ONE_ROUND_TRIP:
        return "one round trip per exchange";
    case TD_REF_EMPTY_PATH:
        return "the same exchanges on the empty path";
    case TD_REF_NONE:
        break;
    }
    return NULL;
}

void td_advice_cost(const td_diagnosis *diag, char *buf, size_t size)
{
    char phrase[64], lost[32];
    const char *reference = reference_phrase(diag, phrase, sizeof phrase);

    if (!reference || diag->slowdown <= 0) {
        if (diag->lost_ns > 0) {
            td_format_duration(diag->lost_ns, lost, sizeof lost);
            g_snprintf(buf, size, "%s of its time", lost);
        } else {
            g_strlcpy(buf, "nothing in this capture to compare it with", size);
        }
        return;
    }
    if (diag->lost_ns > 0) {
        td_format_duration(diag->lost_ns, lost, sizeof lost);
        g_snprintf(buf, size, "%.1fx slower than %s (%s lost)", diag->slowdown, reference, lost);
    } else {
        g_snprintf(buf, size, "%.1fx slower than %s", diag->slowdown, reference);
    }
}

static const td_flight *diagnosed_flight(const td_flow *flow, const td_diagnosis *diag)
{
    return diag->sender < 0 ? NULL : td_flow_flight(flow, diag->sender);
}

static const char *sender_role(const td_flow *flow, const td_diagnosis *diag)
{
    if (!td_flow_roles_known(flow) || diag->sender < 0)
        return "the sender";
    return diag->sender == flow->client ? "the client" : "the server";
}

/* The congestion signals a direction answered were mostly ECN echoes. */
static bool ecn_driven(const td_flight *f)
{
    return f && td_cc_ecn_driven(&f->cc);
}

static bool noopt(const td_flow *flow)
{
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);

    for (int i = 0; i < 2; i++)
        if (hs->opts_seen[i] && hs->opts[i].complete && !hs->opts[i].present)
            return true;
    return false;
}

/* Which side retried the handshake, and what that points to from where the capture
 * was taken: SYNs seen arriving unanswered at the server were dropped by the server
 * host itself. */
static void handshake_retry_evidence(const td_engine *engine, const td_flow *flow, char *buf, size_t size)
{
    const td_time_budget *b = td_flow_time_budget(flow);
    uint32_t syns = td_time_budget_syn_retransmissions(b) + 1, synacks = td_time_budget_synack_retransmissions(b) + 1;
    td_handshake scratch;
    char setup[32];

    td_format_duration(td_time_budget_part(b, TD_TIME_SETUP), setup, sizeof setup);
    if (synacks > 1)
        g_snprintf(buf, size, "The server sent its SYN-ACK %u times (the client its SYN %u) over %s: SYN-ACKs or "
                   "the client's ACKs were lost on the path", synacks, syns, setup);
    else if (!td_flow_hs(flow, &scratch)->synack_frame)
        g_snprintf(buf, size, "The client sent its SYN %u times over %s, never answered in the capture: the "
                   "server down or overloaded, a firewall, or a lost path", syns, setup);
    else if (td_flow_vantage(flow, td_engine_config(engine)) == TD_VANTAGE_NEAR_SERVER)
        g_snprintf(buf, size, "The client sent its SYN %u times (setup %s); they reached the server unanswered: "
                   "its listen queue was full, or a host firewall dropped them", syns, setup);
    else
        g_snprintf(buf, size, "The client sent its SYN %u times before one was answered (setup %s): a full listen "
                   "queue at the server, a firewall, or loss on the path", syns, setup);
}

/* A part of the budget and the longest of its spans, in words: "3.00 s" and
 * "longest 1.00 s, ended at frame 29". */
static void span_words(const td_time_budget *b, int64_t part_ns, td_time_span span, char *part, char *longest,
                       size_t size)
{
    char d[32];

    td_format_duration(part_ns, part, size);
    td_format_duration(b->longest_ns[span], d, sizeof d);
    g_snprintf(longest, size, "longest %s, ended at frame %u", d, b->longest_frame[span]);
}

/* Nagle with delayed ACKs: whose small segments waited, how often, how long. */
static void nagle_evidence(const td_flow *flow, char *buf, size_t size)
{
    const td_nagle *n = td_flow_nagle(flow);
    int held = td_nagle_held_sender(n);
    char a[32];

    bool roles = td_flow_roles_known(flow);

    td_format_duration(n->side[held].held_ns, a, sizeof a);
    g_snprintf(buf, size, "The %s's small segments waited for the %s's delayed ACK %u times (Nagle with delayed "
               "ACKs, %s held)", !roles ? "sender" : held == flow->client ? "client" : "server",
               !roles ? "peer" : held == flow->client ? "server" : "client", n->side[held].holds, a);
}

/* A queue: the round trips against the empty path's, and who filled it. */
static void queueing_evidence(const td_diagnosis *diag, char *buf, size_t size)
{
    char queued[32], path[32], by[64] = "traffic not in this capture";
    GString *streams = g_string_new(NULL);

    td_format_duration(diag->queued_rtt_ns, queued, sizeof queued);
    td_format_duration(diag->path_rtt_ns, path, sizeof path);
    for (uint32_t i = 0; i < MIN(diag->queue_fillers, (uint32_t)TD_QUEUE_FILLERS_MAX); i++)
        g_string_append_printf(streams, "%s%u", i ? "," : "", diag->queue_filler_streams[i]);
    if (diag->queue_fillers)
        g_snprintf(by, sizeof by, "stream%s %s%s", diag->queue_fillers == 1 ? "" : "s", streams->str,
                   diag->queue_fillers > TD_QUEUE_FILLERS_MAX ? ",..." : "");
    g_string_free(streams, TRUE);
    g_snprintf(buf, size, "Round trips of %s, %.1fx the empty path's %s, while it sent little: queued behind %s",
               queued, (double)diag->queued_rtt_ns / (double)MAX(diag->path_rtt_ns, 1), path, by);
}

/* Who left window scaling out, as far as the capture can tell: its own SYN seen
 * near a side is that side's choice; seen elsewhere, an option missing (without the
 * NOPs a strip leaves, which make options-stripped) may have been removed on the
 * path before the capture point, and only a capture at that side tells which. */
static void left_out_evidence(const td_engine *engine, const td_flow *flow, const td_options_audit *audit,
                              char *buf, size_t size)
{
    bool by_client = audit->left_out_by_client & TD_OPT_WSCALE;
    const char *side = by_client ? "client" : "server";
    td_vantage near = by_client ? TD_VANTAGE_NEAR_CLIENT : TD_VANTAGE_NEAR_SERVER;
    char rate[32];

    td_format_rate(audit->ceiling_throughput, rate, sizeof rate);
    if (td_flow_vantage(flow, td_engine_config(engine)) == near)
        g_snprintf(buf, size, "No window scaling (left out by the %s): the window stopped at 64 KiB, %s at the "
                   "handshake round trip", side, rate);
    else    /* the longer words take the ceiling rate's room (tcpdiag.opts.ceiling_throughput) */
        g_snprintf(buf, size, "No window scaling: left out by the %s or stripped on the path (a capture at the %s "
                   "tells which); the window stopped at 64 KiB", side, side);
}

/* The SYN whose options a middlebox overwrote with NOPs, in words: whose, how many
 * NOPs, which options it lacks. */
static void stripped_words(const td_flow *flow, const td_options_audit *audit, char *buf, size_t size)
{
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    bool client = (audit->left_out_by_client & TD_OPT_WSCALE) && audit->overwritten[0];
    const td_syn_options *opts = &hs->opts[client ? flow->client : td_flow_server(flow)];
    char missing[64];

    td_options_missing_list(TD_OPT_NEGOTIATED & ~opts->present, missing, sizeof missing);
    g_snprintf(buf, size, "The %s's %s came with %u NOPs where options were (%s missing): stripped on the path",
               client ? "client" : "server", client ? "SYN" : "SYN-ACK", opts->nop_run, missing);
}

/* A path MTU black hole in words: near the sender the full-size segments are seen
 * resent unanswered; past the hop only their absence (the hole the smaller segments
 * began beyond) and the wait. */
static void blackhole_words(const td_flow *flow, int sender, char *buf, size_t size)
{
    const td_pmtu_run *run = td_flow_pmtu_blackhole(flow, sender);
    const td_pmtu_side *side = &flow->more->pmtu.side[sender];
    char wait[32];

    td_format_duration(td_flow_blackhole_ns(flow, sender), wait, sizeof wait);
    if (run->full_retransmissions >= 2)
        g_snprintf(buf, size, "%u B segments resent %u times unanswered, then cut to %u B they got through after "
                   "%s (largest sent since %u B): a smaller-MTU hop, its ICMP filtered",
                   side->allowed, run->full_retransmissions, run->size, wait, side->largest_after);
    else
        g_snprintf(buf, size, "Nothing for %s, then %u B segments where the handshake allowed %u (largest since %u "
                   "B); full-size ones never came: a smaller-MTU hop, its ICMP filtered",
                   wait, run->size, side->allowed, side->largest_after);
}

/* What the capture shows, without what it cost. */
static void evidence_of(const td_engine *engine, const td_diagnoses *d, const td_flow *flow,
                        const td_diagnosis *diag, char *buf, size_t size)
{
    const td_flight *f = diagnosed_flight(flow, diag);
    const td_stalls *stalls = td_engine_stalls(engine);
    const td_stall_hit *hit;
    const td_stall *stall;
    const td_plateau *p;
    const td_time_budget *budget = td_flow_time_budget(flow);
    td_options_audit audit;
    char a[64], b[64], c[64], words[TD_SUMMARY_MAX + 1];
    unsigned count;
    int who;

    switch ((td_cause)diag->cause) {
    case TD_CAUSE_HANDSHAKE_RETRY:
        handshake_retry_evidence(engine, flow, buf, size);
        return;
    case TD_CAUSE_DEAD_PEER:
        who = td_time_budget_unanswered(budget, &count);
        td_format_duration(td_time_budget_silence_ns(budget), a, sizeof a);
        g_snprintf(buf, size, "The %s retransmitted %u time%s and its peer never acknowledged (%s): the peer or the "
                   "path went away", who == flow->client ? "client" : "server", count, count == 1 ? "" : "s", a);
        return;
    case TD_CAUSE_PMTU_BLACKHOLE:
        blackhole_words(flow, diag->sender, buf, size);
        return;
    case TD_CAUSE_ZERO_WINDOW:
        td_format_duration(budget->zero_window_ns, a, sizeof a);
        g_snprintf(buf, size, "The receiver's window closed to zero %u time%s (%s at zero): the receiving "
                   "application read slower than the data came", budget->zero_windows,
                   budget->zero_windows == 1 ? "" : "s", a);
        return;
    case TD_CAUSE_QUEUEING_DELAY:
        queueing_evidence(diag, buf, size);
        return;
    case TD_CAUSE_NAGLE_DELAYED_ACK:
        nagle_evidence(flow, buf, size);
        return;
    case TD_CAUSE_RETRANSMISSION_TIMEOUT:
        span_words(budget, td_time_budget_silence_ns(budget), TD_SPAN_STALL, a, b, sizeof a);
        g_snprintf(buf, size, "Silent for %s until retransmissions (timeouts, not fast recovery; %s)", a, b);
        return;
    case TD_CAUSE_SERVER_DELAY:
        span_words(budget, budget->answer_wait_ns[TD_SPAN_SERVER_WAIT], TD_SPAN_SERVER_WAIT, a, b, sizeof a);
        g_snprintf(buf, size, "The server took %s to answer (%s): its application's time, a late accept included",
                   a, b);
        return;
    case TD_CAUSE_CLIENT_DELAY:
        span_words(budget, budget->answer_wait_ns[TD_SPAN_CLIENT_WAIT], TD_SPAN_CLIENT_WAIT, a, b, sizeof a);
        g_snprintf(buf, size, "The client waited %s before sending (%s) while the server had answered: the client "
                   "application's time", a, b);
        return;
    case TD_CAUSE_ROUND_TRIP_BOUND:
        td_format_duration(td_time_budget_part(budget, TD_TIME_SETUP) +
                           td_time_budget_part(budget, TD_TIME_TRANSFER), a, sizeof a);
        td_format_duration(td_flow_handshake_rtt_ns(flow), b, sizeof b);
        g_snprintf(buf, size, "A short exchange on a long path: round trips of %s took %s of its time", b, a);
        return;
    case TD_CAUSE_HOST_STALL:
        hit = td_stalls_hit(stalls, flow->index);
        stall = td_stalls_at(stalls, hit->stall);
        td_addr_format(&stall->host, a, sizeof a);
        td_format_duration(stall->end_ns - stall->start_ns, b, sizeof b);
        td_format_duration(hit->wait_end_ns - hit->wait_start_ns, c, sizeof c);
        g_snprintf(buf, size, "Host %s sent nothing on any flow for %s (%u of %u flows waiting); this flow waited %s",
                 a, b, stall->flows_hit, td_diagnoses_stall_active(d, hit->stall), c);
        return;
    case TD_CAUSE_ECN_BLACKHOLE:
        td_format_duration(td_flow_syn_retry_ns(flow), a, sizeof a);
        g_snprintf(buf, size, "The ECN-setup SYN went unanswered and was retried without ECN after %s: "
                 "ECN SYNs are dropped on the path", a);
        return;
    case TD_CAUSE_WINDOW_COLLAPSE:
        if (ecn_driven(f))
            g_snprintf(buf, size, "ECN negotiated; %s cut its window on every echo until the flight sat at %.0f "
                     "segments for %u round trips", sender_role(flow, diag),
                     (double)f->cc.collapse_floor / MAX(f->mss, 1), f->cc.collapse_rounds);
        else
            g_snprintf(buf, size, "Losses kept cutting the window until the flight sat at %.0f segments for %u "
                     "round trips", (double)f->cc.collapse_floor / MAX(f->mss, 1), f->cc.collapse_rounds);
        return;
    case TD_CAUSE_ECN_LOSS_REACTION:
        g_snprintf(buf, size, "ECN negotiated; %s cut its flight on every echo (loss-like, median %.2f)",
                 sender_role(flow, diag), f->cc.ecn_ratio);
        return;
    case TD_CAUSE_OPTIONS_STRIPPED:
        td_options_audit_flow(flow, &audit);
        stripped_words(flow, &audit, words, sizeof words);
        g_snprintf(buf, size, "%s; the window stopped at 64 KiB", words);
        return;
    case TD_CAUSE_MISSING_OPTIONS:
        td_options_audit_flow(flow, &audit);
        left_out_evidence(engine, flow, &audit, buf, size);
        return;
    case TD_CAUSE_RECEIVE_WINDOW:
        g_snprintf(buf, size, "The receiver's window held the flight %.0f%% of the time (largest window %u B)",
                 td_flight_share(f, TD_LIMIT_RWND), f->max_window);
        return;
    case TD_CAUSE_SENDER_LIMITED:
        p = td_flight_plateau(f);
        g_snprintf(buf, size, "%s held its flight at %.1f MSS (%u B) for %u round trips, window %u B",
                 diag->sender == flow->client ? "The client" : "The server", (double)p->high / MAX(f->mss, 1),
                 p->high, p->rounds, p->min_window);
        return;
    case TD_CAUSE_OFFLOAD_CAPPED:
        g_snprintf(buf, size, "Segments capped at %u B on this flow while %u flows of its sender used offload",
                 f->seg.result.cap ? f->seg.result.cap : f->mss, diag->peers);
        return;
    case TD_CAUSE_PATH_LOSS:
        g_snprintf(buf, size, "%u loss recoveries, each cutting the flight (median %.2f)", f->cc.losses,
                 f->cc.loss_ratio);
        return;
    case TD_CAUSE_SLOW_START_RESTART:
        g_snprintf(buf, size, "After %u pause%s %s's flight restarted at %.0f segments where %.0f had got through "
                   "before: slow start after idle, rounds the same bytes did not need", f->restart.restarts,
                   f->restart.restarts == 1 ? "" : "s", sender_role(flow, diag),
                   (double)f->restart.restart_flight / MAX(f->mss, 1),
                   (double)f->restart.restart_known / MAX(f->mss, 1));
        return;
    case TD_CAUSE_APP_LIMITED:
        td_format_duration(f->longest_pause_ns, a, sizeof a);
        g_snprintf(buf, size, "The sending application had nothing to send %.0f%% of the time (longest pause %s, "
                 "ended at frame %u): the network was not the limit", td_flight_share(f, TD_LIMIT_APP), a,
                 f->longest_pause_end_frame);
        return;
    case TD_CAUSE_NONE:
        g_snprintf(buf, size, "Healthy: nothing held this transfer back%s%s", diag->reason ? " (" : "",
                 diag->reason ? diag->reason : "");
        if (diag->reason)
            g_strlcat(buf, ")", size);
        return;
    case TD_CAUSE_UNKNOWN:
    case TD_CAUSE_COUNT:
        break;
    }
    g_snprintf(buf, size, "No diagnosis: %s", diag->reason ? diag->reason : "the capture does not show enough");
}

void td_advice_evidence(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size)
{
    evidence_of(td_diagnoses_engine(d), d, flow, td_diagnosis_of(d, flow), buf, size);
}

/* Causes whose cost follows the evidence: a slowdown against a reference, or a part
 * of the flow's time (the others say theirs in the evidence, or have none). */
static bool costed(td_cause cause)
{
    switch (cause) {
    case TD_CAUSE_HOST_STALL:
    case TD_CAUSE_ECN_BLACKHOLE:
    case TD_CAUSE_APP_LIMITED:
    case TD_CAUSE_NONE:
    case TD_CAUSE_UNKNOWN:
    case TD_CAUSE_COUNT:
        return false;
    default:
        return true;
    }
}

void td_advice_summary(const td_diagnoses *d, const td_flow *flow, char *buf, size_t size)
{
    const td_diagnosis *diag = td_diagnosis_of(d, flow);
    char evidence[TD_SUMMARY_MAX + 1], cost[128];

    td_advice_evidence(d, flow, evidence, sizeof evidence);
    if (!costed((td_cause)diag->cause)) {
        g_strlcpy(buf, evidence, MIN(size, (size_t)TD_SUMMARY_MAX + 1));
        return;
    }
    td_advice_cost(diag, cost, sizeof cost);
    g_snprintf(buf, (gulong)MIN(size, (size_t)TD_SUMMARY_MAX + 1), "%s; %s", evidence, cost);
}

typedef struct advice {
    const char *fix, *confirm;
} advice;

static const advice ECN_ADVICE = {
    "BBR on the sender (Linux net.ipv4.tcp_congestion_control=bbr), which does not cut on every echo; or stop "
    "the CE marking on the path",
    "ECN off at the client for one run (macOS sysctl net.inet.tcp.ecn_initiate_out=0, Linux "
    "net.ipv4.tcp_ecn=0): the flow should then run like the client's other flows" };

static const advice LOSS_ADVICE = {
    "Locate the loss: a congested bottleneck queue or a lossy link; an AQM with ECN at the bottleneck, or BBR "
    "on the sender, lowers its cost",
    "Capture at both ends: segments sent but never received show where the loss is" };

static advice advice_of(const td_diagnoses *d, const td_flow *flow)
{
    const td_diagnosis *diag = td_diagnosis_of(d, flow);
    const td_flight *f = diagnosed_flight(flow, diag);
    const td_plateau *p;

    switch ((td_cause)diag->cause) {
    case TD_CAUSE_HOST_STALL:
        return (advice) {
            "Find what stopped the host's network stack: buffer exhaustion (macOS/BSD netstat -m, raise "
            "kern.ipc.nmbclusters; Linux nstat, dmesg), a firewall or a driver reset",
            "Capture on the host itself: silent there too means the host stopped sending; watch netstat -m "
            "(mbuf clusters near 100%) during a stall" };
    case TD_CAUSE_ECN_BLACKHOLE:
        return (advice) {
            "A middlebox drops ECN-setup SYNs: fix or bypass it; until then each connection loses a SYN "
            "timeout (1 s or more)",
            "Connect with ECN off (Linux net.ipv4.tcp_ecn=0, macOS net.inet.tcp.ecn_initiate_out=0): the first "
            "SYN is then answered" };
    case TD_CAUSE_WINDOW_COLLAPSE:
        return ecn_driven(f) ? ECN_ADVICE : LOSS_ADVICE;
    case TD_CAUSE_ECN_LOSS_REACTION:
        return ECN_ADVICE;
    case TD_CAUSE_OPTIONS_STRIPPED:
        return (advice) {
            "A middlebox on the path overwrites the SYN's options with NOPs (a firewall's TCP normalisation, "
            "iptables TCPOPTSTRIP): find it (capture on both sides of it) and let window scaling, SACK and "
            "timestamps through",
            "A capture at the sender of that SYN shows the options this one lacks; once let through, the SYN "
            "arrives with its window scale and the window grows past 64 KiB" };
    case TD_CAUSE_MISSING_OPTIONS:
        if (noopt(flow))
            return (advice) {
                "The SYN carried no TCP options (TCP_NOOPT): on macOS setsockopt(IPPROTO_TCP, SO_KEEPALIVE) "
                "sets TCP_NOOPT (0x08); set SO_KEEPALIVE at SOL_SOCKET",
                "After the fix the SYN carries MSS, window scale, SACK and timestamps, and the window grows "
                "past 64 KiB" };
        return (advice) {
            "Enable window scaling on the side that left it out (Linux net.ipv4.tcp_window_scaling=1), or stop "
            "the middlebox that strips it",
            "SYN and SYN-ACK then both carry a window scale, and the window grows past 64 KiB" };
    case TD_CAUSE_RECEIVE_WINDOW:
        return (advice) {
            "Let the receiver's window grow: drop a fixed SO_RCVBUF (it turns autotuning off), raise "
            "net.ipv4.tcp_rmem (Linux) or net.inet.tcp.autorcvbufmax (macOS)",
            "The window the receiver offers (tcp.window_size) stays flat now; after the change it grows with "
            "the transfer" };
    case TD_CAUSE_SENDER_LIMITED:
        p = td_flight_plateau(f);
        if (p && p->onset == TD_ONSET_RETRANSMISSION)
            return (advice) {
                "The sender caps its burst after a retransmission (illumos before #5295: tcp_snd_burst, 5 "
                "segments): update its stack; check its send buffer and pacing too",
                "The plateau starts at the first retransmission and stays while the window has room "
                "(tcpdiag.flight.headroom)" };
        return (advice) {
            "The sender holds its flight below the window: check its send buffer (SO_SNDBUF, "
            "net.ipv4.tcp_wmem) and any pacing cap (SO_MAX_PACING_RATE)",
            "The plateau moves when the sender's limit does, while the receiver's window has room to spare" };
    case TD_CAUSE_OFFLOAD_CAPPED:
        return (advice) {
            "Test with segmentation offload off on the sender (macOS sysctl net.inet.tcp.tso=0, Linux ethtool "
            "-K IFACE tso off gso off)",
            "If the capped flows then run like the others, offload is at fault: report it to the OS or NIC "
            "vendor" };
    case TD_CAUSE_PATH_LOSS:
        return LOSS_ADVICE;
    case TD_CAUSE_SLOW_START_RESTART:
        return (advice) {
            "On the sender, net.ipv4.tcp_slow_start_after_idle=0 (Linux) keeps the window across idle; or keep "
            "the connection busy between requests",
            "With it off, the first round after a pause carries the flight of the burst before (ss -ti on the "
            "sender: cwnd stays across idle)" };
    case TD_CAUSE_HANDSHAKE_RETRY:
        return (advice) {
            "A full listen queue: raise the server's backlog (listen(), net.core.somaxconn, "
            "net.ipv4.tcp_max_syn_backlog) and accept faster; otherwise find where SYNs or SYN-ACKs die",
            "On the server, nstat -az TcpExtListenOverflows TcpExtListenDrops grows with each retried SYN; "
            "if not, capture at the server to see whether the SYNs arrive" };
    case TD_CAUSE_DEAD_PEER:
        return (advice) {
            "Find what went away: the peer host (crashed, rebooted, unplugged) or a middlebox on the path (a "
            "NAT or firewall that dropped the connection's state)",
            "Capture at the other end: nothing arrives there from this flow after the silence began; nstat "
            "TcpExtTCPAbortOnTimeout grows on the side that gave up" };
    case TD_CAUSE_PMTU_BLACKHOLE:
        return (advice) {
            "Let ICMP fragmentation-needed (IPv4 type 3 code 4) and packet-too-big (ICMPv6 type 2) through on the "
            "path, or clamp the MSS at the tunnel or smaller-MTU hop (iptables TCPMSS --clamp-mss-to-pmtu)",
            "ping -M do -s 1472 (IPv4) toward the receiver dies silently past the hop; the sender's nstat "
            "TcpExtTCPMTUPFail and TCPMTUPSuccess count its MTU probing" };
    case TD_CAUSE_ZERO_WINDOW:
        return (advice) {
            "Look at the receiving application: it reads slower than the data comes (a slow disk or consumer, a "
            "blocked thread); a bigger buffer only delays the stop",
            "ss -tm on the receiver shows a full receive queue (Recv-Q) while the window is zero; nstat "
            "TcpExtTCPToZeroWindowAdv counts the zero windows" };
    case TD_CAUSE_QUEUEING_DELAY:
        return (advice) {
            "An AQM at the bottleneck (fq_codel or CAKE on the router or modem, shaped just below the link's "
            "rate): the bulk flows then keep its queue short, and this flow's packets stop waiting behind them",
            "Ping across the bottleneck while the bulk transfer runs: its round trip grows like this flow's; "
            "after the change it stays near the empty path's" };
    case TD_CAUSE_NAGLE_DELAYED_ACK:
        return (advice) {
            "Set TCP_NODELAY on the sending socket, or write each request in one call (one send(), writev): "
            "Nagle holds a small segment while an earlier one is unacknowledged, and the peer delays that ACK",
            "After the change each request leaves at once, its parts together; on a Linux peer nstat "
            "TcpExtDelayedACKs stops growing with every exchange" };
    case TD_CAUSE_RETRANSMISSION_TIMEOUT:
        return (advice) {
            "Find the loss (capture at both ends); tail loss is what RACK and TLP recover (Linux "
            "net.ipv4.tcp_recovery); requests lost into a full accept queue point at the server's backlog",
            "nstat TcpExtTCPTimeouts (Linux) or netstat -s retransmit timeouts on the sender grows with these "
            "flows" };
    case TD_CAUSE_SERVER_DELAY:
        return (advice) {
            "Look at the server application (its log, its accept loop and backlog, its database): the network "
            "delivered the request promptly",
            "Capture on the server or read its log: the gap between the request and the reply is there too" };
    case TD_CAUSE_CLIENT_DELAY:
        return (advice) {
            "Look at the client application: what it did between the reply and its next request (processing, "
            "user think time, a slow producer); the server and the network were waiting on it",
            "Capture on the client: the gap between the reply and the next request is there too" };
    case TD_CAUSE_ROUND_TRIP_BOUND:
        return (advice) {
            "Fewer round trips (keep connections open, TLS 1.3 or session resumption, batched requests) or a "
            "server closer to the client",
            "The same exchange to a nearby server takes as many round trips, each shorter" };
    case TD_CAUSE_APP_LIMITED:
        return (advice) {
            "Look at the sending application (disk, database, producer, its own pacing), not the network: the "
            "connection waited on it",
            "On Linux, ss -ti on the sender shows app_limited and an empty send queue during the gaps" };
    case TD_CAUSE_NONE:
    case TD_CAUSE_UNKNOWN:
    case TD_CAUSE_COUNT:
        break;
    }
    return (advice) { NULL, NULL };
}

const char *td_advice_fix(const td_diagnoses *d, const td_flow *flow)
{
    return advice_of(d, flow).fix;
}

const char *td_advice_confirm(const td_diagnoses *d, const td_flow *flow)
{
    return advice_of(d, flow).confirm;
}
