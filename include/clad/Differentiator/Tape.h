#pragma once
// clad::tape and the helpers Clad's custom derivatives use with it (push, pop, back), on
// adjoint::tape; and the pairs Clad's custom `_reverse_forw` functions return.
#include <utility>

#include "adjoint/tangent.hpp"
#include "adjoint/tape.hpp"

namespace clad {

template <class T>
using tape = adjoint::tape<T>;

// Pushes `value` and returns the element on the tape.
template <class T, class U>
T& push(tape<T>& t, U&& value) {
  t.push(T(std::forward<U>(value)));
  return t.back();
}

template <class T>
T pop(tape<T>& t) {
  return t.pop();
}

template <class T>
T& back(tape<T>& t) {
  return t.back();
}

template <class T, class U>
struct ValueAndAdjoint {
  T value;
  U adjoint;
};

// adjc's own pair: generated pushforwards return it, and a further derivative differentiates it.
template <class T, class U>
using ValueAndPushforward = adjoint::value_and_pushforward<T, U>;

}  // namespace clad
