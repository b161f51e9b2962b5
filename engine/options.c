/* TCP options: the audit of what a flow's handshake left out and what that cost,
 * and the names the fields show them by (engine/segment.c reads them from bytes). */
#include "options.h"

#include <string.h>

static const struct {
    unsigned bit;
    const char *name;
} option_names[] = {
    { TD_OPT_MSS, "mss" }, { TD_OPT_WSCALE, "wscale" }, { TD_OPT_SACK_PERM, "sack_perm" },
    { TD_OPT_TS, "ts" }, { TD_OPT_TFO, "tfo" }, { TD_OPT_MPTCP, "mptcp" }, { TD_OPT_ACCECN, "accecn" },
};

static void join_names(unsigned bits, bool negotiated_names, char *buf, size_t size)
{
    size_t used = 0;

    if (size == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < G_N_ELEMENTS(option_names); i++) {
        if (!(bits & option_names[i].bit))
            continue;
        const char *name = negotiated_names && option_names[i].bit == TD_OPT_SACK_PERM
                               ? "sack" : option_names[i].name;
        used += (size_t)g_snprintf(buf + used, size > used ? (gulong)(size - used) : 0, "%s%s",
                                   used ? "," : "", name);
        if (used >= size)
            break;
    }
    if (!buf[0])
        g_strlcpy(buf, "none", size);
}

void td_options_list(unsigned present, char *buf, size_t size)
{
    join_names(present, false, buf, size);
}

void td_options_missing_list(unsigned bits, char *buf, size_t size)
{
    join_names(bits, true, buf, size);
}

const char *td_tristate_name(td_tristate value)
{
    return value == TD_YES ? "yes" : value == TD_NO ? "no" : "unknown";
}

static double data_rate(const td_dir_stats *dir)
{
    int64_t span = dir->last_data_ns - dir->first_data_ns;
    return span > 0 ? (double)dir->payload_bytes * 1e9 / (double)span : 0;
}

/* Whether a direction sent more than one unscaled window holds: a transfer that all
 * fits in 64 KiB never had to wait for the window to open, whatever its rate (an
 * 800-byte keep-alive exchange sent in a millisecond was held by nothing). */
static bool outgrew_window(const td_dir_stats *dir)
{
    return dir->payload_bytes > TD_NO_WSCALE_WINDOW;
}

/* RFC 9293 §3.7.1: without an MSS option the peer assumes 536 (IPv4);
 * RFC 8200 gives IPv6 a 1280-byte minimum MTU, hence 1220. */
static uint16_t default_mss(const td_addr *addr)
{
    return addr->len == 16 ? 1220 : 536;
}

/* Timestamps on a segment after the handshake, of either side, prove them negotiated. */
static bool later_timestamps(const td_flow *flow)
{
    return td_flow_sent(flow, 0)->sent_ts || td_flow_sent(flow, 1)->sent_ts;
}

bool td_options_overwritten(const td_syn_options *opts)
{
    return opts->nop_run > TD_NOP_PADDING_MAX && (opts->present & TD_OPT_NEGOTIATED) != TD_OPT_NEGOTIATED;
}

void td_options_audit_flow(const td_flow *flow, td_options_audit *audit)
{
    static const unsigned negotiated[3] = { TD_OPT_WSCALE, TD_OPT_SACK_PERM, TD_OPT_TS };
    static const unsigned audited = TD_OPT_MSS | TD_OPT_NEGOTIATED;
    int client = flow->client, server = td_flow_server(flow);
    unsigned announced[2], known[2];
    int64_t to_server, to_client;
    td_handshake scratch;
    const td_handshake *hs;
    bool later_ts;

    memset(audit, 0, sizeof *audit);
    if (client < 0)
        return;
    /* A lone SYN's handshake is built on each td_flow_hs: once here, for every
     * question below (the options audit runs on each SYN of a SYN flood). */
    hs = td_flow_hs(flow, &scratch);
    later_ts = later_timestamps(flow);
    td_handshake_announced(hs, client, later_ts, &announced[0], &known[0]);
    td_handshake_announced(hs, server, later_ts, &announced[1], &known[1]);
    for (int role = 0; role < 2; role++) {
        if ((known[role] & TD_OPT_MSS) && !(announced[role] & TD_OPT_MSS))
            audit->default_mss[role] = default_mss(&flow->addr[role == 0 ? client : server]);
    }
    audit->overwritten[0] = hs->opts_seen[client] && td_options_overwritten(&hs->opts[client]);
    audit->overwritten[1] = hs->opts_seen[server] && td_options_overwritten(&hs->opts[server]);
    audit->client_seen = (known[0] & audited) == audited;
    audit->server_seen = (known[1] & audited) == audited;
    if (audit->client_seen)
        audit->left_out_by_client = audited & ~announced[0];
    if (audit->server_seen)
        audit->left_out_by_server = audited & ~announced[1];
    audit->settled = true;
    for (int i = 0; i < 3; i++) {
        audit->used[i] = td_handshake_option_used(hs, later_ts, negotiated[i]);
        if (audit->used[i] == TD_NO)
            audit->missing |= negotiated[i];
        audit->settled = audit->settled && audit->used[i] != TD_UNKNOWN;
    }
    audit->ts_stripped[0] = td_flow_sent(flow, client)->first_frame_without_ts != 0;
    audit->ts_stripped[1] = td_flow_sent(flow, server)->first_frame_without_ts != 0;
    if (!(audit->missing & TD_OPT_WSCALE))
        return;
    /* RFC 7323 §2.2: scaling applies only when both SYNs carry the option. */
    audit->window_ceiling = TD_NO_WSCALE_WINDOW;
    if (td_flow_handshake_halves(flow, &to_server, &to_client) && to_server + to_client > 0) {
        audit->ceiling_throughput = TD_NO_WSCALE_WINDOW * 1e9 / (double)(to_server + to_client);
        const td_dir_stats *sent[2] = { td_flow_sent(flow, client), td_flow_sent(flow, server) };
        double rate = MAX(data_rate(sent[0]), data_rate(sent[1]));
        if (rate > 0)
            audit->at_ceiling = (outgrew_window(sent[0]) || outgrew_window(sent[1])) &&
                                rate >= TD_AT_CEILING_SHARE * audit->ceiling_throughput ? TD_YES : TD_NO;
    }
}

const char *td_options_ts_stripped_name(const td_options_audit *audit)
{
    if (audit->ts_stripped[0] && audit->ts_stripped[1])
        return "both";
    if (audit->ts_stripped[0] || audit->ts_stripped[1])
        return audit->ts_stripped[0] ? "c2s" : "s2c";
    return NULL;
}

void td_syn_options_describe(const td_syn_options *opts, char *announced, char *unreadable, size_t size)
{
    announced[0] = unreadable[0] = '\0';
    if (opts->present || !opts->unknown)
        td_options_list(opts->present, announced, size);
    if (opts->unknown)
        td_options_list(opts->unknown, unreadable, size);
}
