#pragma once
/// \file
/// \brief Where matmul switches from its kernel for a few rows to the blocked one (chapter 12).

#include <cstdint>

namespace kael {

/// The most rows of A (a batch folded into them) that matmul() multiplies on the CPU with
/// its kernel for a few rows, one pass over B, unless the BLAS backend is asked for by name;
/// from one row more on, B is packed for the blocked kernel. The two kernels add each
/// element's products in different orders, so a product's last bits depend on the side of
/// this limit its row count falls. Code that must reproduce another computation's bits
/// keeps its row counts on the same side: the server prefills a prompt in chunks of more
/// rows than this, so that its tokens are those of a prompt prefilled whole (chapter 13).
inline constexpr std::int64_t kMatmulFewRows = 8;

}  // namespace kael
