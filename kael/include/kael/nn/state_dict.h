#pragma once
/// \file
/// \brief StateDict: named tensors in insertion order, what a checkpoint holds (chapter 07).

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kael/tensor.h"

namespace kael::nn {

/// Tensors under unique names, kept in the order they were inserted, like the OrderedDict
/// that PyTorch's `state_dict()` returns.
///
/// The order matters to a reader, not to a loader: a model lists its parameters top to
/// bottom, and printing the keys of a checkpoint should show them that way. Lookups by name
/// go through a hash index, so a model with thousands of tensors loads in linear time.
class StateDict {
public:
    /// One entry: the name and the tensor stored under it.
    using value_type = std::pair<std::string, Tensor>;
    /// Iterates the entries in insertion order.
    using const_iterator = std::vector<value_type>::const_iterator;

    /// Adds `t` under `name`. Throws ValueError if the name is already taken: silently
    /// replacing a tensor would hide a model that registers two things under one name.
    void insert(std::string name, Tensor t);

    /// The tensor stored under `name`, or nullptr when there is none.
    [[nodiscard]] const Tensor* find(std::string_view name) const;
    /// True when a tensor is stored under `name`.
    [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }
    /// The tensor stored under `name`. Throws IndexError naming the key when there is none.
    [[nodiscard]] const Tensor& at(std::string_view name) const;

    /// The number of entries.
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
    /// True when there are no entries.
    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
    /// The names, in insertion order.
    [[nodiscard]] std::vector<std::string> keys() const;

    /// The first entry, in insertion order.
    [[nodiscard]] const_iterator begin() const noexcept { return entries_.begin(); }
    /// One past the last entry.
    [[nodiscard]] const_iterator end() const noexcept { return entries_.end(); }

private:
    // A transparent hash lets find() look up a std::string_view without building a
    // std::string for every query.
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view name) const noexcept {
            return std::hash<std::string_view>{}(name);
        }
    };

    std::vector<value_type> entries_;
    // name -> position in entries_
    std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> index_;
};

}  // namespace kael::nn
