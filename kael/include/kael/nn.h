#pragma once
/// \file
/// \brief Everything of chapter 07 in one include: modules, layers, initialisers, clipping.

#include "kael/nn/activation.h"
//> stage 12
#include "kael/nn/attention.h"
//< stage 12
#include "kael/nn/clip_grad.h"
#include "kael/nn/container.h"
#include "kael/nn/embedding.h"
//> stage 13
#include "kael/nn/generation.h"
//< stage 13
//> stage 12
#include "kael/nn/gpt.h"
//< stage 12
//> stage 13
#include "kael/nn/gpt2.h"
//< stage 13
#include "kael/nn/init.h"
//> stage 13
#include "kael/nn/kv_cache.h"
//< stage 13
#include "kael/nn/layer_norm.h"
#include "kael/nn/linear.h"
#include "kael/nn/module.h"
//> stage 12
#include "kael/nn/sampling.h"
//< stage 12
#include "kael/nn/state_dict.h"
