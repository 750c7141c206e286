// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - instantiate the tracepoints declared in ppf_trace.h
 */
#define CREATE_TRACE_POINTS
#include "ppf_trace.h"
