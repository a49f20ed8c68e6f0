// SPDX-License-Identifier: BSD-3-Clause
// For unit tests that include the library's __host__ __device__ headers (the plans and
// layouts that host and device compute alike) in plain C++: the qualifiers become nothing.
// Include it before those headers.
#pragma once

#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
