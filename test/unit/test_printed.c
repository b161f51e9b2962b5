/* plugin/printed-tcpdiag.c: which tshark command lines may leave tcpdiag's items
 * out of a shown tree. Every case where they are printed, or where the line is not
 * understood, must answer false: a wrong true would drop fields from the output. */
#include <glib.h>
#include <stdio.h>
#include "printed-tcpdiag.h"

typedef struct example {
    const char *line;           /* words separated by single spaces */
    bool unprinted;
} example;

static const example EXAMPLES[] = {
    { "tshark -r f.pcap -T fields -e frame.number -e tcp.stream", true },
    { "/usr/bin/tshark -r /var/tmp/tcpdiag-bench/bench.pcap -T fields -e tcp.stream", true },
    { "tshark -2 -r f.pcap -Tfields -eframe.len", true },
    { "tshark -nqr f.pcap -T fields -E header=y -e tcp.stream", true },
    { "tshark --read-file f.pcap --display-filter tcp -T fields -e tcp.stream", true },
    { "tshark --read-file=f.pcap -T fields -e _ws.col.Info", true },
    /* tcpdiag's items are printed */
    { "tshark -r f.pcap -T fields -e tcp.stream -e tcpdiag.diag.cause", false },
    { "tshark -r f.pcap -T fields -etcpdiag.dir", false },
    { "tshark -qT fields -e tcpdiag -r f.pcap", false },
    { "tshark -r f.pcap -T fields -e _ws.expert.message", false },
    { "tshark -r f.pcap -V", false },
    { "tshark -r f.pcap -T json -e tcp.stream", false },
    { "tshark -r f.pcap -T fields -e tcp.stream -T json", false },
    { "tshark -r f.pcap -T fields -e tcp.stream -V", true },    /* -T fields prints fields only */
    /* "fields" is not the -T value: the value of -e, then of a cluster's last option */
    { "tshark -r f.pcap -e -T fields", false },
    { "tshark -r f.pcap -Y -T -V", false },
    /* not understood, or able to read the whole tree */
    { "tshark -r f.pcap -T fields -e tcp.stream -X lua_script:walk.lua", false },
    { "tshark -r f.pcap -T fields -e tcp.stream --some-future-option", false },
    /* a short option it does not know might take no argument: the -e after it counts */
    { "tshark -r f.pcap -Z -e tcpdiag.dir -T fields", false },
    { "tshark -r f.pcap -T fields -e tcp.stream -k", false },
    /* an option's value as tshark leaves it once it has split it in place */
    { "tshark -r f.pcap -T fields -E separator , -E occurrence=a -e tcpdiag.dir", false },
    { "tshark -r f.pcap -T fields -E separator , -e tcp.stream", true },
    { "tshark -r f.pcap -T fields -e tcp.stream -- tcp", false },
    { "tshark -r f.pcap -T", false },
    { "wireshark -r f.pcap -T fields -e tcp.stream", false },
    { "", false },
};

int main(void)
{
    int failures = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(EXAMPLES); i++) {
        char **argv = g_strsplit(EXAMPLES[i].line, " ", -1);
        int argc = (int)g_strv_length(argv);
        bool got = tcpdiag_items_unprinted_by(argc, argv);
        if (got != EXAMPLES[i].unprinted) {
            printf("FAIL: \"%s\": %s, expected %s\n", EXAMPLES[i].line, got ? "true" : "false",
                   EXAMPLES[i].unprinted ? "true" : "false");
            failures++;
        }
        g_strfreev(argv);
    }
    printf("%s: %zu command lines\n", failures ? "FAIL" : "ok", G_N_ELEMENTS(EXAMPLES));
    return failures ? 1 : 0;
}
