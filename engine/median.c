/* Medians of small arrays of doubles. */
#include "median.h"

#include <stdlib.h>

int td_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double td_median_sorted(const double *values, size_t n)
{
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double td_median(double *values, size_t n)
{
    if (!n)
        return -1;
    qsort(values, n, sizeof values[0], td_compare_double);
    return td_median_sorted(values, n);
}
