/* tcpdiag.host and tcpdiag.sender: the Notes of the per-host rules of engine/hosts.c
 * on the first packet of each flow they concern, and `-z tcpdiag,hosts`. Nothing
 * here runs per packet: one lookup at a flow's first packet. */

#include "ws_compat.h"

#include <stdio.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "state-tcpdiag.h"
#include "analysis_messages.h"
#include "advice.h"
#include "text.h"

static bool at_flow_start(const td_flow *flow, uint32_t frame)
{
    return frame == flow->first_frame && td_flow_roles_known(flow);
}

void tcpdiag_host_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_hosts *hosts = tcpdiag_state_hosts();
    const td_client_summary *client;
    GString *message;

    if (!hosts || !at_flow_start(flow, pinfo->num))
        return;
    message = g_string_new(NULL);
    if ((client = td_hosts_ecn_slower_of(hosts, flow)) != NULL) {
        td_message_ecn_slower(client, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_HOST_ECN_SLOWER, message);
    }
    if (td_hosts_offload_unused(hosts, flow)) {
        td_message_offload_unused(td_hosts_sender_of(hosts, flow), message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_SENDER_OFFLOAD_UNUSED, message);
    }
    g_string_free(message, TRUE);
}

/* ---------------------------------------------------------------- -z tcpdiag,hosts */

static void draw_hosts(void *tapdata _U_)
{
    GString *text = g_string_new("");

    /* tshark draws after its last pass: the capture has been read in full, also
     * without -2. */
    td_text_hosts_framed(tcpdiag_state_hosts(), text);
    fputs(text->str, stdout);
    g_string_free(text, TRUE);
}

static td_stat_init_result init_hosts(const char *opt_arg _U_, void *userdata _U_)
{
    GString *error = register_tap_listener("tcpdiag", NULL, NULL, TL_REQUIRES_NOTHING, NULL, NULL, draw_hosts, NULL);

    if (error) {
        fprintf(stderr, "tshark: couldn't register tcpdiag,hosts tap: %s\n", error->str);
        g_string_free(error, TRUE);
    }
    TD_STAT_INIT_RETURN(error == NULL);
}

void tcpdiag_host_register(void)
{
    static stat_tap_ui hosts_ui = {
        REGISTER_STAT_GROUP_GENERIC,
        "tcpdiag per-host rules",
        "tcpdiag,hosts",
        init_hosts,
        0,
        NULL
    };

    register_stat_tap_ui(&hosts_ui, NULL);
}
