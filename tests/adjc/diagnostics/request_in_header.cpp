// The file includes itself once: the second copy stands for a header with a request in it.
#ifndef REQUEST_IN_HEADER_INCLUDED
#define REQUEST_IN_HEADER_INCLUDED
#include "request_in_header.cpp"
#else
#include <adjoint/ad.hpp>
inline double sq(double x) { return x * x; }
inline double run() { double dx = 0; adjoint::gradient(sq).execute(3.0, &dx); return dx; }  // error: adjoint::gradient is requested in a header, which adjc does not rewrite (it rewrites the file it compiles); request it in the .cpp file (the function may stay in the header)
#endif
