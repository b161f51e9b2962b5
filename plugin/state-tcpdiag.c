/* The open capture file's analysis (state-tcpdiag.h): one engine per file, and the
 * host rules and diagnosis built from it once, on first use after the read. */

#include "state-tcpdiag.h"
#include "gui-tcpdiag.h"

static td_engine *engine;
static const td_hosts_config *rules_config;
static td_hosts *hosts;
static td_diagnoses *diagnoses;

void tcpdiag_state_open(const td_config *config, const td_hosts_config *hosts_config)
{
    engine = td_engine_new(config);
    rules_config = hosts_config;
}

void tcpdiag_state_close(void)
{
    td_hosts_free(hosts);
    hosts = NULL;
    td_diagnoses_free(diagnoses);
    diagnoses = NULL;
    td_engine_free(engine);
    engine = NULL;
}

td_engine *tcpdiag_state_engine(void)
{
    return engine;
}

bool tcpdiag_state_complete(void)
{
    return tcpdiag_file_read();
}

const td_hosts *tcpdiag_state_hosts(void)
{
    if (!engine)
        return NULL;
    if (!td_engine_finished(engine))
        td_engine_finish(engine);
    if (!hosts)
        hosts = td_hosts_build(engine, rules_config);
    return hosts;
}

const td_diagnoses *tcpdiag_state_diagnoses(void)
{
    const td_hosts *rules = tcpdiag_state_hosts();

    if (!rules)
        return NULL;
    if (!diagnoses)
        diagnoses = td_diagnose(engine, rules);
    return diagnoses;
}
