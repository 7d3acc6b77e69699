#pragma once
// clad::tape and the helpers Clad's custom derivatives use with it (push, pop, back), on
// adjoint::tape; the pairs Clad's custom `_reverse_forw` functions return, and the state they pass
// to the pullback.
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

// What a custom `f_reverse_forw` leaves for `f_pullback` (Clad's stateful custom derivatives): adjc
// makes one per call in the forward sweep, passes it to both, and frees it after the pullback.
template <class T>
struct pullback_state {
  T data{};
};

template <class T, class U>
struct ValueAndAdjoint {
  T value;
  U adjoint;
};

// adjc's own pair: generated pushforwards return it, and a further derivative differentiates it.
template <class T, class U>
using ValueAndPushforward = adjoint::value_and_pushforward<T, U>;

}  // namespace clad
