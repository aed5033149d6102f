#pragma once
/// \file
/// \brief Every operation of chapter 05: include this one header to use them all.

#include "kael/ops/binary.h"
#include "kael/ops/compare.h"
#include "kael/ops/indexing.h"
#include "kael/ops/inplace.h"
#include "kael/ops/join.h"
#include "kael/ops/linalg.h"
#include "kael/ops/nn.h"
#include "kael/ops/reduce.h"
#include "kael/ops/unary.h"
