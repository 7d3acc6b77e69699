#pragma once
// A function differentiated from a header: adjc generates its derivative in the including file.
inline double header_model(const double* w, double x) { return w[0] * x * x + w[1] * x; }
