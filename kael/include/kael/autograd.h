#pragma once
/// \file
/// \brief Autograd (chapter 06): grad mode, the graph, the engine and gradcheck.

//> stage 14
#include "kael/autograd/anomaly.h"
#include "kael/autograd/dot.h"
//< stage 14
#include "kael/autograd/engine.h"
#include "kael/autograd/grad_mode.h"
#include "kael/autograd/gradcheck.h"
#include "kael/autograd/meta.h"
#include "kael/autograd/node.h"
