// How long OpenMP's threads spin before they sleep. libgomp (the runtime of our kernels, OpenBLAS
// and oneDNN alike) spins up to 300 000 times (milliseconds) at a barrier or between parallel
// regions before it sleeps. When another process takes a core, the thread a barrier waits for is
// often the one preempted, and its partner's spinning keeps it off the core: a 2-thread step ran
// ~10x slower under one busy process. A short spin gives the core back within microseconds.
// libgomp reads its settings once, when it is loaded, before main: so main re-executes the program
// with them set, unless the user chose OpenMP's waits.
#pragma once
#include <string>
#include <vector>

namespace adjoint::cli {

// Spins before a waiting OpenMP thread sleeps (GOMP_SPINCOUNT), tens of microseconds; libgomp
// itself spins 1000 times (100 without OMP_WAIT_POLICY) once threads outnumber cores, but it
// cannot see other processes' threads (docs/performance.md, Shared cores).
inline constexpr int kThreadWaitSpins = 1000;

// The settings ("NAME=value") to add to the environment (null-terminated, as environ), none when
// it already sets OMP_WAIT_POLICY or GOMP_SPINCOUNT.
std::vector<std::string> thread_wait_settings(const char* const* environment);

// With settings to add, re-executes this program (/proc/self/exe) with them and the same
// arguments; returns when there are none, or when the exec fails (the program then runs with
// OpenMP's defaults).
void reexecute_with_thread_wait_settings(char** argv);

// "GOMP_SPINCOUNT=10000" or the like, what this process runs with (bench prints it).
std::string thread_wait_description();

}  // namespace adjoint::cli
