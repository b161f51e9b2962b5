/* Whether the running program prints any of tcpdiag's tree items, read from its
 * command line (printed-tcpdiag.c): tshark -T fields prints only its -e fields. */
#ifndef TCPDIAG_PRINTED_H
#define TCPDIAG_PRINTED_H

#include <stdbool.h>

/* Reads the command line; at registration, before tshark reads its options (it
 * splits some of their values in place). */
void tcpdiag_printed_init(void);
/* True only when the program is tshark printing -T fields and no -e field can be a
 * tcpdiag item or lie beside one (tcpdiag.*, _ws.expert*), with no -X extension
 * that could read the tree: then a shown tree may leave the items out. False in
 * every other case and whenever the command line cannot be read or understood. */
bool tcpdiag_items_unprinted(void);

/* The rule behind it, on argv as main() gets it (argv[argc] need not be NULL). */
bool tcpdiag_items_unprinted_by(int argc, char *const argv[]);

#endif
