/* The GUI's capture file as tcpdiag needs it (gui-tcpdiag.c): whether it has been
 * read whole, and a display filter on tcpdiag fields applied again once it has. */
#ifndef TCPDIAG_GUI_H
#define TCPDIAG_GUI_H

#include <stdbool.h>

/* True once the file has been read whole (always in tshark, where a frame seen
 * again is the second pass). */
bool tcpdiag_file_read(void);
/* Re-applies, once the read is over, a display filter that ran before it. */
void tcpdiag_gui_register(void);

#endif
