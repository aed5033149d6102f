#pragma once
/// \file
/// \brief Every operation of chapter 05: include this one header to use them all.

//> stage 12
#include "kael/ops/attention.h"
//< stage 12
#include "kael/ops/binary.h"
#include "kael/ops/compare.h"
#include "kael/ops/indexing.h"
#include "kael/ops/inplace.h"
#include "kael/ops/join.h"
#include "kael/ops/linalg.h"
#include "kael/ops/nn.h"
#include "kael/ops/reduce.h"
//> stage 12
#include "kael/ops/sort.h"
//< stage 12
#include "kael/ops/unary.h"
