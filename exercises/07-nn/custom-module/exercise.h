#pragma once
// Exercise 07.1: modules of your own, one with parameters and one built from submodules.

#include <cstdint>
#include <memory>
#include <string>

#include "kael/nn/linear.h"
#include "kael/nn/module.h"

namespace exercise {

/// y = x * scale + shift, feature by feature over the last dimension of x. The scale
/// starts at ones and the shift at zeros; both are parameters, registered in that order
/// as "scale" and "shift". See README.md for the rules.
class Affine : public kael::nn::UnaryModule {
public:
    /// ValueError for a negative number of features.
    explicit Affine(std::int64_t features);
    /// input * scale + shift. ValueError unless the input has at least one dimension and
    /// its last one is `features` long.
    [[nodiscard]] kael::Tensor forward(const kael::Tensor& input) override;
    /// "Affine".
    [[nodiscard]] std::string name() const override { return "Affine"; }
    /// "features=3".
    [[nodiscard]] std::string extra_repr() const override;

    /// The scale, [features]: the module's handle to its registered parameter "scale".
    kael::Tensor scale;
    /// The shift, [features]: the module's handle to its registered parameter "shift".
    kael::Tensor shift;

private:
    std::int64_t features_;
};

/// fc1 (Linear in -> hidden), ReLU, fc2 (Linear hidden -> out), then an Affine over the
/// outputs: three submodules registered in that order as "fc1", "fc2" and "affine".
class Mlp : public kael::nn::UnaryModule {
public:
    /// ValueError for a negative size (Linear's and Affine's own checks).
    Mlp(std::int64_t in_features, std::int64_t hidden_features, std::int64_t out_features);
    /// affine(fc2(relu(fc1(input)))).
    [[nodiscard]] kael::Tensor forward(const kael::Tensor& input) override;
    /// "Mlp".
    [[nodiscard]] std::string name() const override { return "Mlp"; }

    /// The first layer, registered as "fc1".
    std::shared_ptr<kael::nn::Linear> fc1;
    /// The second layer, registered as "fc2".
    std::shared_ptr<kael::nn::Linear> fc2;
    /// The scale and shift of the outputs, registered as "affine".
    std::shared_ptr<Affine> affine;
};

}  // namespace exercise
