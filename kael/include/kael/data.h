#pragma once
/// \file
/// \brief Data loading of chapter 07 in one include: the IDX reader, TensorDataset, DataLoader.

#include "kael/data/dataloader.h"
#include "kael/data/dataset.h"
#include "kael/data/idx.h"
