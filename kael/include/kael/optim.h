#pragma once
/// \file
/// \brief Every optimizer and learning-rate schedule of chapter 07 in one include.

#include "kael/optim/adam.h"
#include "kael/optim/checkpoint.h"
#include "kael/optim/one_cycle.h"
#include "kael/optim/optimizer.h"
#include "kael/optim/schedule.h"
#include "kael/optim/sequential.h"
#include "kael/optim/sgd.h"
#include "kael/optim/state_dict.h"
