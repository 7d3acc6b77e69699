// The OpenMP functions the loaders' code calls, for one thread: Debian has no OpenMP runtime for
// clang 19, so the fuzzers are built without -fopenmp (the pragmas are ignored, the code is serial).
#pragma once
inline int omp_get_max_threads() { return 1; }
inline int omp_get_num_threads() { return 1; }
inline int omp_get_thread_num() { return 0; }
