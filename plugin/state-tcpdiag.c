/* The open capture file's analysis (state-tcpdiag.h): one engine per file, its flows
 * settling as the command's do (settle.h), and the host rules and diagnosis built
 * once, on first use after the read. */

#include "state-tcpdiag.h"
#include "gui-tcpdiag.h"
#include "settle.h"

static td_engine *engine;
static td_settler *settler;
static td_hosts *hosts;
static td_diagnoses *diagnoses;

void tcpdiag_state_open(const td_config *config, const td_hosts_config *hosts_config)
{
    engine = td_engine_new(config);
    settler = td_settler_new(engine, hosts_config, NULL, NULL);
}

void tcpdiag_state_close(void)
{
    td_hosts_free(hosts);
    hosts = NULL;
    td_diagnoses_free(diagnoses);
    diagnoses = NULL;
    td_settler_free(settler);
    settler = NULL;
    td_engine_free(engine);
    engine = NULL;
}

td_engine *tcpdiag_state_engine(void)
{
    return engine;
}

void tcpdiag_state_clock(int64_t time_ns)
{
    if (settler && !td_engine_finished(engine))
        td_settler_clock(settler, time_ns);
}

bool tcpdiag_state_complete(void)
{
    return tcpdiag_file_read();
}

const td_hosts *tcpdiag_state_hosts(void)
{
    if (!engine)
        return NULL;
    if (!hosts)
        td_settler_finish(settler, &hosts, &diagnoses);
    return hosts;
}

const td_diagnoses *tcpdiag_state_diagnoses(void)
{
    return tcpdiag_state_hosts() ? diagnoses : NULL;
}
