#pragma once
// Exercise 06.2: the order in which the engine runs the nodes of a graph.

#include <memory>
#include <vector>

#include "kael/autograd/node.h"

namespace exercise {

/// Every node reachable from `root`, once each, in the order backward() runs them: a node
/// after all the nodes with an edge to it, and the latest created first among those ready.
std::vector<std::shared_ptr<kael::autograd::Node>> execution_order(const std::shared_ptr<kael::autograd::Node>& root);

}  // namespace exercise
