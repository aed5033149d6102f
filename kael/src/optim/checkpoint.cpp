// Optimizer and schedule state in safetensors files: state_dict() through the io layer.
#include "kael/optim/checkpoint.h"

#include "kael/io/safetensors.h"

namespace kael::optim {

void save_state(const Optimizer& optimizer, const std::filesystem::path& path) {
    io::save_safetensors(optimizer.state_dict(), path);
}

void load_state(Optimizer& optimizer, const std::filesystem::path& path) {
    optimizer.load_state_dict(io::load_safetensors(path));
}

void save_state(const LRScheduler& schedule, const std::filesystem::path& path) {
    io::save_safetensors(schedule.state_dict(), path);
}

void load_state(LRScheduler& schedule, const std::filesystem::path& path) {
    schedule.load_state_dict(io::load_safetensors(path));
}

}  // namespace kael::optim
