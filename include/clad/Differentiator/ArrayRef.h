#pragma once
// A Clad header path user code includes: all of Clad's API on adjc is in Differentiator.h.
#include "clad/Differentiator/Differentiator.h"
