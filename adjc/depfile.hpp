// Make-style dependency files, as adjc (-MF) and adjc++ (rewriting the compiler's) write them.
#pragma once
#include <string>

namespace adjc {

// A path as a make rule names it: spaces and '#' escaped with '\', '$' doubled.
inline std::string depfile_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

}  // namespace adjc
