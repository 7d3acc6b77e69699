// Clad's tests include "../PrintOverloads.h" beside TestUtils.h; the gradient tests measure.py
// runs need nothing from it.
#pragma once
#include "TestUtils.h"
