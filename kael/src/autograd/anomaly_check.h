#pragma once
// The engine's side of anomaly detection (chapter 13), internal to the library.
#include "kael/autograd/node.h"

namespace kael::autograd {

// Throws kael::Error naming `node`, the gradient and the forward operation when one of
// `grads`, the gradients `node` returned for its inputs, holds NaN or infinity.
void check_gradients(const Node& node, const Grads& grads);

}  // namespace kael::autograd
