#pragma once
/// \file
/// \brief TensorImpl: a storage plus the metadata that says how to read it.

#include <cstdint>
#include <memory>

#include "kael/dtype.h"
#include "kael/shape.h"
#include "kael/storage.h"

namespace kael {
//> stage 7

/// What the core knows of a tensor's autograd state (chapter 06): that it may exist, and how
/// to destroy it. The autograd layer derives its AutogradMeta from this interface and is the
/// only code that looks inside, so core code, which sits below autograd, never includes it.
struct AutogradMetaInterface {
    virtual ~AutogradMetaInterface() = default;
};
//< stage 7

/// The interpretation of a Storage: shape, strides, offset, dtype and device.
///
/// The members are public because views, operations and autograd build impls field by
/// field, and an impl under construction is briefly invalid (the shape is set before the
/// strides). The invariants are enforced once, by validate(), when the impl is wrapped in
/// a Tensor. Strides and offset count elements, not bytes.
struct TensorImpl {
//> stage 7
    /// An empty impl, to be filled field by field.
    TensorImpl();
    /// Copies the layout; the copy takes no part in autograd (its `autograd` is null).
    TensorImpl(const TensorImpl& other);
    /// Copies the layout; the autograd state of this impl is dropped.
    TensorImpl& operator=(const TensorImpl& other);
    /// Moves the layout and the autograd state.
    TensorImpl(TensorImpl&&) noexcept;
    /// Moves the layout and the autograd state.
    TensorImpl& operator=(TensorImpl&&) noexcept;
    ~TensorImpl();

//< stage 7
    /// The bytes, shared with every view of them.
    std::shared_ptr<Storage> storage;
    /// The size of each dimension.
    Shape shape;
    /// The step in elements between neighbours along each dimension; never negative.
    Strides strides;
    /// The position, in elements, of the first element inside the storage.
    std::int64_t offset = 0;
    /// The element type.
    DType dtype = DType::F32;
    /// The device; always equal to storage->device(), kept here to save a pointer chase.
    Device device = Device::CPU;
//> stage 7
    /// The autograd state (chapter 06), or null for a tensor outside autograd, which is
    /// what every tensor is until requires_grad_() or a recorded operation gives it one.
    std::unique_ptr<AutogradMetaInterface> autograd;
//< stage 7

    /// The number of elements.
    [[nodiscard]] std::int64_t numel() const { return kael::numel(shape); }
    /// The number of dimensions.
    [[nodiscard]] std::int64_t dim() const { return static_cast<std::int64_t>(shape.size()); }

    /// True when the elements, visited in row-major order, sit at consecutive storage
    /// positions. Size-1 dimensions may have any stride, and an empty tensor is always
    /// contiguous. The offset does not matter.
    [[nodiscard]] bool is_contiguous() const;

    /// Throws unless the metadata is consistent and every reachable element lies inside
    /// the storage: storage present, no negative size, stride or offset, as many strides as
    /// dimensions, devices equal, and (for a non-empty tensor) the last reachable byte
    /// within storage->nbytes(), computed with overflow checks.
    void validate() const;
};

}  // namespace kael
