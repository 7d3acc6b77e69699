#include "clad/Differentiator/Differentiator.h"
// Clad's pragma takes ON, OFF or DEFAULT; another word is reported rather than read as ON.
double sq(double x) { return x * x; }
#pragma clad PAUSE  // error: '#pragma clad PAUSE' is not a Clad pragma adjc knows; write '#pragma clad ON', 'OFF' or 'DEFAULT'
void request() { auto g = clad::gradient(sq); (void)g; }
