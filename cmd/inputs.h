/* The files the command's arguments name: a file as given, a directory walked, or
 * the files of a dumpcap ring buffer as they appear (--follow). */
#ifndef TCPDIAG_CMD_INPUTS_H
#define TCPDIAG_CMD_INPUTS_H

#include <glib.h>
#include <stdbool.h>

typedef struct td_input {
    char *path;
    bool in_directory;      /* found by walking a folder: skipped, not an error, if no capture */
} td_input;

typedef struct td_inputs {
    GArray *files;          /* td_input, in the order they are analysed and printed */
    GPtrArray *errors;      /* "PATH: reason" for folders that could not be read */
    guint skipped;          /* entries of walked folders that cannot be captures (fifos, links to folders...) */
} td_inputs;

/* Each argument in turn: a directory's files, recursively, sorted by name (byte
 * order) so that the order is the same on every machine; anything else ("-" for
 * standard input, a missing file) as it is, for the reader to judge. */
td_inputs *td_inputs_collect(char **args, int count);
void td_inputs_free(td_inputs *inputs);

/* The files of a dumpcap ring buffer present now, in the order dumpcap wrote them:
 * for `dumpcap -b ... -w DIR/STEM.EXT`, DIR/STEM_NNNNN_YYYYMMDDHHMMSS.EXT by their
 * number NNNNN (paths, g_free'd with the array); NULL and *error when DIR cannot be
 * read. */
GPtrArray *td_ring_files(const char *ring, char **error);

#endif
