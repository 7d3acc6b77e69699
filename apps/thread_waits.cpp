// OpenMP's spin before sleeping, set before libgomp loads (thread_waits.hpp).
#include "thread_waits.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern char** environ;

namespace adjoint::cli {
namespace {

bool sets(const char* entry, const char* name) {
  const std::size_t n = std::strlen(name);
  return std::strncmp(entry, name, n) == 0 && entry[n] == '=';
}

}  // namespace

std::vector<std::string> thread_wait_settings(const char* const* environment) {
  for (const char* const* entry = environment; entry && *entry; entry++) {
    if (sets(*entry, "OMP_WAIT_POLICY") || sets(*entry, "GOMP_SPINCOUNT")) return {};
  }
  return {"GOMP_SPINCOUNT=" + std::to_string(kThreadWaitSpins)};
}

void reexecute_with_thread_wait_settings(char** argv) {
  const std::vector<std::string> settings = thread_wait_settings(environ);
  if (settings.empty()) return;
  std::vector<char*> environment;
  for (char** entry = environ; *entry; entry++) environment.push_back(*entry);
  std::vector<std::string> owned = settings;  // execve's strings must outlive the call
  for (std::string& setting : owned) environment.push_back(setting.data());
  environment.push_back(nullptr);
  execve("/proc/self/exe", argv, environment.data());
  // Only on failure (no /proc): run on with OpenMP's default waits.
}

std::string thread_wait_description() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spins = std::getenv("GOMP_SPINCOUNT");
  std::string description;
  if (policy) description += std::string("OMP_WAIT_POLICY=") + policy;
  if (spins) description += std::string(description.empty() ? "" : " ") + "GOMP_SPINCOUNT=" + spins;
  return description.empty() ? "OpenMP's default waits" : description;
}

}  // namespace adjoint::cli
