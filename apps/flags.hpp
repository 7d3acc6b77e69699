// Validators for the number flags of every command. They parse the text themselves, so "abc",
// "nan", "inf", "1e999" and out-of-range values all get one readable message naming the range
// ("--beta1: 1 is not a number in [0, 1)"), and --help shows the range beside the flag.
#pragma once
#include <CLI/CLI.hpp>

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/core.h>

namespace adjoint::cli {

// A whole number in [min, max] (max = INT_MAX reads as ">= min").
inline CLI::Validator whole_number(long long min, long long max = INT_MAX) {
  const std::string range = max == INT_MAX ? fmt::format(">= {}", min) : fmt::format("in [{}, {}]", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        const bool too_long = error == std::errc::result_out_of_range;  // beyond 64 bits: out of range too
        if (too_long) value = text[0] == '-' ? LLONG_MIN : LLONG_MAX;
        if ((error != std::errc{} && !too_long) || stop != end || value < min) {
          return fmt::format("{} is not a whole number {}", text, range);
        }
        if (value > max) return fmt::format("{} is not a whole number in [{}, {}]", text, min, max);
        return {};
      },
      range);
}

// A finite number between min and max; an open end excludes its bound. max = INFINITY means
// unbounded above (the value must still fit a float).
inline CLI::Validator real_number(double min, double max, bool min_open = false, bool max_open = false) {
  const std::string range =
      std::isinf(max) ? fmt::format("{} {}", min_open ? ">" : ">=", min)
                      : fmt::format("in {}{}, {}{}", min_open ? "(" : "[", min, max, max_open ? ")" : "]");
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool parsed = !text.empty() && end == text.c_str() + text.size();
        const bool in_range = std::abs(value) <= 3.4e38 && (min_open ? value > min : value >= min) &&
                              (max_open ? value < max : value <= max);
        if (!parsed || !in_range) return fmt::format("{} is not a finite number {}", text, range);
        return {};
      },
      range);
}

}  // namespace adjoint::cli
