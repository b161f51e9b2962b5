/* --summary, the answer first for many files: one line per file (its flows, how
 * many are slow and why, what they lost, or why it could not be read), then the
 * findings of every file ranked by the time they lost, each with its file and streams. */
#ifndef TCPDIAG_CMD_SUMMARY_H
#define TCPDIAG_CMD_SUMMARY_H

#include <glib.h>
#include "capture.h"

/* What the summary keeps of one analysed file, so the file's engine can be freed. */
typedef struct td_file_summary td_file_summary;
td_file_summary *td_file_summary_of(const td_capture *c);
void td_file_summary_free(td_file_summary *file);

typedef struct td_summary td_summary;
td_summary *td_summary_new(void);
/* Takes file; files are listed in the order added. */
void td_summary_add(td_summary *summary, td_file_summary *file);
/* The file lines, then at most a screen of ranked findings and how many more. */
void td_summary_write(const td_summary *summary, GString *out);
void td_summary_free(td_summary *summary);

#endif
