#pragma once
// ADJOINT_THROW(error): throws `error`; in code built without exceptions (-fno-exceptions) prints
// its message as one line on stderr and aborts instead, so the tape headers compile either way.
#include <cstdio>
#include <cstdlib>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define ADJOINT_THROW(...) throw __VA_ARGS__
#else
namespace adjoint::detail {
template <class Error>
[[noreturn]] void fail(const Error& error) {
  std::fprintf(stderr, "%s\n", error.what());
  std::abort();
}
}  // namespace adjoint::detail
#define ADJOINT_THROW(...) ::adjoint::detail::fail(__VA_ARGS__)
#endif
