/* Medians of measured values, one implementation for the response ratios
 * (congestion.c), the cut factors (ccid.c) and the reference groups' rates
 * (diagnosis.c). */
#ifndef TCPDIAG_MEDIAN_H
#define TCPDIAG_MEDIAN_H

#include <stddef.h>

/* Orders doubles for qsort() and g_array_sort(). */
int td_compare_double(const void *a, const void *b);
/* The median of n > 0 values already in order: the middle one, or the mean of the two. */
double td_median_sorted(const double *values, size_t n);
/* Sorts values in place and returns their median, -1 when n is 0. */
double td_median(double *values, size_t n);

#endif
