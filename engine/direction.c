#include "direction.h"

#include <stddef.h>

#include "congestion.h"
#include "offload.h"

/* The only place that names the analyses, so flight.c needs none of them. */
const td_dir_ops *const td_dir_analyses[] = { &td_cc_ops, &td_offload_ops, NULL };
