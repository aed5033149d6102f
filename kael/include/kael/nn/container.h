#pragma once
/// \file
/// \brief nn::Sequential and nn::ModuleList: modules that hold other modules.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kael/error.h"
#include "kael/nn/module.h"

namespace kael::nn {

/// `torch.nn.Sequential`: runs its modules one after the other, each on the output of the
/// one before. The modules are registered as submodules "0", "1", ..., so their
/// parameters are named "0.weight", "2.bias" as in PyTorch.
class Sequential : public UnaryModule {
public:
    /// An empty chain; forward returns its input.
    Sequential() = default;
    /// A chain of `modules`, in order. ValueError for a null module.
    explicit Sequential(std::vector<std::shared_ptr<UnaryModule>> modules);
    /// Appends a module at the end of the chain.
    void push_back(std::shared_ptr<UnaryModule> module);
    /// The number of modules.
    [[nodiscard]] std::size_t size() const noexcept { return modules_.size(); }
    /// Module `index`. IndexError past the end.
    [[nodiscard]] const std::shared_ptr<UnaryModule>& operator[](std::size_t index) const;
    /// Each module applied in order.
    [[nodiscard]] Tensor forward(const Tensor& input) override;
    /// "Sequential".
    [[nodiscard]] std::string name() const override { return "Sequential"; }

private:
    std::vector<std::shared_ptr<UnaryModule>> modules_;
};

/// `torch.nn.ModuleList`: a list of submodules, registered as "0", "1", ..., so that their
/// parameters are found, moved and saved; it has no forward of its own (the owner decides
/// how the modules are called, as a transformer loops over its blocks).
template <typename M = Module> class ModuleList : public Module {
public:
    /// An empty list.
    ModuleList() = default;
    /// A list of `modules`, in order. ValueError for a null module.
    explicit ModuleList(std::vector<std::shared_ptr<M>> modules) {
        for (auto& module : modules) {
            push_back(std::move(module));
        }
    }
    /// Appends a module.
    void push_back(std::shared_ptr<M> module) {
        register_module(std::to_string(modules_.size()), module);
        modules_.push_back(std::move(module));
    }
    /// The number of modules.
    [[nodiscard]] std::size_t size() const noexcept { return modules_.size(); }
    /// Module `index`. IndexError past the end.
    [[nodiscard]] const std::shared_ptr<M>& operator[](std::size_t index) const {
        KAEL_CHECK_INDEX(index < modules_.size(),
                         "index " << index << " is out of range for a ModuleList of size " << modules_.size());
        return modules_[index];
    }
    /// The first module, for range-for.
    [[nodiscard]] auto begin() const noexcept { return modules_.begin(); }
    /// Past the last module.
    [[nodiscard]] auto end() const noexcept { return modules_.end(); }
    /// "ModuleList".
    [[nodiscard]] std::string name() const override { return "ModuleList"; }

private:
    std::vector<std::shared_ptr<M>> modules_;
};

}  // namespace kael::nn
