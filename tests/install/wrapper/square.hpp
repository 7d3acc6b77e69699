#pragma once
// Included by a quoted name from square.cpp's folder: adjc++ compiles adjc's output elsewhere.
inline double square(double x) { return x * x; }
