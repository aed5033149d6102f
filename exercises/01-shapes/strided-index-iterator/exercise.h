#pragma once
// Exercise 01.1: visit every position of a strided layout with an odometer.

#include <cstdint>
#include <functional>
#include <span>

#include "kael/shape.h"

namespace exercise {

/// Receives one element: its multi-index and its storage position.
using PositionVisitor =
    std::function<void(std::span<const std::int64_t> index, std::int64_t position)>;

/// Calls `visit` for every element of the layout (shape, strides, offset), in row-major
/// order. Throws kael::ValueError for inconsistent or negative metadata.
void for_each_position(const kael::Shape& shape, const kael::Strides& strides,
                       std::int64_t offset, const PositionVisitor& visit);

}  // namespace exercise
