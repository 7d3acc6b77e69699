#pragma once
// Clad's differentiation orders and options (clad::opts::disable_tbr, ...), as Clad numbers them:
// one unsigned word, the order in the low 8 bits and an option per bit above.
namespace clad {

enum order : unsigned { first = 1, second = 2, third = 3 };

enum opts : unsigned {
  use_enzyme = 1u << 8,
  vector_mode = 1u << 9,
  enable_tbr = 1u << 10,
  disable_tbr = 1u << 11,
  diagonal_only = 1u << 12,
  enable_va = 1u << 13,
  disable_va = 1u << 14,
  immediate_mode = 1u << 15,
  enable_ua = 1u << 17,
  disable_ua = 1u << 18,
};

}  // namespace clad
