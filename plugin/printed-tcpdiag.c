/* Whether tshark prints any of tcpdiag's tree items, from its command line.
 *
 * tshark makes the tree visible for -T fields as for -V and -T json, and Wireshark
 * 4.0 primes no -e field: a dissector sees the same tree whether the whole of it
 * is printed or one column of it. Building tcpdiag's 20 to 170 items on every
 * packet for a `-T fields -e tcp.stream` that prints none of them cost 15 % of
 * tshark's time (test/bench/README.md). The options tshark was started with say
 * what it prints, so they are read here, once, the way tshark's getopt reads them;
 * anything not understood means "printed", which is always correct, only slower. */

#include "printed-tcpdiag.h"

#include <glib.h>
#include <string.h>

/* tshark's short options (tshark -h, 4.0 to 4.6): those that take no argument, and
 * those that take one. Any other letter is not understood: a new option could take
 * no argument, and reading it as taking one would hide the -e after it. */
static const char NO_ARGUMENT[] = "2DILPQVghlnpqvx";
static const char ARGUMENT[] = "ABCEFGHJKMNORSTUWXYabcdefijorstuwyz";
/* Its long options that take no argument; every other known one takes one. */
static const char *const LONG_NO_ARGUMENT[] = {
    "color", "no-duplicate-keys", "print", "no-promiscuous-mode", "monitor-mode", "list-interfaces",
    "list-data-link-types", "list-time-stamp-types", "help", "version", NULL
};
static const char *const LONG_ARGUMENT[] = {
    "interface", "snapshot-length", "buffer-size", "linktype", "time-stamp-type", "autostop", "ring-buffer",
    "read-file", "read-filter", "display-filter", "enable-protocol", "disable-protocol", "enable-heuristic",
    "disable-heuristic", "capture-comment", "hexdump", "export-objects", "export-tls-session-keys",
    "elastic-mapping-filter", "temp-dir", "log-level", "log-fatal", "log-domains", "log-debug", "log-noisy",
    "log-file", NULL
};

static bool listed(const char *const *names, const char *name, size_t length)
{
    for (; *names; names++)
        if (strlen(*names) == length && strncmp(*names, name, length) == 0)
            return true;
    return false;
}

/* An -e field that tcpdiag's items are, or that sits beside them in the tree
 * (expert info goes under tcpdiag's tree when it is built). */
static bool shows_items(const char *field)
{
    return strstr(field, "tcpdiag") || strstr(field, "_ws.expert");
}

bool tcpdiag_items_unprinted_by(int argc, char *const argv[])
{
    const char *program = argc > 0 ? strrchr(argv[0], '/') : NULL;
    const char *format = NULL;

    program = program ? program + 1 : argc > 0 ? argv[0] : "";
    if (strcmp(program, "tshark") != 0)
        return false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        /* A word that is no option is passed over, not taken as the end of the
         * options: tshark splits some values in place as it reads them ("-E
         * separator=," becomes "separator" and ","), and /proc shows the split.
         * (tshark's getopt stops at a real filter word; options after one make the
         * run an error.) */
        if (arg[0] != '-' || arg[1] == '\0')
            continue;
        if (arg[1] == '-') {
            const char *eq = strchr(arg + 2, '=');
            size_t length = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
            if (length == 0)
                return false;               /* "--": what follows is not read here */
            if (listed(LONG_ARGUMENT, arg + 2, length)) {
                if (!eq)
                    i++;
            } else if (!listed(LONG_NO_ARGUMENT, arg + 2, length))
                return false;
            continue;
        }
        for (const char *c = arg + 1; *c; c++) {
            if (strchr(NO_ARGUMENT, *c))
                continue;
            if (!strchr(ARGUMENT, *c))
                return false;
            /* The option takes the rest of this word, or the next one. */
            const char *value = c[1] ? c + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!value)
                return false;
            if (*c == 'T')
                format = value;
            else if (*c == 'e' && shows_items(value))
                return false;
            else if (*c == 'X')
                return false;               /* a Lua script may walk the whole tree */
            break;
        }
    }
    return format && strcmp(format, "fields") == 0;
}

/* The command line as /proc gives it (Linux); elsewhere none, so items are built. */
static bool read_unprinted(void)
{
    char *text = NULL;
    gsize size = 0;
    bool answer;

    if (!g_file_get_contents("/proc/self/cmdline", &text, &size, NULL))
        return false;
    GPtrArray *argv = g_ptr_array_new();
    for (gsize at = 0; at < size; at += strlen(text + at) + 1)
        g_ptr_array_add(argv, text + at);
    answer = tcpdiag_items_unprinted_by((int)argv->len, (char *const *)argv->pdata);
    g_ptr_array_free(argv, TRUE);
    g_free(text);
    return answer;
}

static bool unprinted;

void tcpdiag_printed_init(void)
{
    unprinted = read_unprinted();
}

bool tcpdiag_items_unprinted(void)
{
    return unprinted;
}
