#pragma once
/// \file
/// \brief Saving an optimizer's or a schedule's state in a safetensors file, beside the model's.
///
/// A run that is to resume exactly saves three files at the same step,
///
///     io::save_safetensors(model.state_dict(), dir / "model.safetensors");
///     optim::save_state(optimizer, dir / "optimizer.safetensors");
///     optim::save_state(schedule, dir / "schedule.safetensors");
///
/// and a new process builds the model, the optimizer and the schedule as the first run did,
/// then loads each file into its object. The files hold the flattened state dicts of
/// kael/optim/state_dict.h, tensors only, so any safetensors reader can open them.

#include <filesystem>

#include "kael/optim/optimizer.h"
#include "kael/optim/schedule.h"

namespace kael::optim {

/// Writes optimizer.state_dict() to `path` with io::save_safetensors (which replaces the
/// file only once the new one is complete). kael::Error when the file cannot be written.
void save_state(const Optimizer& optimizer, const std::filesystem::path& path);
/// Reads `path` with io::load_safetensors and loads it into `optimizer`: what the reader
/// and Optimizer::load_state_dict throw, and nothing changes when they do.
void load_state(Optimizer& optimizer, const std::filesystem::path& path);
/// Writes schedule.state_dict() to `path`; see the optimizer's version.
void save_state(const LRScheduler& schedule, const std::filesystem::path& path);
/// Loads `path` into `schedule`; see the optimizer's version.
void load_state(LRScheduler& schedule, const std::filesystem::path& path);

}  // namespace kael::optim
