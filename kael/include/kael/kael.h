#pragma once
/// \file
/// \brief The umbrella header: everything a program that works with tensors needs.
///
/// Later chapters add their own headers here as they arrive.

//> stage 7
#include "kael/autograd.h"
//< stage 7
//> stage 9
#include "kael/allocator.h"
//< stage 9
//> stage 8
#include "kael/data.h"
#include "kael/io/safetensors.h"
#include "kael/nn.h"
#include "kael/optim.h"
//< stage 8
//> stage 13
#include "kael/text.h"
//< stage 13
//> stage 14
#include "kael/debug.h"
#include "kael/generator.h"
#include "kael/profiler.h"
//< stage 14
#include "kael/checked_math.h"
#include "kael/device.h"
#include "kael/dtype.h"
#include "kael/error.h"
#include "kael/factory.h"
//> stage 6
#include "kael/ops.h"
//< stage 6
#include "kael/random.h"
//> stage 5
#include "kael/broadcast.h"
#include "kael/iterator.h"
#include "kael/kernels.h"
#include "kael/scalar.h"
//< stage 5
#include "kael/shape.h"
#include "kael/storage.h"
#include "kael/tensor.h"
#include "kael/tensor_impl.h"
#include "kael/version.h"
//> stage 4
#include "kael/view.h"
//< stage 4
