/* internal.h - every area's declarations at once, for tests and fuzz
 * targets (a file of lib/ includes its own area's header). */
#ifndef NOPCTL_INTERNAL_H
#define NOPCTL_INTERNAL_H

#include "doctor/doctor.h"

#endif
